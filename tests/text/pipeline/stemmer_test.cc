#include "text/pipeline/stemmer.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <string>
#include <utility>
#include <vector>

namespace mnemo::text {
namespace {

// Pairs from Snowball's published English (Porter2) vocabulary and output
// (snowballstem/snowball-data, english/).
TEST(Stemmer, MatchesSnowballEnglishVocabulary) {
  const std::pair<const char*, const char*> kPairs[] = {
      {"abandonment", "abandon"},
      {"abasement", "abas"},
      {"abilities", "abil"},
      {"abbreviation", "abbrevi"},
      {"abed", "abe"},
      {"abhorrence", "abhorr"},
      {"able", "abl"},
      {"abolition", "abolit"},
      {"abstractedly", "abstract"},
      {"academy", "academi"},
      {"accidental", "accident"},
      {"accidents", "accid"},
      {"accompanying", "accompani"},
      {"accountabilities", "account"},
      {"acknowledgement", "acknowledg"},
      {"acquittal", "acquitt"},
      {"acrimoniously", "acrimoni"},
      {"actuality", "actual"},
      {"adas", "ada"},
      {"added", "ad"},
      {"adding", "ad"},
      {"adds", "add"},
      {"administration", "administr"},
      {"admiralty", "admiralti"},
      {"admittance", "admitt"},
      {"adulation", "adul"},
  };
  for (const auto& [word, stem] : kPairs) EXPECT_EQ(Stem(word), stem) << word;
}

// The reason for Porter2 (issue 18 section 4): Porter's 1980 algorithm gave
// "deploi" for "deploy" and "deploy" for "deployment", so they never met.
TEST(Stemmer, InflectionsOfAWordMeet) {
  for (const char* word : {"deploy", "deploys", "deployed", "deploying", "deployment"}) {
    EXPECT_EQ(Stem(word), "deploy") << word;
  }
  for (const char* word : {"email", "emails", "emailed", "emailing"}) {
    EXPECT_EQ(Stem(word), "email") << word;
  }
}

// Stems are remembered per thread in a table of slots words share: a word
// must get its own stem back however many others passed through its slot,
// prefixes of each other and words around the longest one remembered.
TEST(Stemmer, RemembersStemsWithoutMixingWordsUp) {
  std::vector<std::string> words = {"abilities",
                                    "abilitie",
                                    "abiliti",
                                    "connections",
                                    "connection",
                                    std::string(24, 'a') + "ing",
                                    std::string(21, 'b') + "ing",
                                    std::string(22, 'c') + "ing"};
  for (int i = 0; i < 40000; ++i) {
    std::string w;
    for (int n = i; n > 0 || w.size() < 3; n /= 7) w += static_cast<char>('a' + n % 7);
    w += (i % 3 == 0) ? "ings" : (i % 3 == 1 ? "ed" : "ness");
    words.push_back(std::move(w));
  }
  std::vector<std::string> first;
  for (const std::string& w : words) first.push_back(Stem(w));
  EXPECT_EQ(first[0], "abil");
  EXPECT_EQ(first[3], "connect");
  for (size_t i = words.size(); i-- > 0;) ASSERT_EQ(Stem(words[i]), first[i]) << words[i];
  for (size_t i = 0; i < words.size(); i += 3) ASSERT_EQ(Stem(words[i]), first[i]) << words[i];
}

// glibc takes a program's static thread-local storage from every thread's
// stack, so mnemo's per-thread state must not be large static TLS: a host
// may run it on threads with small stacks.
TEST(Stemmer, RunsOnAThreadWithASmallStack) {
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 128 * 1024), 0);
  std::string stem;
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* out) -> void* {
        *static_cast<std::string*>(out) = Stem("connections");
        return nullptr;
      },
      &stem);
  pthread_attr_destroy(&attr);
  ASSERT_EQ(rc, 0) << "a thread with a 128 KB stack did not start";
  pthread_join(thread, nullptr);
  EXPECT_EQ(stem, "connect");
}

TEST(Stemmer, LeavesShortAndNonLetterWordsAlone) {
  EXPECT_EQ(Stem("is"), "is");
  EXPECT_EQ(Stem("as"), "as");
  EXPECT_EQ(Stem("abc123"), "abc123");
  EXPECT_EQ(Stem("Running"), "Running");  // callers fold case first
  EXPECT_EQ(Stem(""), "");
  const std::string long_word(80, 's');
  EXPECT_EQ(Stem(long_word), long_word);
}

// TermGate (tokenizer.h) rests on this: a stem starts with its word's first
// letter and is no longer than the word, for the stemmer's exceptions too.
TEST(Stemmer, KeepsAWordsFirstLetterAndNeverLengthensIt) {
  const std::vector<std::string> stems = {"y",     "ye",   "sky",  "die", "gener", "commun",
                                          "arsen", "happ", "agre", "hop", "relat", "cr",
                                          "yell",  "a",    "i",    "o",   "u",     "e",
                                          "ski",   "ugl",  "earl", "onl", "singl", "gentl"};
  const std::vector<std::string> endings = {
      "",        "s",      "es",      "ies",     "ied",     "ed",    "ing",  "ly",
      "ational", "tional", "ization", "fulness", "iveness", "y",     "ings", "eed",
      "edly",    "ingly",  "ement",   "ment",    "ent",     "ism",   "ize",  "ate",
      "ying",    "iness",  "ically",  "ousli",   "alism",   "ative", "eeds"};
  std::vector<std::string> words = {"dying",  "lying", "tying",  "skies", "skis",   "idly",
                                    "gently", "ugly",  "early",  "only",  "singly", "news",
                                    "howe",   "atlas", "cosmos", "bias",  "andes",  "yy"};
  for (const std::string& s : stems) {
    for (const std::string& e : endings) words.push_back(s + e);
  }
  for (const std::string& word : words) {
    const std::string stem = Stem(word);
    ASSERT_FALSE(stem.empty()) << word;
    EXPECT_EQ(stem.front(), word.front()) << word << " -> " << stem;
    EXPECT_LE(stem.size(), word.size()) << word << " -> " << stem;
  }
}

}  // namespace
}  // namespace mnemo::text

#include "text/stemmer.h"

#include <gtest/gtest.h>

#include <utility>

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

TEST(Stemmer, LeavesShortAndNonLetterWordsAlone) {
  EXPECT_EQ(Stem("is"), "is");
  EXPECT_EQ(Stem("as"), "as");
  EXPECT_EQ(Stem("abc123"), "abc123");
  EXPECT_EQ(Stem("Running"), "Running");  // callers fold case first
  EXPECT_EQ(Stem(""), "");
  const std::string long_word(80, 's');
  EXPECT_EQ(Stem(long_word), long_word);
}

}  // namespace
}  // namespace mnemo::text

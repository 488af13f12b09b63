#include "text/snippet.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "text/pipeline/query.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

// Visible length: code points without the ** markers.
size_t VisibleChars(std::string s) {
  for (size_t p; (p = s.find("**")) != std::string::npos;) s.erase(p, 2);
  return CountCodePoints(s);
}

std::string Filler(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += "lorem ipsum dolor sit amet ";
  return s;
}

TEST(Snippet, WrapsMatchesInShortContent) {
  EXPECT_EQ(MakeSnippet("She emailed the reports", QueryTerms("email report")),
            "She **emailed** the **reports**");
}

TEST(Snippet, ChoosesTheWindowWithTheMostDistinctTerms) {
  const std::string content =
      "alpha at the start. " + Filler(20) + "here alpha and beta and gamma meet. " + Filler(20);
  const std::string s = MakeSnippet(content, QueryTerms("alpha beta gamma"), 80);
  EXPECT_NE(s.find("**alpha** and **beta** and **gamma**"), std::string::npos) << s;
  EXPECT_TRUE(s.starts_with("…"));
  EXPECT_TRUE(s.ends_with("…"));
  EXPECT_LE(VisibleChars(s), 80u);
}

TEST(Snippet, HighlightsIdentifiersOnceAndCjkAsOneRun) {
  EXPECT_EQ(MakeSnippet("run deploy.py now", QueryTerms("deploy.py")), "run **deploy.py** now");
  EXPECT_EQ(MakeSnippet("服务器上的 deploy.py", QueryTerms("服务器")), "**服务器**上的 deploy.py");
}

TEST(Snippet, RespectsMaxCharsInCodePoints) {
  std::string content;
  for (int i = 0; i < 300; ++i) content += "服务器";
  content += "邮件";
  for (int i = 0; i < 300; ++i) content += "服务器";
  const std::string s = MakeSnippet(content, QueryTerms("邮件"), 50);
  EXPECT_TRUE(IsValidUtf8(s));
  EXPECT_LE(VisibleChars(s), 50u);
  EXPECT_NE(s.find("**邮件**"), std::string::npos);
}

TEST(Snippet, StartsAtTheBeginningWithoutAMatch) {
  const std::string content = Filler(30);
  const std::string s = MakeSnippet(content, QueryTerms("nothing"), 40);
  EXPECT_TRUE(s.starts_with("lorem ipsum"));
  EXPECT_TRUE(s.ends_with("…"));
  EXPECT_LE(VisibleChars(s), 40u);
  EXPECT_EQ(s.find("**"), std::string::npos);
}

TEST(Snippet, NeverBreaksUtf8) {
  const std::string content =
      "é" + std::string(10, 'x') + " مرحبا بالعالم " + Filler(10) + "\xFF tail";
  for (size_t n = 1; n < 60; ++n) {
    const std::string s = MakeSnippet(content, QueryTerms("العالم tail"), n);
    EXPECT_TRUE(IsValidUtf8(s)) << n;
    EXPECT_LE(VisibleChars(s), n) << n;
  }
  EXPECT_EQ(MakeSnippet(content, {}, 0), "");
  EXPECT_EQ(MakeSnippet("", QueryTerms("x"), 10), "");
}

TEST(Snippet, APassageIsTheSnippetsWindowWithoutMarkers) {
  const std::string content = Filler(40) + " the Lisbon office opens at nine " + Filler(40);
  const std::vector<std::string> terms = QueryTerms("Lisbon office");
  const std::string passage = MakePassage(content, terms, 60);
  EXPECT_NE(passage.find("the Lisbon office opens"), std::string::npos) << passage;
  EXPECT_EQ(passage.find("**"), std::string::npos);
  std::string unmarked = MakeSnippet(content, terms, 60);
  for (size_t at; (at = unmarked.find("**")) != std::string::npos;) unmarked.erase(at, 2);
  EXPECT_EQ(passage, unmarked);
}

TEST(Snippet, MatchesAnyTermComparesIndexTokens) {
  EXPECT_TRUE(MatchesAnyTerm("We deployed the billing service", QueryTerms("billing")));
  EXPECT_TRUE(MatchesAnyTerm("Three python files: deploy.py", QueryTerms("deploy.py")));
  EXPECT_FALSE(MatchesAnyTerm("We called him Biscuit.", QueryTerms("puppy name")));
  EXPECT_FALSE(MatchesAnyTerm("", QueryTerms("puppy")));
  EXPECT_FALSE(MatchesAnyTerm("puppy", {}));
}

// A varied corpus: English (stemmed forms, identifiers, mixed case), Chinese,
// Japanese, Arabic (articles, harakat), other scripts, compatibility forms,
// invalid bytes; short texts, texts of a few thousand characters, matches at
// either end. Deterministic: std::mt19937's sequence is fixed by the standard.
std::vector<std::string> CorpusWords() {
  return {"the",         "report",  "reports", "emailed",  "email",     "deploy.py", "send_email",
          "/etc/passwd", "Lisbon",  "office",  "RUNNING",  "dying",     "skies",     "happy",
          "a@b.com",     "3.14",    "naïve",   "café",     "Straße",    "ﬁle",       "ＡＢＣ",
          "服务器",      "邮件",    "部署",    "数据库",   "用户",      "今天",      "的",
          "了",          "中文",    "データ",  "ひらがな", "サーバー",  "ゟ",        "豈",
          "مرحبا",       "بالعالم", "الكلمات", "كلمات",    "المفتاحية", "مُحَمَّد",      "Привет",
          "мир",         "🙂",    "\xFF",    "x_y",      "v2.0",      "C++",       "e-mail",
          "\t",          "\n",      "—",       "、",       "。",        ", ",        ". "};
}

std::string CorpusText(std::mt19937& rng, const std::vector<std::string>& words) {
  const size_t kLengths[] = {1, 3, 8, 20, 40, 60, 120, 400, 1500};
  const size_t n = kLengths[rng() % 9];
  std::string text;
  for (size_t i = 0; i < n; ++i) {
    const uint32_t r = rng();
    if (r % 3 == 0) {
      text += std::string(1 + (r >> 8) % 12, "lorem ipsum dolor sit amet"[(r >> 4) % 26]);
    } else {
      text += words[(r >> 2) % words.size()];
    }
    if ((r >> 20) % 4 != 0) text += ((r >> 24) % 9 == 0) ? "" : " ";
  }
  return text;
}

uint64_t Fnv1a(uint64_t h, std::string_view s) {
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  h ^= 0xFF;  // a separator no UTF-8 output holds
  return h * 1099511628211ULL;
}

// Snippets are made for every hit of a search: their cost was cut (code point
// offsets only for non-ASCII text, CJK bigrams copied rather than normalised,
// faster UTF-8 decoding) without changing one byte of what they give. The
// digest is that of every snippet, passage and match test of this corpus as
// main made them before the change.
TEST(Snippet, AVariedCorpusGivesTheSameSnippetsAsBefore) {
  const std::vector<std::string> words = CorpusWords();
  std::mt19937 rng(20261207);
  uint64_t digest = 14695981039346656037ULL;
  size_t highlighted = 0;
  for (int doc = 0; doc < 400; ++doc) {
    const std::string text = CorpusText(rng, words);
    for (int q = 0; q < 3; ++q) {
      std::string query;
      for (uint32_t k = 0; k <= rng() % 3; ++k) query += words[rng() % words.size()] + " ";
      const std::vector<std::string> terms = QueryTerms(query);
      for (const size_t max_chars : {0, 2, 3, 17, 40, 200}) {
        const std::string snippet = MakeSnippet(text, terms, max_chars);
        highlighted += snippet.find("**") != std::string::npos ? 1 : 0;
        digest = Fnv1a(digest, snippet);
      }
      digest = Fnv1a(digest, MakePassage(text, terms, 120));
      digest = Fnv1a(digest, MatchesAnyTerm(text, terms) ? "1" : "0");
    }
  }
  EXPECT_GT(highlighted, 2000u);  // most of the corpus's snippets have a match
  EXPECT_EQ(digest, 12289082536070947084ULL);
}

}  // namespace
}  // namespace mnemo::text

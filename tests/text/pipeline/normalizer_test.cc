#include "text/pipeline/normalizer.h"

#include <gtest/gtest.h>

namespace mnemo::text {
namespace {

std::string Normalized(std::string_view word) {
  std::string out;
  NormalizeWord(word, &out);
  return out;
}

TEST(Normalizer, FoldsAsciiAndUnicode) {
  EXPECT_EQ(Normalized("HeLLo"), "hello");
  EXPECT_EQ(Normalized("ＡＢＣ"), "abc");
  EXPECT_EQ(Normalized("ﬁle"), "file");
  EXPECT_EQ(Normalized("Straße"), Normalized("STRASSE"));
  EXPECT_EQ(Normalized("ÉCOLE"), "école");
}

TEST(Normalizer, CleansArabic) {
  EXPECT_EQ(Normalized("أَحْمَد"), "احمد");
  EXPECT_EQ(Normalized("ـكتـاب"), "كتاب");
  EXPECT_EQ(Normalized("ﻻ"), "لا");  // presentation form via NFKC
}

TEST(Normalizer, FindsArabicPrefixes) {
  bool with_article = false;
  EXPECT_EQ(ArabicPrefixLength("الكتاب", &with_article), 4u);
  EXPECT_FALSE(with_article);
  EXPECT_EQ(ArabicPrefixLength("بالكتاب", &with_article), 6u);
  EXPECT_TRUE(with_article);
  EXPECT_EQ(ArabicPrefixLength("للكتاب", &with_article), 4u);
  EXPECT_TRUE(with_article);
  EXPECT_EQ(ArabicPrefixLength("الم", &with_article), 0u);  // one letter would remain
  EXPECT_EQ(ArabicPrefixLength("كتاب", &with_article), 0u);
}

TEST(Normalizer, CutsOverlongTokensAtACodePoint) {
  std::string word;
  for (int i = 0; i < 200; ++i) word += "é";
  std::string out;
  FoldWord(word, &out);
  EXPECT_LE(out.size(), kMaxTokenBytes);
  EXPECT_EQ(out.size() % 2, 0u);
}

}  // namespace
}  // namespace mnemo::text

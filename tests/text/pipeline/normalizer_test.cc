#include "text/pipeline/normalizer.h"

#include <gtest/gtest.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

std::string Normalized(std::string_view word) {
  std::string out;
  NormalizeWord(word, &out);
  return out;
}

// FoldWord copies the words IsFoldInertCjk accepts. Under ICU's NFKC_Casefold
// every code point of them maps to itself and has a normalization boundary
// before it (nothing before it combines with it), so a string of them is
// normalised code point by code point: it folds to itself.
TEST(Normalizer, TheCjkCopiedWithoutFoldingIsInertToIcu) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfkc_cf = icu::Normalizer2::getNFKCCasefoldInstance(status);
  ASSERT_TRUE(U_SUCCESS(status));
  size_t accepted = 0;
  for (int32_t cp = 0x3000; cp <= 0xA000; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    std::string one;
    AppendUtf8(static_cast<char32_t>(cp), &one);
    if (!IsFoldInertCjk(one)) continue;
    ++accepted;
    ASSERT_TRUE(nfkc_cf->hasBoundaryBefore(cp)) << std::hex << cp;
    const icu::UnicodeString alone(static_cast<UChar32>(cp));
    ASSERT_TRUE(nfkc_cf->normalize(alone, status) == alone) << std::hex << cp;
    ASSERT_TRUE(U_SUCCESS(status));
    ASSERT_TRUE(IsFoldInertCjk(one + one + one));
  }
  EXPECT_EQ(accepted, (0x9FFF - 0x4E00 + 1) + (0x4DBF - 0x3400 + 1) + (0x3096 - 0x3041 + 1) +
                          (0x30FA - 0x30A1 + 1));
  // Kana that NFKC maps (ゟ -> より), compatibility ideographs, half-width
  // forms and broken text go through ICU.
  for (std::string_view word : {"\xE3\x82\x9F", "\xEF\xA4\x80", "\xEF\xBD\xB1", "\xE4\xB8",
                                "\xE4\xB8\xAD"
                                "a",
                                ""}) {
    EXPECT_FALSE(IsFoldInertCjk(word)) << word;
  }
  std::string folded;
  FoldWord("\xE3\x82\x9F", &folded);              // ゟ
  EXPECT_EQ(folded, "\xE3\x82\x88\xE3\x82\x8A");  // より
  FoldWord("服务器", &folded);
  EXPECT_EQ(folded, "服务器");
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

#include "text/utf8.h"

#include <gtest/gtest.h>

namespace mnemo::text {
namespace {

TEST(Utf8, AcceptsWellFormedText) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii text that is longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("服务器 تسترجع Straße 😀"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));  // U+10FFFF
}

TEST(Utf8, RejectsOverlongsSurrogatesAndOutOfRange) {
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(IsValidUtf8("abc\xE4\xB8"));   // truncated
  EXPECT_FALSE(IsValidUtf8("\x80"));          // lone continuation
  EXPECT_FALSE(IsValidUtf8("12345678\xFF"));  // after the 8-byte fast path
}

// Moved from tests/transport (transport validated UTF-8 with a copy of its
// own; the one validator is text::IsValidUtf8).
TEST(Utf8, ValidUtf8AsTheParameterSchemaChecksIt) {
  EXPECT_TRUE(IsValidUtf8("plain"));
  EXPECT_TRUE(IsValidUtf8("中文 العربية 😀"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // surrogate
  EXPECT_FALSE(IsValidUtf8("\xe4\xb8"));      // truncated
}

TEST(Utf8, SanitizeReplacesEachMaximalSubpartOnce) {
  EXPECT_EQ(SanitizeUtf8("a\xE4\xB8"
                         "b"),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(SanitizeUtf8("\xFF\xFE"), "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(SanitizeUtf8("ok 服务"), "ok 服务");
  EXPECT_TRUE(IsValidUtf8(SanitizeUtf8("\xC0\xAF\xED\xA0\x80 x \xF4\x90")));
}

TEST(Utf8, PrefixBytesNeverCutsASequence) {
  const std::string s = "a服务b";
  EXPECT_EQ(Utf8PrefixBytes(s, 0), 0u);
  EXPECT_EQ(Utf8PrefixBytes(s, 1), 1u);
  EXPECT_EQ(Utf8PrefixBytes(s, 2), 4u);
  EXPECT_EQ(Utf8PrefixBytes(s, 3), 7u);
  EXPECT_EQ(Utf8PrefixBytes(s, 99), s.size());
  EXPECT_EQ(CountCodePoints(s), 4u);
}

TEST(Utf8, DecodeReportsCodePointsAndErrors) {
  int32_t cp = 0;
  EXPECT_EQ(DecodeUtf8("😀", 0, &cp), 4);
  EXPECT_EQ(cp, 0x1F600);
  EXPECT_EQ(DecodeUtf8("\xE4\xB8"
                       "x",
                       0, &cp),
            2);
  EXPECT_EQ(cp, -1);
  std::string out;
  AppendUtf8(0x1F600, &out);
  AppendUtf8(0x4E2D, &out);
  EXPECT_EQ(out, "😀中");
}

}  // namespace
}  // namespace mnemo::text

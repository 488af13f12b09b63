#include "base/strings.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

namespace mnemo::internal {
namespace {

TEST(Trim, RemovesAsciiWhiteSpaceAtBothEndsByDefault) {
  EXPECT_EQ(Trim(" \t\r\n\v\fa b\n\t "), "a b");
  EXPECT_EQ(Trim("a"), "a");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \n\t"), "");
  // No-break space (U+00A0) is not ASCII white space.
  EXPECT_EQ(Trim("\xC2\xA0x\xC2\xA0"), "\xC2\xA0x\xC2\xA0");
}

TEST(Trim, RemovesOnlyTheGivenCharacters) {
  EXPECT_EQ(Trim(" \tvalue\t ", " \t"), "value");
  EXPECT_EQ(Trim("\nvalue \n", " \t"), "\nvalue \n");
  EXPECT_EQ(Trim(" line\r", " \t\r"), "line");
  EXPECT_EQ(Trim("\n body \n", " \t\r"), "\n body \n");
}

TEST(Trim, ReturnsAViewIntoItsInput) {
  const std::string s = "  abc  ";
  const std::string_view t = Trim(s);
  EXPECT_EQ(t.data(), s.data() + 2);
}

TEST(Utf8CutBytes, KeepsAStringThatFits) {
  EXPECT_EQ(Utf8CutBytes("", 0), 0u);
  EXPECT_EQ(Utf8CutBytes("abc", 3), 3u);
  EXPECT_EQ(Utf8CutBytes("\xE2\x82\xAC", 10), 3u);
}

TEST(Utf8CutBytes, NeverSplitsACodePoint) {
  const std::string s =
      "a\xE2\x82\xAC"      // a €
      "\xF0\x9F\x98\x80";  // 😀
  EXPECT_EQ(Utf8CutBytes(s, 0), 0u);
  EXPECT_EQ(Utf8CutBytes(s, 1), 1u);
  EXPECT_EQ(Utf8CutBytes(s, 2), 1u);
  EXPECT_EQ(Utf8CutBytes(s, 3), 1u);
  EXPECT_EQ(Utf8CutBytes(s, 4), 4u);
  EXPECT_EQ(Utf8CutBytes(s, 5), 4u);
  EXPECT_EQ(Utf8CutBytes(s, 7), 4u);
  EXPECT_EQ(Utf8CutBytes(s, 8), 8u);
  EXPECT_EQ(Utf8CutBytes("\xE2\x82\xAC", 2), 0u);
}

TEST(Utf8CutBytes, CutsAsciiAtTheLimit) { EXPECT_EQ(Utf8CutBytes("abcdef", 4), 4u); }

TEST(Utf8SequenceStart, FindsTheStartOfTheCodePointBeforeAPosition) {
  const std::string s =
      "a\xE2\x82\xAC"      // a €
      "\xF0\x9F\x98\x80";  // 😀
  EXPECT_EQ(Utf8SequenceStart(s, 1), 0u);
  EXPECT_EQ(Utf8SequenceStart(s, 4), 1u);
  EXPECT_EQ(Utf8SequenceStart(s, 8), 4u);
  // Inside a sequence: the lead byte before, which the caller's decode
  // then finds does not end at `end`.
  EXPECT_EQ(Utf8SequenceStart(s, 3), 1u);
  // Never more than three continuation bytes back, never before 0.
  EXPECT_EQ(Utf8SequenceStart("\x80\x80\x80\x80\x80", 5), 1u);
  EXPECT_EQ(Utf8SequenceStart("\x80\x80", 2), 0u);
}

TEST(Utf8SuffixStart, KeepsAStringThatFits) {
  EXPECT_EQ(Utf8SuffixStart("abc", 3), 0u);
  EXPECT_EQ(Utf8SuffixStart("", 0), 0u);
}

TEST(Utf8SuffixStart, NeverStartsInsideACodePoint) {
  const std::string s =
      "\xF0\x9F\x98\x80"  // 😀
      "\xE2\x82\xAC"      // €
      "z";
  EXPECT_EQ(Utf8SuffixStart(s, 1), 7u);
  EXPECT_EQ(Utf8SuffixStart(s, 2), 7u);
  EXPECT_EQ(Utf8SuffixStart(s, 3), 7u);
  EXPECT_EQ(Utf8SuffixStart(s, 4), 4u);
  EXPECT_EQ(Utf8SuffixStart(s, 6), 4u);
  EXPECT_EQ(Utf8SuffixStart(s, 7), 4u);
  EXPECT_EQ(Utf8SuffixStart(s, 8), 0u);
  EXPECT_EQ(Utf8SuffixStart("abcdef", 2), 4u);
}

}  // namespace
}  // namespace mnemo::internal

#include "text/trim.h"

#include <gtest/gtest.h>

namespace mnemo::text {
namespace {

TEST(TrimWhiteSpace, RemovesUnicodeWhiteSpaceAtBothEnds) {
  // U+3000 ideographic space, U+00A0 no-break space, U+2028 line separator.
  EXPECT_EQ(TrimWhiteSpace("\xE3\x80\x80 \t\xC2\xA0"
                           "a b\xE2\x80\xA8\n"),
            "a b");
  EXPECT_EQ(TrimWhiteSpace(" \xE3\x80\x80 "), "");
  EXPECT_EQ(TrimWhiteSpace(""), "");
}

TEST(TrimWhiteSpace, KeepsInnerWhiteSpaceAndIllFormedBytes) {
  EXPECT_EQ(TrimWhiteSpace("x\xC2\xA0y"), "x\xC2\xA0y");
  EXPECT_EQ(TrimWhiteSpace(" \xFF "), "\xFF");
}

}  // namespace
}  // namespace mnemo::text

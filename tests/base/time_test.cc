#include "base/time.h"

#include <gtest/gtest.h>

namespace mnemo::internal {
namespace {

TEST(Rfc3339, FormatsUtcWithMilliseconds) {
  EXPECT_EQ(FormatRfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatRfc3339(1700000000123), "2023-11-14T22:13:20.123Z");
}

TEST(Rfc3339, ParsesWhatItFormats) {
  for (TimeMs ms : {TimeMs{0}, TimeMs{1700000000123}, TimeMs{1798531200000}, TimeMs{-1000}}) {
    auto parsed = ParseRfc3339(FormatRfc3339(ms));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, ms);
  }
}

TEST(Rfc3339, AppliesOffsetsAndOptionalFraction) {
  EXPECT_EQ(ParseRfc3339("2026-11-29T10:00:00Z"), 1795946400000);
  EXPECT_EQ(ParseRfc3339("2026-11-29T12:00:00+02:00"), 1795946400000);
  EXPECT_EQ(ParseRfc3339("2026-11-29T10:00:00.5Z"), 1795946400500);
}

TEST(Rfc3339, RejectsMalformedText) {
  EXPECT_FALSE(ParseRfc3339("").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-13-01T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:00:00").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:00:00Zjunk").has_value());
}

TEST(Rfc3339, RejectsImpossibleDatesAndOffsets) {
  EXPECT_FALSE(ParseRfc3339("2026-02-30T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-04-31T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2100-02-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:00:00+99:99").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:00:00+24:00").has_value());
  EXPECT_FALSE(ParseRfc3339("2026-11-29T10:00:00-02:60").has_value());
  EXPECT_TRUE(ParseRfc3339("2028-02-29T00:00:00Z").has_value());
  EXPECT_TRUE(ParseRfc3339("2000-02-29T00:00:00Z").has_value());
  EXPECT_TRUE(ParseRfc3339("2026-12-31T23:59:59-23:59").has_value());
}

}  // namespace
}  // namespace mnemo::internal

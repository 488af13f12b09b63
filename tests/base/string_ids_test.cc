#include "base/string_ids.h"

#include <gtest/gtest.h>

#include <string>

namespace mnemo::internal {
namespace {

TEST(StringIds, EachDistinctStringGetsTheNextIdAndKeepsIt) {
  StringIds ids;
  EXPECT_EQ(ids.Find("a"), StringIds::kNone);
  EXPECT_EQ(ids.Intern("apple"), 0U);
  EXPECT_EQ(ids.Intern(""), 1U);
  EXPECT_EQ(ids.Intern("pear"), 2U);
  EXPECT_EQ(ids.Intern("apple"), 0U);
  EXPECT_EQ(ids.size(), 3U);
  EXPECT_EQ(ids.at(0), "apple");
  EXPECT_EQ(ids.at(1), "");
  EXPECT_EQ(ids.at(2), "pear");
  EXPECT_EQ(ids.Find(""), 1U);
  EXPECT_EQ(ids.Find("pea"), StringIds::kNone);
}

TEST(StringIds, ManyStringsAreFoundAfterGrowingAndShrinking) {
  StringIds ids;
  constexpr uint32_t kCount = 50'000;
  for (uint32_t i = 0; i < kCount; ++i) ASSERT_EQ(ids.Intern("term" + std::to_string(i)), i);
  for (uint32_t i = 0; i < kCount; i += 7) ASSERT_EQ(ids.Intern("term" + std::to_string(i)), i);
  ids.ShrinkToFit();
  ASSERT_EQ(ids.size(), kCount);
  for (uint32_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(ids.Find("term" + std::to_string(i)), i);
    ASSERT_EQ(ids.at(i), "term" + std::to_string(i));
  }
  EXPECT_EQ(ids.Find("term" + std::to_string(kCount)), StringIds::kNone);
  EXPECT_EQ(ids.Intern("new"), kCount);
}

}  // namespace
}  // namespace mnemo::internal

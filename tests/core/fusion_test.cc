#include "core/fusion.h"

#include <gtest/gtest.h>

namespace mnemo {
namespace {

TEST(Fusion, WeightedIsTheNormalisedWeightedMean) {
  std::vector<FusionInput> in = {{.keyword = 1.0, .vector = 0.5}, {.keyword = 0.2, .vector = 0.9}};
  auto s = FuseScores(in, {.vector_weight = 0.6, .keyword_weight = 0.4});
  EXPECT_DOUBLE_EQ(s[0], (0.6 * 0.5 + 0.4 * 1.0) / 1.0);
  EXPECT_DOUBLE_EQ(s[1], (0.6 * 0.9 + 0.4 * 0.2) / 1.0);
  // Weights are normalised: scaling both changes nothing.
  auto t = FuseScores(in, {.vector_weight = 6, .keyword_weight = 4});
  EXPECT_DOUBLE_EQ(s[0], t[0]);
  EXPECT_DOUBLE_EQ(s[1], t[1]);
}

TEST(Fusion, MissingVectorMeansKeywordScore) {
  std::vector<FusionInput> in = {{.keyword = 0.9}};
  EXPECT_DOUBLE_EQ(FuseScores(in, {})[0], 0.9);
  std::vector<FusionInput> both = {{.keyword = 0.9, .vector = 0.1}};
  EXPECT_DOUBLE_EQ(FuseScores(both, {.vector_side = false})[0], 0.9);
}

TEST(Fusion, RrfIsNormalisedToOne) {
  std::vector<FusionInput> in = {{.keyword = 0.9, .vector = 0.9, .key = "a"},
                                 {.keyword = 0.5, .vector = 0.1, .key = "b"},
                                 {.keyword = 0.0, .vector = 0.5, .key = "c"}};
  auto s = FuseScores(in, {.mode = FusionMode::kRrf});
  EXPECT_DOUBLE_EQ(s[0], 1.0);  // first on both sides
  const double max = 2.0 / 61.0;
  EXPECT_DOUBLE_EQ(s[1], (1.0 / 62.0 + 1.0 / 63.0) / max);
  EXPECT_DOUBLE_EQ(s[2], (1.0 / 62.0) / max);  // no keyword side at all
  for (double x : s) {
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
  }
}

TEST(Fusion, TiesBreakByUpdatedAtThenKey) {
  std::vector<FusionInput> in = {{.keyword = 0.5, .updated_at = 1, .key = "b"},
                                 {.keyword = 0.5, .updated_at = 2, .key = "z"},
                                 {.keyword = 0.5, .updated_at = 1, .key = "a"},
                                 {.keyword = 0.7, .updated_at = 0, .key = "y"}};
  auto s = FuseScores(in, {.vector_side = false});
  EXPECT_EQ(RankOrder(in, s), (std::vector<size_t>{3, 1, 2, 0}));
}

}  // namespace
}  // namespace mnemo

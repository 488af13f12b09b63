#include "core/fusion.h"

#include <gtest/gtest.h>

namespace mnemo {
namespace {

TEST(Fusion, WeightedIsTheNormalisedWeightedMean) {
  std::vector<FusionInput> in = {{.keyword = 1.0, .vector = 0.5}, {.keyword = 0.2, .vector = 0.9}};
  auto s =
      FuseScores(in, {.mode = FusionMode::kWeighted, .vector_weight = 0.6, .keyword_weight = 0.4});
  EXPECT_DOUBLE_EQ(s[0], (0.6 * 0.5 + 0.4 * 1.0) / 1.0);
  EXPECT_DOUBLE_EQ(s[1], (0.6 * 0.9 + 0.4 * 0.2) / 1.0);
  // Weights are normalised: scaling both changes nothing.
  auto t = FuseScores(in, {.mode = FusionMode::kWeighted, .vector_weight = 6, .keyword_weight = 4});
  EXPECT_DOUBLE_EQ(s[0], t[0]);
  EXPECT_DOUBLE_EQ(s[1], t[1]);
}

TEST(Fusion, MissingVectorMeansKeywordScore) {
  std::vector<FusionInput> in = {{.keyword = 0.9}};
  EXPECT_DOUBLE_EQ(FuseScores(in, {})[0], 0.9);
  std::vector<FusionInput> both = {{.keyword = 0.9, .vector = 0.1}};
  EXPECT_DOUBLE_EQ(FuseScores(both, {.vector_side = false})[0], 0.9);
}

TEST(Fusion, NoisyOrCountsOnlyTheCosineAboveTheVectorFloor) {
  // A keyword match far from the query vector against an entry of the
  // query's crowd at the similarity a real embedding model gives it (0.72,
  // floor 0.70), and one clearly closer than the crowd.
  std::vector<FusionInput> in = {{.keyword = 0.78, .vector = 0.0},
                                 {.keyword = 0.0, .vector = 0.72},
                                 {.keyword = 0.0, .vector = 0.85},
                                 {.keyword = 0.5, .vector = 0.85}};
  auto w =
      FuseScores(in, {.mode = FusionMode::kWeighted, .vector_weight = 0.6, .keyword_weight = 0.4});
  EXPECT_LT(w[0], w[1]);  // weighted, raw cosine: the crowd entry wins
  FusionOptions o{.mode = FusionMode::kNoisyOr};
  o.vector_floor = 0.7;
  auto s = FuseScores(in, o);
  EXPECT_DOUBLE_EQ(s[0], 0.78);  // a missing vector side takes nothing away
  EXPECT_NEAR(s[1], 0.02 / 0.3, 1e-12);
  EXPECT_NEAR(s[2], 0.5, 1e-12);
  EXPECT_NEAR(s[3], 1 - 0.5 * 0.5, 1e-12);  // two signals: stronger than either
  EXPECT_GT(s[0], s[1]);
  // Without a floor, cosine counts raw.
  auto raw = FuseScores(in, {.mode = FusionMode::kNoisyOr});
  EXPECT_NEAR(raw[1], 0.72, 1e-12);
  // Weights do not take part; an input without a vector scores its keyword score.
  std::vector<FusionInput> none = {{.keyword = 0.3}};
  EXPECT_DOUBLE_EQ(FuseScores(none, o)[0], 0.3);
  // RRF ranks, so the floor changes nothing there.
  FusionOptions rrf = o;
  rrf.mode = FusionMode::kRrf;
  EXPECT_EQ(FuseScores(in, rrf), FuseScores(in, {.mode = FusionMode::kRrf}));
  for (double x : s) {
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
  }
}

TEST(Fusion, VectorFloorIsTheLastNeighbourOfAFullSide) {
  const std::vector<double> side = {0.9, 0.75, 0.7, 0.72};
  EXPECT_DOUBLE_EQ(VectorFloor(side, 4), 0.7);
  // Fewer neighbours than asked: the scope is too small for a background.
  EXPECT_DOUBLE_EQ(VectorFloor(side, 5), 0.0);
  EXPECT_DOUBLE_EQ(VectorFloor({}, 0), 0.0);
  // A floor of 1 (every neighbour identical to the query) leaves no room above it.
  const std::vector<double> ones = {1.0, 1.0};
  std::vector<FusionInput> in = {{.keyword = 0.5, .vector = 1.0}};
  FusionOptions o{.mode = FusionMode::kNoisyOr};
  o.vector_floor = VectorFloor(ones, 2);
  EXPECT_DOUBLE_EQ(FuseScores(in, o)[0], 0.5);
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

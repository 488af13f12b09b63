#include "core/search/fusion.h"

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

TEST(Fusion, SoftMatchingCountsAboveTheTypicalCandidate) {
  // Three candidates earn soft score by chance (0.2), one holds the query's
  // meaning (0.6): only what it holds above the median counts.
  std::vector<FusionInput> in = {{.keyword = 0.3, .soft = 0.2},
                                 {.keyword = 0.3, .soft = 0.2},
                                 {.keyword = 0.5, .soft = 0.2},
                                 {.keyword = 0.3, .soft = 0.6}};
  EXPECT_DOUBLE_EQ(SoftFloor(in), 0.2);
  auto s = FuseScores(in, {.vector_side = false});
  EXPECT_DOUBLE_EQ(s[0], 0.3);
  EXPECT_DOUBLE_EQ(s[2], 0.5);  // chance similarity no longer outranks a keyword lead
  EXPECT_NEAR(s[3], 0.3 + 0.4 / 0.8, 1e-12);
  EXPECT_GT(s[3], s[2]);
  // Noisy-or takes the same keyword evidence; capped at 1.
  std::vector<FusionInput> full = {{.keyword = 0.9, .vector = 0.5, .soft = 1.0},
                                   {.keyword = 0.9, .vector = 0.5, .soft = 0.0}};
  EXPECT_DOUBLE_EQ(SoftFloor(full), 1.0);  // upper median of two
  EXPECT_DOUBLE_EQ(FuseScores(full, {})[0], 1 - 0.1 * 0.5);
  EXPECT_DOUBLE_EQ(KeywordEvidence(full[0], 0.0), 1.0);
  EXPECT_DOUBLE_EQ(KeywordEvidence({.keyword = 0.4, .soft = 0.3}, 0.0), 0.7);
  // One candidate alone has no crowd: its soft score counts whole.
  std::vector<FusionInput> one = {{.keyword = 0.2, .soft = 0.3}};
  EXPECT_DOUBLE_EQ(SoftFloor(one), 0.0);
  EXPECT_DOUBLE_EQ(FuseScores(one, {.vector_side = false})[0], 0.5);
}

TEST(Fusion, HybridOrderBreaksSaturatedScoresByExactKeywordThenCosine) {
  // Every candidate fuses to 1: a full keyword match, one that reached the
  // cap with similar words, and full matches nearer and farther in meaning.
  std::vector<FusionInput> in = {{.keyword = 0.9, .vector = 0.9, .updated_at = 9, .key = "a"},
                                 {.keyword = 1.0, .vector = 0.2, .updated_at = 1, .key = "b"},
                                 {.keyword = 1.0, .vector = 0.8, .updated_at = 0, .key = "c"},
                                 {.keyword = 1.0, .vector = 0.2, .updated_at = 1, .key = "d"},
                                 {.keyword = 0.5, .vector = 0.1, .updated_at = 5, .key = "e"}};
  const std::vector<double> scores = {1.0, 1.0, 1.0, 1.0, 0.6};
  EXPECT_EQ(HybridOrder(in, scores), (std::vector<size_t>{2, 1, 3, 0, 4}));
  // RankOrder keeps the plain rule (recency, then key).
  EXPECT_EQ(RankOrder(in, scores), (std::vector<size_t>{0, 1, 3, 2, 4}));
}

}  // namespace
}  // namespace mnemo

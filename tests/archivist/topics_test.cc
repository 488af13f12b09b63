#include "archivist/topics.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace mnemo::archivist {
namespace {

constexpr int64_t kT0 = 1'700'000'000'000;

struct MarkerCase {
  std::string message;
  bool marker;
};

TEST(HasTopicMarker, MatchesTheSpecTable) {
  const std::vector<MarkerCase> cases = {
      // English, every marker of spec 40
      {"Now let's talk about the deploy", true},
      {"Switching to the database question", true},
      {"Different topic: what about lunch?", true},
      {"Moving on to the budget", true},
      {"OK, let's move on", true},
      {"Can you help me with my taxes?", true},
      {"New question: how do I rotate keys?", true},
      {"Unrelated but important: the cat is sick", true},
      {"Changing subject, did the build pass?", true},
      {"On another note, the office is closed", true},
      {"Anyway, how was the trip?", true},
      {"By the way, the server restarted", true},
      {"btw, I pushed the fix", true},
      // case and apostrophes
      {"NOW LET'S GO", true},
      {"Now let’s look at logs", true},
      {"Now let‘s look at logs", true},
      {"now\n  let's   see", true},
      {"ok so anyway, back to it", true},
      // word boundaries
      {"I know let's see", false},
      {"Snow let's melt", false},
      {"We were switching tools", false},
      {"The renewed question stands", false},
      {"ubtw, nothing", false},
      // commas are part of the last three markers
      {"by the way I like it", false},
      {"It was in the way, by the way", false},
      {"Anyway it works", false},
      {"btw the fix is in", false},
      {"anyway，with a full-width comma", false},
      // no marker
      {"Let's continue with the deploy", false},
      {"Can you help me?", false},
      {"", false},
      // Chinese, every marker
      {"换个话题，今天吃什么", true},
      {"我们说点别的吧", true},
      {"另外一个问题：怎么部署", true},
      {"新问题：数据库怎么备份", true},
      {"顺便问一下，会议几点", true},
      {"好了，言归正传", true},
      {"接下来我们看日志", true},
      {"这个问题很新", false},
      {"我们继续部署", false},
      // mixed scripts
      {"好的 by the way, 会议改了", true},
      {"好的btw,会议改了", true},
  };
  for (const MarkerCase& c : cases) {
    EXPECT_EQ(HasTopicMarker(c.message), c.marker) << c.message;
  }
}

TEST(SegmentBoundary, EmptySegmentNeverCloses) {
  const SegmentState open{.turn_count = 0, .last_turn_at_ms = 0};
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0, .user_message = "new question: x"}, {}),
            BoundaryReason::kNone);
}

TEST(SegmentBoundary, ContinuesAnOrdinaryTurn) {
  const SegmentState open{.turn_count = 5, .last_turn_at_ms = kT0};
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0 + 1000, .user_message = "and then?"}, {}),
            BoundaryReason::kNone);
}

TEST(SegmentBoundary, ClosesAtMaxTurns) {
  const TurnSignal turn{.timestamp_ms = kT0 + 1000, .user_message = "more"};
  EXPECT_EQ(SegmentBoundary({.turn_count = 19, .last_turn_at_ms = kT0}, turn, {}),
            BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary({.turn_count = 20, .last_turn_at_ms = kT0}, turn, {}),
            BoundaryReason::kTurnCount);
  EXPECT_EQ(SegmentBoundary({.turn_count = 25, .last_turn_at_ms = kT0}, turn, {}),
            BoundaryReason::kTurnCount);
  EXPECT_EQ(SegmentBoundary({.turn_count = 3, .last_turn_at_ms = kT0}, turn, {.max_turns = 3}),
            BoundaryReason::kTurnCount);
  EXPECT_EQ(SegmentBoundary({.turn_count = 500, .last_turn_at_ms = kT0}, turn, {.max_turns = 0}),
            BoundaryReason::kNone);
}

TEST(SegmentBoundary, ClosesAfterAGapLongerThanTheLimit) {
  const SegmentState open{.turn_count = 2, .last_turn_at_ms = kT0};
  auto at = [](int64_t ms) { return TurnSignal{.timestamp_ms = ms, .user_message = "hi"}; };
  EXPECT_EQ(SegmentBoundary(open, at(kT0 + 600'000), {}), BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary(open, at(kT0 + 600'001), {}), BoundaryReason::kTimeGap);
  EXPECT_EQ(SegmentBoundary(open, at(kT0 + 61'000), {.max_time_gap_secs = 60}),
            BoundaryReason::kTimeGap);
  EXPECT_EQ(SegmentBoundary(open, at(kT0 + 86'400'000), {.max_time_gap_secs = 0}),
            BoundaryReason::kNone);
}

TEST(SegmentBoundary, ATimestampGoingBackwardsIsNoGap) {
  const SegmentState open{.turn_count = 2, .last_turn_at_ms = kT0};
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0 - 3'600'000, .user_message = "hi"}, {}),
            BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = 0, .user_message = "hi"}, {}),
            BoundaryReason::kNone);
}

TEST(SegmentBoundary, ExtremeTimestampsDoNotOverflow) {
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(SegmentBoundary({.turn_count = 1, .last_turn_at_ms = kMin},
                            {.timestamp_ms = kMax, .user_message = "x"}, {}),
            BoundaryReason::kTimeGap);
  EXPECT_EQ(
      SegmentBoundary({.turn_count = 1, .last_turn_at_ms = kMin},
                      {.timestamp_ms = kMax, .user_message = "x"}, {.max_time_gap_secs = kMax}),
      BoundaryReason::kNone);
}

TEST(SegmentBoundary, ClosesOnATopicMarker) {
  const SegmentState open{.turn_count = 2, .last_turn_at_ms = kT0};
  EXPECT_EQ(
      SegmentBoundary(open, {.timestamp_ms = kT0 + 1000, .user_message = "Anyway, next?"}, {}),
      BoundaryReason::kTopicMarker);
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0 + 1000, .user_message = "换个话题"}, {}),
            BoundaryReason::kTopicMarker);
}

const std::vector<float> kEast = {1, 0, 0};
const std::vector<float> kNorth = {0, 1, 0};
const std::vector<float> kNorthEast = {1, 1, 0};  // cosine to kEast: 0.707

TEST(SegmentBoundary, ClosesOnDriftBelowTheThreshold) {
  const SegmentState open{.turn_count = 3, .last_turn_at_ms = kT0, .centroid = kEast};
  const SegmentPolicy policy{.min_cosine = 0.4};
  EXPECT_EQ(
      SegmentBoundary(open, {.timestamp_ms = kT0, .user_message = "x", .vector = kNorth}, policy),
      BoundaryReason::kDrift);
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0, .user_message = "x", .vector = kNorthEast},
                            policy),
            BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary(open, {.timestamp_ms = kT0, .user_message = "x", .vector = kNorthEast},
                            {.min_cosine = 0.8}),
            BoundaryReason::kDrift);
}

TEST(SegmentBoundary, DriftIsOffByDefault) {
  const SegmentState open{.turn_count = 10, .last_turn_at_ms = kT0, .centroid = kEast};
  const TurnSignal turn{.timestamp_ms = kT0, .user_message = "x", .vector = kNorth};
  EXPECT_EQ(SegmentBoundary(open, turn, {}), BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary(open, turn, {.min_cosine = 0}), BoundaryReason::kNone);
  EXPECT_EQ(SegmentBoundary(open, turn, {.min_cosine = -0.5}), BoundaryReason::kNone);
}

TEST(SegmentBoundary, DriftNeedsThreeTurns) {
  const TurnSignal turn{.timestamp_ms = kT0, .user_message = "x", .vector = kNorth};
  const SegmentPolicy policy{.min_cosine = 0.4};
  EXPECT_EQ(
      SegmentBoundary({.turn_count = 2, .last_turn_at_ms = kT0, .centroid = kEast}, turn, policy),
      BoundaryReason::kNone);
  EXPECT_EQ(
      SegmentBoundary({.turn_count = 3, .last_turn_at_ms = kT0, .centroid = kEast}, turn, policy),
      BoundaryReason::kDrift);
}

TEST(SegmentBoundary, DriftNeedsComparableVectors) {
  const SegmentPolicy policy{.min_cosine = 0.4};
  const std::vector<float> two_dims = {0, 1};
  const std::vector<float> zero = {0, 0, 0};
  auto reason = [&](const std::vector<float>& centroid, const std::vector<float>& v) {
    return SegmentBoundary({.turn_count = 5, .last_turn_at_ms = kT0, .centroid = centroid},
                           {.timestamp_ms = kT0, .user_message = "x", .vector = v}, policy);
  };
  EXPECT_EQ(reason({}, kNorth), BoundaryReason::kNone);
  EXPECT_EQ(reason(kEast, {}), BoundaryReason::kNone);
  EXPECT_EQ(reason(kEast, two_dims), BoundaryReason::kNone);
  EXPECT_EQ(reason(zero, kNorth), BoundaryReason::kNone);
  EXPECT_EQ(reason(kEast, zero), BoundaryReason::kNone);
  EXPECT_EQ(reason(kEast, kNorth), BoundaryReason::kDrift);
}

TEST(SegmentBoundary, TheCheapestReasonWins) {
  const SegmentPolicy policy{.min_cosine = 0.4};
  const SegmentState full{.turn_count = 20, .last_turn_at_ms = kT0, .centroid = kEast};
  const SegmentState open{.turn_count = 5, .last_turn_at_ms = kT0, .centroid = kEast};
  const TurnSignal everything{
      .timestamp_ms = kT0 + 3'600'000, .user_message = "New question: x", .vector = kNorth};
  EXPECT_EQ(SegmentBoundary(full, everything, policy), BoundaryReason::kTurnCount);
  EXPECT_EQ(SegmentBoundary(open, everything, policy), BoundaryReason::kTimeGap);
  TurnSignal marker_and_drift = everything;
  marker_and_drift.timestamp_ms = kT0 + 1000;
  EXPECT_EQ(SegmentBoundary(open, marker_and_drift, policy), BoundaryReason::kTopicMarker);
  TurnSignal drift_only = marker_and_drift;
  drift_only.user_message = "what about lunch";
  EXPECT_EQ(SegmentBoundary(open, drift_only, policy), BoundaryReason::kDrift);
}

TEST(UpdateCentroid, KeepsTheRunningMean) {
  std::vector<float> centroid;
  const std::vector<float> a = {2, 0, 4};
  const std::vector<float> b = {0, 2, 0};
  const std::vector<float> c = {1, 1, 2};
  UpdateCentroid(centroid, 0, a);
  EXPECT_EQ(centroid, a);
  UpdateCentroid(centroid, 1, b);
  EXPECT_EQ(centroid, (std::vector<float>{1, 1, 2}));
  UpdateCentroid(centroid, 2, c);
  EXPECT_EQ(centroid, (std::vector<float>{1, 1, 2}));
  UpdateCentroid(centroid, 3, std::vector<float>{5, 1, 2});
  EXPECT_EQ(centroid, (std::vector<float>{2, 1, 2}));
}

TEST(UpdateCentroid, RestartsOnADimensionChangeAndIgnoresEmptyVectors) {
  std::vector<float> centroid = {1, 1, 1};
  UpdateCentroid(centroid, 4, {});
  EXPECT_EQ(centroid, (std::vector<float>{1, 1, 1}));
  const std::vector<float> two = {3, 4};
  UpdateCentroid(centroid, 4, two);
  EXPECT_EQ(centroid, two);
  UpdateCentroid(centroid, 0, std::vector<float>{1, 0});
  EXPECT_EQ(centroid, (std::vector<float>{1, 0}));
}

}  // namespace
}  // namespace mnemo::archivist

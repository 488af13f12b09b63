// Segmentation (spec 40, per turn step 5): whether a new turn continues the
// open segment or closes it. Pure functions; no storage, no allocation beyond
// one folded copy of the message. Thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::archivist {

// True when the user message announces a new topic: one of the English
// markers of spec 40 ("now let's", "switching to", "different topic",
// "moving on to", "let's move on", "can you help me with", "new question",
// "unrelated but", "changing subject", "on another note", "anyway,",
// "by the way,", "btw,") found with ContainsPhrase on FoldForMatch text
// (events.h), so "Now let’s" counts and "by the way" counts only with its
// comma; or one of the Chinese markers (换个话题, 说点别的, 另外一个问题, 新问题,
// 顺便问一下, 言归正传, 接下来我们) as a substring.
bool HasTopicMarker(std::string_view user_message);

// The open segment, as far as the boundary checks need it.
struct SegmentState {
  int64_t turn_count = 0;       // turns already in the segment
  int64_t last_turn_at_ms = 0;  // timestamp of its latest turn
  std::vector<float> centroid;  // running mean of its turn vectors; may be empty
};

// The incoming turn. The views must stay valid during the call only.
struct TurnSignal {
  int64_t timestamp_ms = 0;
  std::string_view user_message;
  std::span<const float> vector;  // may be empty (no embedder, or it failed)
};

// `[learning]` settings (spec 40). A value <= 0 turns its check off.
struct SegmentPolicy {
  int64_t max_turns = 20;
  int64_t max_time_gap_secs = 600;
  double min_cosine = 0;  // 0.4 with a semantic embedder; 0 (off) with `hash`
};

enum class BoundaryReason { kNone, kTurnCount, kTimeGap, kTopicMarker, kDrift };

// Why `turn` closes `open` and starts a new segment, or kNone when it
// continues it. Checks run cheapest first and the first hit wins:
//  1. kTurnCount: open.turn_count >= policy.max_turns;
//  2. kTimeGap: turn.timestamp_ms - open.last_turn_at_ms is more than
//     policy.max_time_gap_secs seconds (a timestamp that goes backwards is
//     no gap: clocks of different callers disagree, order comes from
//     sequence numbers);
//  3. kTopicMarker: HasTopicMarker(turn.user_message);
//  4. kDrift: cosine(turn.vector, open.centroid) < policy.min_cosine, checked
//     only when min_cosine > 0, the segment has at least 3 turns and both
//     vectors are non-empty, of equal dimensions and not all zero (a zero
//     vector has no direction to drift from).
// An empty segment (turn_count <= 0) has nothing to close: kNone.
BoundaryReason SegmentBoundary(const SegmentState& open, const TurnSignal& turn,
                               const SegmentPolicy& policy);

// Adds one turn vector to a running mean: `centroid` averages `turns_before`
// vectors and afterwards averages those and `v`. When `centroid` is empty,
// turns_before <= 0 or the dimensions differ (the embedder changed), the
// centroid restarts as a copy of `v`. An empty `v` leaves it unchanged.
void UpdateCentroid(std::vector<float>& centroid, int64_t turns_before, std::span<const float> v);

}  // namespace mnemo::archivist

#include "archivist/topics.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "archivist/events.h"
#include "embed/embedder.h"

namespace mnemo::archivist {
namespace {

constexpr std::string_view kEnglishMarkers[] = {
    "now let's",
    "switching to",
    "different topic",
    "moving on to",
    "let's move on",
    "can you help me with",
    "new question",
    "unrelated but",
    "changing subject",
    "on another note",
    "anyway,",
    "by the way,",
    "btw,",
};

constexpr std::string_view kChineseMarkers[] = {
    "换个话题", "说点别的", "另外一个问题", "新问题", "顺便问一下", "言归正传", "接下来我们",
};

// Cosine of two vectors of equal, non-zero dimension; NaN when either has no
// direction (all zeros), which compares false with every threshold.
double Cosine(std::span<const float> a, std::span<const float> b) {
  const double norms = std::sqrt(embed::Dot(a, a)) * std::sqrt(embed::Dot(b, b));
  if (norms == 0) return std::numeric_limits<double>::quiet_NaN();
  return embed::Dot(a, b) / norms;
}

bool GapExceeded(int64_t last_ms, int64_t now_ms, int64_t max_gap_secs) {
  if (now_ms <= last_ms) return false;
  // Unsigned arithmetic: now - last cannot overflow once now > last.
  const uint64_t gap_ms = static_cast<uint64_t>(now_ms) - static_cast<uint64_t>(last_ms);
  constexpr int64_t kMaxSecs = std::numeric_limits<int64_t>::max() / 1000;
  if (max_gap_secs > kMaxSecs) return false;
  return gap_ms > static_cast<uint64_t>(max_gap_secs) * 1000U;
}

}  // namespace

bool HasTopicMarker(std::string_view user_message) {
  for (std::string_view marker : kChineseMarkers) {
    if (user_message.find(marker) != std::string_view::npos) return true;
  }
  const std::string folded = FoldForMatch(user_message);
  for (std::string_view marker : kEnglishMarkers) {
    if (ContainsPhrase(folded, marker)) return true;
  }
  return false;
}

BoundaryReason SegmentBoundary(const SegmentState& open, const TurnSignal& turn,
                               const SegmentPolicy& policy) {
  if (open.turn_count <= 0) return BoundaryReason::kNone;
  if (policy.max_turns > 0 && open.turn_count >= policy.max_turns) {
    return BoundaryReason::kTurnCount;
  }
  if (policy.max_time_gap_secs > 0 &&
      GapExceeded(open.last_turn_at_ms, turn.timestamp_ms, policy.max_time_gap_secs)) {
    return BoundaryReason::kTimeGap;
  }
  if (HasTopicMarker(turn.user_message)) return BoundaryReason::kTopicMarker;
  // Fewer than 3 turns make a centroid that is mostly its first turn; a
  // second turn that rephrases the first would read as drift.
  constexpr int64_t kMinTurnsForDrift = 3;
  if (policy.min_cosine > 0 && open.turn_count >= kMinTurnsForDrift && !turn.vector.empty() &&
      turn.vector.size() == open.centroid.size() &&
      Cosine(turn.vector, open.centroid) < policy.min_cosine) {
    return BoundaryReason::kDrift;
  }
  return BoundaryReason::kNone;
}

void UpdateCentroid(std::vector<float>& centroid, int64_t turns_before, std::span<const float> v) {
  if (v.empty()) return;
  if (centroid.empty() || turns_before <= 0 || centroid.size() != v.size()) {
    centroid.assign(v.begin(), v.end());
    return;
  }
  const double count = static_cast<double>(turns_before) + 1.0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double mean = centroid[i] + (static_cast<double>(v[i]) - centroid[i]) / count;
    centroid[i] = static_cast<float>(mean);
  }
}

}  // namespace mnemo::archivist

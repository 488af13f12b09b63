// Score fusion of the keyword and vector sides (spec 20, "Scores"). Pure
// functions: no storage, no index, so the arithmetic is tested on its own.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mnemo/config.h"
#include "mnemo/types.h"

namespace mnemo {

enum class FusionMode { kWeighted, kRrf };

struct FusionOptions {
  FusionMode mode = FusionMode::kWeighted;
  double vector_weight = 0.6;
  double keyword_weight = 0.4;
  // False when no vector side took part (no embedder, or it failed): every
  // score is then the keyword score.
  bool vector_side = true;
};

// The options [search] asks for; `vector_side` as above.
FusionOptions FusionOptionsOf(const Config::Search& search, bool vector_side);

// Both signals of one candidate, whichever side found it.
struct FusionInput {
  double keyword = 0;            // normalised keyword score in [0,1]
  std::optional<double> vector;  // cosine clamped to [0,1]; absent: no vector
  TimeMs updated_at = 0;         // tie-breaks
  std::string_view key;
};

// RRF's constant (Cormack et al.), spec 20.
inline constexpr double kRrfK = 60;

// The final score of each input, in [0,1], same order as `inputs`.
// Weighted: (vw·v + kw·k)/(vw + kw); an input without a vector scores its
// keyword score. RRF: Σ over the two sides of 1/(kRrfK + rank) with ranks
// over all inputs by that signal (an input with a zero or absent signal gets
// nothing from that side), divided by the maximum 2/(kRrfK + 1).
std::vector<double> FuseScores(std::span<const FusionInput> inputs, const FusionOptions& options);

// The recency signal's half-life: an entry written 30 days ago has recency
// 0.5, 60 days ago 0.25, now (or in the future) 1.
inline constexpr TimeMs kRecencyHalfLifeMs = TimeMs{30} * 24 * 3600 * 1000;

// (1 - weight)·score + weight·2^(-max(0, now - updated_at) / kRecencyHalfLifeMs):
// SearchRequest::recency_weight, in [0,1] for a score and weight in [0,1].
double BlendRecency(double score, TimeMs updated_at, TimeMs now, double weight);

// Indices of `inputs` ordered by score descending, then updated_at
// descending, then key ascending: equal inputs give equal output order.
std::vector<size_t> RankOrder(std::span<const FusionInput> inputs, std::span<const double> scores);

}  // namespace mnemo

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

// search.fusion: "noisy_or" (default), "weighted", "rrf" (config_schema.cc).
enum class FusionMode { kNoisyOr, kWeighted, kRrf };

struct FusionOptions {
  FusionMode mode = FusionMode::kNoisyOr;
  double vector_weight = 0.6;
  double keyword_weight = 0.4;
  // False when no vector side took part (no embedder, or it failed): every
  // score is then the keyword score.
  bool vector_side = true;
  // The vector side's background similarity (VectorFloor): noisy-or fusion
  // counts only the cosine above it. 0 = raw cosine.
  double vector_floor = 0;
};

// The options [search] asks for; `vector_side` as above.
FusionOptions FusionOptionsOf(const Config::Search& search, bool vector_side);

// Both signals of one candidate, whichever side found it.
struct FusionInput {
  double keyword = 0;            // normalised keyword score in [0,1], exact terms
  std::optional<double> vector;  // cosine clamped to [0,1]; absent: no vector
  TimeMs updated_at = 0;         // tie-breaks
  std::string_view key;
  // The share of the query held in other words (soft term matching,
  // embed/soft_match.h), in [0,1]; counted above SoftFloor.
  double soft = 0;
};

// The soft score of the typical candidate: the median of `inputs`' soft
// scores (0 for fewer than two inputs).
//
// Word vectors place many unrelated words above the soft-matching
// threshold of some query word (rare words especially: their vectors are
// the noisiest), so in a store whose texts hold many words most candidates
// earn some soft score by chance. As the vector side is counted above its
// crowd (VectorFloor), a candidate earns soft score only by holding the
// query's meaning better than the median candidate does: a question asked
// in other words still lifts the fact that says it, while chance matches
// spread over every candidate lift none of them.
double SoftFloor(std::span<const FusionInput> inputs);

// The keyword evidence of `in`: min(1, keyword + s') with
// s' = max(0, (soft - soft_floor) / (1 - soft_floor)).
double KeywordEvidence(const FusionInput& in, double soft_floor);

// The background similarity of a query's vector side: the cosine of its
// last neighbour when the side returned all `asked` neighbours, else 0.
//
// Embedding models place texts that merely share a topic well above cosine
// 0 (0.6-0.8 is common for real models; on the shared dataset the 40th
// neighbour of a query sits near 0.7 while its relevant entries found by
// keyword sit near 0), and where that crowd sits differs by model and by
// query. Raw cosine then lets any entry of the crowd outscore a keyword
// match whose vector is far: at 0.6/0.4 weights a crowd entry at 0.72 is
// worth 0.43, a keyword match of 0.78 with cosine 0 only 0.31. Measured
// against the N-th neighbour, an entry earns vector score only by being
// closer than the crowd. With fewer than `asked` neighbours there is no
// crowd to measure and cosine counts raw.
double VectorFloor(std::span<const double> side_cosines, size_t asked);

// RRF's constant (Cormack et al.), spec 20.
inline constexpr double kRrfK = 60;

// The final score of each input, in [0,1], same order as `inputs`; k is the
// input's KeywordEvidence over the inputs' SoftFloor.
// Noisy-or: 1 - (1 - k)(1 - v') with v' = max(0, (v - floor)/(1 - floor))
// for options.vector_floor: each signal is evidence of relevance on its own,
// both together are stronger evidence, and a weak or missing signal never
// pulls a strong one down (the weights do not take part).
// Weighted: (vw·v + kw·k)/(vw + kw) on raw cosine.
// An input without a vector scores its keyword score in both. RRF: Σ over the two sides of 1/(kRrfK
// + rank) with ranks over all inputs by that signal (an input with a zero or absent signal gets
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

// The order of a hybrid search: by fused score descending; among equal
// scores, the exact keyword score descending, then the cosine descending,
// then updated_at descending and key ascending.
//
// The keyword score is capped at 1 ("every query term in an ordinary
// text", spec 20), and a keyword score of 1 makes the noisy-or 1 whatever
// the vector says, so on a large store many candidates tie at 1: the
// texts that hold every query term and, lifted by similar words, texts
// that miss one. The cap hides evidence the candidates still carry: a
// text that holds the query's own words ranks above one that reached the
// cap with similar words, and among texts equal on both the one nearer
// the query's meaning ranks first.
std::vector<size_t> HybridOrder(std::span<const FusionInput> inputs,
                                std::span<const double> scores);

}  // namespace mnemo

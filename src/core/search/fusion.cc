#include "core/search/fusion.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace mnemo {
namespace {

// The indexes 0..n-1 in the order `before` gives, equal ones kept in index
// order.
template <typename Before>
std::vector<size_t> OrderBy(size_t n, Before before) {
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), before);
  return order;
}

// The last tie-break of every order: the newer first, then by key (spec 20).
bool NewerFirst(const FusionInput& x, const FusionInput& y) {
  if (x.updated_at != y.updated_at) return x.updated_at > y.updated_at;
  return x.key < y.key;
}

// Ranks (1-based) of the inputs by one signal, `by` in input order; 0 for
// a zero signal.
std::vector<size_t> Ranks(std::span<const FusionInput> inputs, const std::vector<double>& by) {
  std::vector<size_t> ranked = RankOrder(inputs, by);
  std::vector<size_t> rank(inputs.size(), 0);
  size_t r = 0;
  for (size_t i : ranked) {
    if (by[i] > 0) rank[i] = ++r;
  }
  return rank;
}

}  // namespace

double SoftFloor(std::span<const FusionInput> inputs) {
  if (inputs.size() < 2) return 0;
  std::vector<double> soft;
  soft.reserve(inputs.size());
  for (const FusionInput& in : inputs) soft.push_back(std::clamp(in.soft, 0.0, 1.0));
  const auto mid = soft.begin() + static_cast<std::ptrdiff_t>(soft.size() / 2);
  std::nth_element(soft.begin(), mid, soft.end());
  return *mid;
}

double KeywordEvidence(const FusionInput& in, double soft_floor) {
  const double keyword = std::clamp(in.keyword, 0.0, 1.0);
  const double soft = std::clamp(in.soft, 0.0, 1.0);
  if (soft <= soft_floor || soft_floor >= 1) return keyword;
  return std::min(1.0, keyword + (soft - soft_floor) / (1 - soft_floor));
}

std::vector<double> FuseScores(std::span<const FusionInput> inputs, const FusionOptions& options) {
  std::vector<double> out(inputs.size(), 0);
  std::vector<double> keyword(inputs.size(), 0);
  const double soft_floor = SoftFloor(inputs);
  for (size_t i = 0; i < inputs.size(); ++i) keyword[i] = KeywordEvidence(inputs[i], soft_floor);
  if (!options.vector_side) return keyword;
  if (options.mode == FusionMode::kNoisyOr) {
    const double floor = std::clamp(options.vector_floor, 0.0, 1.0);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const FusionInput& in = inputs[i];
      if (!in.vector) {
        out[i] = keyword[i];
        continue;
      }
      const double v = floor >= 1 ? 0.0 : std::max(0.0, (*in.vector - floor) / (1 - floor));
      out[i] = 1 - (1 - keyword[i]) * (1 - std::min(1.0, v));
    }
    return out;
  }
  if (options.mode == FusionMode::kWeighted) {
    const double total = options.vector_weight + options.keyword_weight;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const FusionInput& in = inputs[i];
      out[i] =
          !in.vector || total <= 0
              ? keyword[i]
              : (options.vector_weight * *in.vector + options.keyword_weight * keyword[i]) / total;
    }
    return out;
  }
  std::vector<double> cosine(inputs.size(), 0);
  for (size_t i = 0; i < inputs.size(); ++i) cosine[i] = inputs[i].vector.value_or(0.0);
  std::vector<size_t> kw = Ranks(inputs, keyword);
  std::vector<size_t> vec = Ranks(inputs, cosine);
  const double max = 2.0 / (kRrfK + 1.0);
  for (size_t i = 0; i < inputs.size(); ++i) {
    double s = 0;
    if (kw[i] > 0) s += 1.0 / (kRrfK + static_cast<double>(kw[i]));
    if (vec[i] > 0) s += 1.0 / (kRrfK + static_cast<double>(vec[i]));
    out[i] = std::min(1.0, s / max);
  }
  return out;
}

double VectorFloor(std::span<const double> side_cosines, size_t asked) {
  if (asked == 0 || side_cosines.size() < asked) return 0;
  return std::clamp(*std::min_element(side_cosines.begin(), side_cosines.end()), 0.0, 1.0);
}

std::vector<size_t> RankOrder(std::span<const FusionInput> inputs, std::span<const double> scores) {
  return OrderBy(inputs.size(), [&](size_t a, size_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    return NewerFirst(inputs[a], inputs[b]);
  });
}

std::vector<size_t> HybridOrder(std::span<const FusionInput> inputs,
                                std::span<const double> scores) {
  return OrderBy(inputs.size(), [&](size_t a, size_t b) {
    if (scores[a] != scores[b]) return scores[a] > scores[b];
    const FusionInput& x = inputs[a];
    const FusionInput& y = inputs[b];
    if (x.keyword != y.keyword) return x.keyword > y.keyword;
    const double vx = x.vector.value_or(0.0);
    const double vy = y.vector.value_or(0.0);
    if (vx != vy) return vx > vy;
    return NewerFirst(x, y);
  });
}

double BlendRecency(double score, TimeMs updated_at, TimeMs now, double weight) {
  if (weight <= 0) return score;
  const double age = static_cast<double>(std::max<TimeMs>(0, now - updated_at));
  const double recency = std::exp2(-age / static_cast<double>(kRecencyHalfLifeMs));
  return (1 - weight) * score + weight * recency;
}

FusionOptions FusionOptionsOf(const Config::Search& search, bool vector_side) {
  const FusionMode mode = search.fusion == "rrf"        ? FusionMode::kRrf
                          : search.fusion == "weighted" ? FusionMode::kWeighted
                                                        : FusionMode::kNoisyOr;
  return {.mode = mode,
          .vector_weight = search.vector_weight,
          .keyword_weight = search.keyword_weight,
          .vector_side = vector_side};
}

}  // namespace mnemo

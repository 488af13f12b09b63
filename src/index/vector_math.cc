#include "index/vector_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace mnemo::index {

bool AllFinite(const float* v, size_t n) {
  // Branch-free so it vectorises: x - x is 0 for finite x, NaN otherwise.
  float sink = 0;
  for (size_t i = 0; i < n; ++i) sink += v[i] - v[i];
  return sink == 0;
}

Status CheckVector(std::span<const float> v, size_t dims, const char* what) {
  if (v.size() != dims) {
    return InvalidArgument(std::string(what) + " has " + std::to_string(v.size()) +
                           " dimensions: this index holds " + std::to_string(dims) +
                           "-dimensional vectors");
  }
  if (!AllFinite(v.data(), v.size())) {
    return InvalidArgument(std::string(what) +
                           " has a NaN or infinite component: use finite floats");
  }
  return Status::Ok();
}

std::vector<Neighbor> TopKAccepted(std::vector<Neighbor>& candidates, size_t k,
                                   const AcceptFn& accept) {
  // Finite inputs can still overflow to inf - inf = NaN; NaN would break the
  // strict weak ordering the sorts below rely on.
  for (Neighbor& c : candidates) {
    if (std::isnan(c.score)) c.score = -std::numeric_limits<float>::infinity();
  }
  std::vector<Neighbor> out;
  if (k == 0 || candidates.empty()) return out;
  if (!accept) {
    const size_t n = std::min(k, candidates.size());
    std::partial_sort(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(n),
                      candidates.end(), NeighborBefore);
    out.assign(candidates.begin(), candidates.begin() + static_cast<ptrdiff_t>(n));
    return out;
  }
  out.reserve(k);
  std::vector<uint64_t> ids;
  std::vector<char> accepted;
  size_t window = std::max<size_t>(4 * k, 64);
  for (size_t lo = 0; lo < candidates.size() && out.size() < k; window *= 4) {
    const size_t hi = std::min(candidates.size(), lo + window);
    auto first = candidates.begin() + static_cast<ptrdiff_t>(lo);
    auto last = candidates.begin() + static_cast<ptrdiff_t>(hi);
    if (hi < candidates.size()) std::nth_element(first, last, candidates.end(), NeighborBefore);
    std::sort(first, last, NeighborBefore);
    ids.clear();
    for (auto it = first; it != last; ++it) ids.push_back(it->id);
    accepted.assign(ids.size(), 0);
    accept(ids, &accepted);
    for (size_t i = 0; i < ids.size() && out.size() < k; ++i) {
      if (accepted[i]) out.push_back(candidates[lo + i]);
    }
    lo = hi;
  }
  return out;
}

}  // namespace mnemo::index

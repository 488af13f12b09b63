// Deterministic test data for the index tests: unit vectors scattered around
// random cluster centres, like embeddings of texts on a few topics.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace mnemo::index::testing {

inline void Normalize(std::span<float> v) {
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  for (float& x : v) x = static_cast<float>(x / norm);
}

// n row-major unit vectors of `dims` floats around `clusters` centres. Each
// cluster spreads along a few directions of its own plus a little isotropic
// noise: like real embeddings, the data has a low intrinsic dimension
// (isotropic 64-d noise would be far harder than any text corpus).
inline std::vector<float> ClusteredVectors(size_t n, size_t dims, size_t clusters, uint64_t seed) {
  constexpr size_t kDirections = 6;
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::vector<float> basis(clusters * (kDirections + 1) * dims);
  for (float& x : basis) x = gauss(rng);
  for (size_t b = 0; b < clusters * (kDirections + 1); ++b)
    Normalize({basis.data() + b * dims, dims});
  std::vector<float> out(n * dims);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  const float noise = 0.1f / std::sqrt(static_cast<float>(dims));
  for (size_t i = 0; i < n; ++i) {
    const float* centre = basis.data() + pick(rng) * (kDirections + 1) * dims;
    float* v = out.data() + i * dims;
    for (size_t d = 0; d < dims; ++d) v[d] = centre[d] + noise * gauss(rng);
    for (size_t j = 1; j <= kDirections; ++j) {
      const float w = 0.4f * gauss(rng);
      for (size_t d = 0; d < dims; ++d) v[d] += w * centre[j * dims + d];
    }
    Normalize({v, dims});
  }
  return out;
}

inline std::span<const float> Row(const std::vector<float>& data, size_t dims, size_t i) {
  return {data.data() + i * dims, dims};
}

}  // namespace mnemo::index::testing

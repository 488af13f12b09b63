#include "index/vector_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace mnemo::index {
namespace {

// Whatever kernel the processor picked (AVX-512, AVX2 or portable), the
// int8 dot product is the exact integer sum, at every length (the vector
// loops' tails included) and at the extremes of the codes.
TEST(VectorMath, DotInt8IsTheExactSumAtEveryLength) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> code(-127, 127);
  for (size_t n : {0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 100, 384, 385, 1024}) {
    std::vector<int8_t> a(n), b(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = static_cast<int8_t>(code(rng));
      b[i] = static_cast<int8_t>(code(rng));
    }
    int64_t want = 0;
    for (size_t i = 0; i < n; ++i) want += int64_t{a[i]} * b[i];
    EXPECT_EQ(DotInt8(a.data(), b.data(), n), want) << n;
    std::vector<int8_t> high(n, 127), low(n, -127);
    EXPECT_EQ(DotInt8(high.data(), low.data(), n), -127 * 127 * static_cast<int64_t>(n)) << n;
    EXPECT_EQ(DotInt8(low.data(), low.data(), n), 127 * 127 * static_cast<int64_t>(n)) << n;
  }
}

TEST(VectorMath, QuantizeInt8KeepsEachComponentWithinHalfAStep) {
  std::mt19937 rng(6);
  std::normal_distribution<float> gauss(0.f, 1.f);
  std::vector<float> v(384);
  for (float& x : v) x = gauss(rng);
  std::vector<int8_t> q(v.size());
  const float scale = QuantizeInt8(v.data(), v.size(), q.data());
  float max_abs = 0;
  for (float x : v) max_abs = std::max(max_abs, std::fabs(x));
  EXPECT_FLOAT_EQ(scale, max_abs / 127.0f);
  for (size_t i = 0; i < v.size(); ++i) {
    EXPECT_LE(std::fabs(v[i] - scale * q[i]), 0.5f * scale * 1.0001f) << i;
  }
  std::vector<float> zero(8, 0.0f);
  std::vector<int8_t> zq(8, 1);
  EXPECT_EQ(QuantizeInt8(zero.data(), zero.size(), zq.data()), 0.0f);
  EXPECT_EQ(zq, std::vector<int8_t>(8, 0));
  // The float-by-int8 product is the dot product with the dequantised vector.
  float want = 0;
  for (size_t i = 0; i < v.size(); ++i) want += v[i] * static_cast<float>(q[i]);
  EXPECT_NEAR(DotFloatInt8(v.data(), q.data(), v.size()), want, 1e-3f * std::fabs(want) + 1e-3f);
}

}  // namespace
}  // namespace mnemo::index

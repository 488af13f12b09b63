#include "index/flat_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "index/test_vectors.h"
#include "index/vector_math.h"

namespace mnemo::index {
namespace {

using testing::ClusteredVectors;
using testing::Row;

TEST(Dot, MatchesADoublePrecisionSumForEveryLength) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (size_t n = 0; n < 70; ++n) {
    std::vector<float> a(n), b(n);
    double want = 0;
    for (size_t i = 0; i < n; ++i) {
      a[i] = u(rng), b[i] = u(rng);
      want += static_cast<double>(a[i]) * b[i];
    }
    EXPECT_NEAR(Dot(a.data(), b.data(), n), want, 1e-5) << n;
  }
}

TEST(FlatIndex, ReturnsTheExactTopK) {
  const size_t dims = 37;  // not a multiple of the kernel's 8 lanes
  const size_t n = 3000;
  std::vector<float> data = ClusteredVectors(n, dims, 30, 5);
  auto index = FlatIndex::Make(dims);
  ASSERT_TRUE(index.ok());
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE((*index)->Upsert(i, Row(data, dims, i)).ok());
  std::vector<float> queries = ClusteredVectors(25, dims, 30, 6);
  for (size_t q = 0; q < 25; ++q) {
    std::vector<std::pair<double, uint64_t>> brute;
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      for (size_t d = 0; d < dims; ++d) s += double(queries[q * dims + d]) * data[i * dims + d];
      brute.push_back({-s, i});
    }
    std::sort(brute.begin(), brute.end());
    auto r = (*index)->Search(Row(queries, dims, q), 10);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 10u);
    for (size_t j = 0; j < 10; ++j) {
      EXPECT_EQ((*r)[j].id, brute[j].second);
      EXPECT_NEAR((*r)[j].score, -brute[j].first, 1e-5);
    }
  }
}

TEST(FlatIndex, SwapRemoveKeepsTheOtherVectors) {
  const size_t dims = 8;
  std::vector<float> data = ClusteredVectors(10, dims, 3, 1);
  auto index = FlatIndex::Make(dims);
  ASSERT_TRUE(index.ok());
  for (size_t i = 0; i < 10; ++i) ASSERT_TRUE((*index)->Upsert(i, Row(data, dims, i)).ok());
  ASSERT_TRUE((*index)->Remove(3).ok());
  ASSERT_TRUE((*index)->Remove(9).ok());  // the last slot
  ASSERT_TRUE((*index)->Remove(0).ok());
  EXPECT_EQ((*index)->size(), 7u);
  for (size_t i : {1, 2, 4, 5, 6, 7, 8}) {
    auto r = (*index)->Search(Row(data, dims, i), 1);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)[0].id, i);
    EXPECT_NEAR((*r)[0].score, 1.0, 1e-5);
  }
}

TEST(FlatIndex, RejectsZeroDimensions) {
  EXPECT_EQ(FlatIndex::Make(0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace mnemo::index

#include "index/hnsw_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

#include "index/flat_index.h"
#include "index/index_factory.h"
#include "index/test_vectors.h"

namespace mnemo::index {
namespace {

using testing::ClusteredVectors;
using testing::Row;

double RecallAt(const VectorIndex& index, const VectorIndex& oracle,
                const std::vector<float>& queries, size_t dims, size_t k,
                const SearchFilter& filter = {}) {
  size_t hit = 0, total = 0;
  for (size_t q = 0; q < queries.size() / dims; ++q) {
    auto got = index.Search(Row(queries, dims, q), k, filter);
    auto want = oracle.Search(Row(queries, dims, q), k, filter);
    EXPECT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(got->size(), want->size());
    std::set<uint64_t> truth;
    for (const Neighbor& n : *want) truth.insert(n.id);
    for (const Neighbor& n : *got) hit += truth.contains(n.id);
    total += want->size();
  }
  return static_cast<double>(hit) / static_cast<double>(total);
}

struct Built {
  std::unique_ptr<HnswIndex> hnsw;
  std::unique_ptr<FlatIndex> flat;
  std::vector<float> queries;  // from the same clusters, not in the index
};

// n vectors in both kinds of index, plus `queries` held back.
Built Build(size_t n, size_t dims, size_t clusters, const HnswParams& params, uint64_t seed,
            size_t queries = 200) {
  std::vector<float> data = ClusteredVectors(n + queries, dims, clusters, seed);
  Built b;
  b.queries.assign(data.begin() + static_cast<ptrdiff_t>(n * dims), data.end());
  data.resize(n * dims);
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = i * 3 + 1;
  b.hnsw = std::move(HnswIndex::Make(dims, params).value());
  b.flat = std::move(FlatIndex::Make(dims).value());
  EXPECT_TRUE(b.hnsw->UpsertBatch(ids, data).ok());
  EXPECT_TRUE(b.flat->UpsertBatch(ids, data).ok());
  return b;
}

TEST(HnswIndex, RecallAtTenIsAtLeast95PercentOfExact) {
  const size_t dims = 64;
  Built b = Build(20000, dims, 200, {}, 11, 300);
  ASSERT_EQ(b.hnsw->size(), 20000u);
  const double recall = RecallAt(*b.hnsw, *b.flat, b.queries, dims, 10);
  std::printf("recall@10 (20k x 64, 200 clusters, ef 64): %.4f\n", recall);
  EXPECT_GE(recall, 0.95);
}

TEST(HnswIndex, FilteredRecallStaysHigh) {
  const size_t dims = 32;
  Built b = Build(8000, dims, 80, {}, 21, 100);
  SearchFilter tenth;
  tenth.accept = [](std::span<const uint64_t> ids, std::vector<char>* ok) {
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = (ids[i] / 3) % 10 == 0;
  };
  const double recall = RecallAt(*b.hnsw, *b.flat, b.queries, dims, 10, tenth);
  std::printf("filtered recall@10 (10%% pass): %.4f\n", recall);
  EXPECT_GE(recall, 0.9);
}

TEST(HnswIndex, AFilterThatPassesAlmostAllIsAskedAboutLittleMoreThanK) {
  const size_t dims = 32;
  Built b = Build(4000, dims, 40, {}, 23, 20);
  size_t asked = 0;
  SearchFilter most;  // every id but those of one residue
  most.accept = [&](std::span<const uint64_t> ids, std::vector<char>* ok) {
    asked += ids.size();
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = (ids[i] / 3) % 50 != 7;
  };
  const size_t k = 40;
  for (size_t q = 0; q < 20; ++q) {
    asked = 0;
    auto got = b.hnsw->Search(Row(b.queries, dims, q), k, most);
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->size(), k);
    // The same k as offering the whole over-fetch (4k) at once: the best k
    // that pass, in order.
    auto unfiltered = b.hnsw->Search(Row(b.queries, dims, q), 4 * k);
    ASSERT_TRUE(unfiltered.ok());
    std::vector<Neighbor> want;
    for (const Neighbor& n : *unfiltered) {
      if ((n.id / 3) % 50 != 7 && want.size() < k) want.push_back(n);
    }
    EXPECT_EQ(*got, want);
    EXPECT_LE(asked, k + 4) << "query " << q;
  }
}

// A caller's scope passes about a quarter of the ids, and on a server each
// call of `accept` is a round trip: after the first k, the index offers as
// many as the pass rate says it takes, not what is still wanted each time.
TEST(HnswIndex, AFilterThatPassesAQuarterIsCalledAFewTimesWithTheSameAnswer) {
  const size_t dims = 32;
  Built b = Build(8000, dims, 80, {}, 27, 50);
  auto passes = [](uint64_t id) { return (id / 3) % 4 == 1; };
  size_t calls = 0;
  size_t asked = 0;
  SearchFilter quarter;
  quarter.accept = [&](std::span<const uint64_t> ids, std::vector<char>* ok) {
    ++calls;
    asked += ids.size();
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = passes(ids[i]);
  };
  const size_t k = 40;
  // The answer whatever the batches: the first k that pass of the graph's
  // over-fetch, round by round (4k, then 4x more: ef_search is below 4k).
  auto first_passing = [&](size_t q) {
    std::vector<Neighbor> want;
    std::set<uint64_t> seen;
    for (size_t wide = 4 * k; want.size() < k && wide < 4000; wide *= 4) {
      auto unfiltered = b.hnsw->Search(Row(b.queries, dims, q), wide);
      EXPECT_TRUE(unfiltered.ok());
      for (const Neighbor& n : *unfiltered) {
        if (seen.insert(n.id).second && passes(n.id) && want.size() < k) want.push_back(n);
      }
    }
    std::sort(want.begin(), want.end(), NeighborBefore);
    return want;
  };
  size_t most_calls = 0;
  for (size_t q = 0; q < 50; ++q) {
    calls = 0;
    asked = 0;
    auto got = b.hnsw->Search(Row(b.queries, dims, q), k, quarter);
    ASSERT_TRUE(got.ok());
    ASSERT_EQ(got->size(), k);
    EXPECT_EQ(*got, first_passing(q)) << "query " << q;
    most_calls = std::max(most_calls, calls);
    EXPECT_LE(calls, 4u) << "query " << q;
    // Never more than the whole over-fetch of the rounds it took.
    EXPECT_LE(asked, 4 * 4 * 4 * k) << "query " << q;
  }
  std::printf("a quarter passes: at most %zu calls of accept a search\n", most_calls);
  const double recall = RecallAt(*b.hnsw, *b.flat, b.queries, dims, 10, quarter);
  EXPECT_GE(recall, 0.9);
}

TEST(HnswIndex, GrowsPastItsCapacityOneUpsertAtATime) {
  const size_t dims = 16;
  auto index = HnswIndex::Make(dims, {}, /*capacity=*/1);
  ASSERT_TRUE(index.ok());
  std::vector<float> data = ClusteredVectors(3000, dims, 10, 4);
  for (size_t i = 0; i < 3000; ++i) ASSERT_TRUE((*index)->Upsert(i, Row(data, dims, i)).ok());
  EXPECT_EQ((*index)->size(), 3000u);
  auto r = (*index)->Search(Row(data, dims, 2999), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].id, 2999u);
}

TEST(HnswIndex, CompactDropsTombstones) {
  const size_t dims = 16;
  Built b = Build(4000, dims, 20, {}, 31);
  IndexOptions options;
  options.kind = KindChoice::kHnsw;
  EXPECT_EQ(NeedsMaintenance(*b.hnsw, options), Maintenance::kNone);
  std::set<uint64_t> removed;
  for (uint64_t i = 0; i < 4000; i += 3) {
    ASSERT_TRUE(b.hnsw->Remove(i * 3 + 1).ok());
    ASSERT_TRUE(b.flat->Remove(i * 3 + 1).ok());
    removed.insert(i * 3 + 1);
  }
  EXPECT_EQ(b.hnsw->deleted_count(), removed.size());
  EXPECT_EQ(NeedsMaintenance(*b.hnsw, options), Maintenance::kCompact);
  ASSERT_TRUE(b.hnsw->Compact().ok());
  EXPECT_EQ(b.hnsw->deleted_count(), 0u);
  EXPECT_EQ(b.hnsw->size(), 4000 - removed.size());
  EXPECT_EQ(NeedsMaintenance(*b.hnsw, options), Maintenance::kNone);
  EXPECT_GE(RecallAt(*b.hnsw, *b.flat, b.queries, dims, 10), 0.95);
}

// kInt8 stores a quarter of the bytes; the walk on quantised distances must
// still find the exact neighbours, and scores stay within quantisation
// error of the float dot product.
TEST(HnswIndex, Int8EncodingKeepsRecallAndNearExactScores) {
  const size_t dims = 128;
  Built b = Build(10000, dims, 100, {.encoding = VectorEncoding::kInt8}, 41, 200);
  ASSERT_EQ(b.hnsw->params().encoding, VectorEncoding::kInt8);
  const double recall = RecallAt(*b.hnsw, *b.flat, b.queries, dims, 10);
  std::printf("int8 recall@10 (10k x 128, 100 clusters, ef 64): %.4f\n", recall);
  EXPECT_GE(recall, 0.95);
  float worst = 0;
  for (size_t q = 0; q < 50; ++q) {
    auto got = b.hnsw->Search(Row(b.queries, dims, q), 10);
    ASSERT_TRUE(got.ok());
    for (const Neighbor& n : *got) {
      SearchFilter only;
      only.subset = std::vector<uint64_t>{n.id};
      auto exact = b.flat->SearchExact(Row(b.queries, dims, q), 1, only);
      ASSERT_TRUE(exact.ok() && exact->size() == 1);
      worst = std::max(worst, std::abs(n.score - (*exact)[0].score));
    }
  }
  EXPECT_LT(worst, 0.01f);
  EXPECT_GT(worst, 0.0f);  // it is the quantised copy that answered
}

// ForEach hands out the dequantised vectors, so RebuildAs and Compact work
// from an int8 index too (re-quantising them gives the same codes).
TEST(HnswIndex, Int8ForEachAndCompactKeepTheVectors) {
  const size_t dims = 32;
  Built b = Build(3000, dims, 20, {.encoding = VectorEncoding::kInt8}, 43, 50);
  std::map<uint64_t, std::vector<float>> before;
  b.hnsw->ForEach(
      [&](uint64_t id, std::span<const float> v) { before[id].assign(v.begin(), v.end()); });
  ASSERT_EQ(before.size(), 3000u);
  size_t compared = 0;
  b.flat->ForEach([&](uint64_t id, std::span<const float> v) {
    const std::vector<float>& q = before.at(id);
    for (size_t d = 0; d < dims; ++d) EXPECT_NEAR(q[d], v[d], 0.01f);
    ++compared;
  });
  EXPECT_EQ(compared, 3000u);
  for (uint64_t i = 0; i < 3000; i += 2) ASSERT_TRUE(b.hnsw->Remove(i * 3 + 1).ok());
  ASSERT_TRUE(b.hnsw->Compact().ok());
  EXPECT_EQ(b.hnsw->size(), 1500u);
  b.hnsw->ForEach([&](uint64_t id, std::span<const float> v) {
    EXPECT_EQ(std::vector<float>(v.begin(), v.end()), before.at(id));
  });
}

TEST(HnswIndex, RejectsBadParameters) {
  EXPECT_FALSE(HnswIndex::Make(0, {}).ok());
  EXPECT_FALSE(HnswIndex::Make(8, {.m = 1}).ok());
  EXPECT_FALSE(HnswIndex::Make(8, {.m = 4096}).ok());
  EXPECT_FALSE(HnswIndex::Make(8, {.ef_search = 0}).ok());
}

}  // namespace
}  // namespace mnemo::index

// The VectorIndex contract, run against every kind (STYLE.md: one suite for
// every implementation of a seam).
#include "index/vector_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "index/index_factory.h"
#include "index/test_vectors.h"

namespace mnemo::index {
namespace {

using testing::ClusteredVectors;
using testing::Row;

constexpr size_t kDims = 32;

class VectorIndexTest : public ::testing::TestWithParam<IndexKind> {
 protected:
  std::unique_ptr<VectorIndex> Make() {
    IndexOptions options;
    options.hnsw.m = 12;
    options.hnsw.ef_construction = 80;
    // This suite checks the exact-score contract; the int8 encoding's
    // looser one is hnsw_index_test's.
    options.hnsw.encoding = VectorEncoding::kFloat32;
    auto index = MakeIndex(GetParam(), kDims, options);
    EXPECT_TRUE(index.ok()) << index.status().ToString();
    return std::move(index).value();
  }
  // Loads n clustered vectors under ids 1000 + i.
  std::vector<float> Fill(VectorIndex& index, size_t n, uint64_t seed = 1) {
    std::vector<float> data = ClusteredVectors(n, kDims, 20, seed);
    std::vector<uint64_t> ids(n);
    for (size_t i = 0; i < n; ++i) ids[i] = 1000 + i;
    EXPECT_TRUE(index.UpsertBatch(ids, data).ok());
    return data;
  }
};

std::vector<float> Axis(size_t d, float scale = 1) {
  std::vector<float> v(kDims, 0);
  v[d] = scale;
  return v;
}

TEST_P(VectorIndexTest, EmptyIndexFindsNothing) {
  auto index = Make();
  auto r = index->Search(Axis(0), 10);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->empty());
  EXPECT_EQ(index->size(), 0u);
  EXPECT_EQ(index->dimensions(), kDims);
  EXPECT_EQ(index->kind(), GetParam());
}

TEST_P(VectorIndexTest, RejectsWrongDimensionsAndNonFiniteValues) {
  auto index = Make();
  std::vector<float> short_v(kDims - 1, 0.1f);
  EXPECT_EQ(index->Upsert(1, short_v).code(), StatusCode::kInvalidArgument);
  std::vector<float> nan_v = Axis(0);
  nan_v[3] = std::nanf("");
  EXPECT_EQ(index->Upsert(1, nan_v).code(), StatusCode::kInvalidArgument);
  std::vector<float> inf_v = Axis(0);
  inf_v[5] = INFINITY;
  EXPECT_EQ(index->Upsert(1, inf_v).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->size(), 0u);
  EXPECT_EQ(index->Search(short_v, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Search(nan_v, 3).status().code(), StatusCode::kInvalidArgument);
  // A bad batch changes nothing.
  std::vector<uint64_t> ids = {1, 2};
  std::vector<float> batch = Axis(0);
  batch.insert(batch.end(), nan_v.begin(), nan_v.end());
  EXPECT_EQ(index->UpsertBatch(ids, batch).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->UpsertBatch(ids, Axis(0)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->size(), 0u);
}

TEST_P(VectorIndexTest, UpsertReplacesTheVector) {
  auto index = Make();
  ASSERT_TRUE(index->Upsert(1, Axis(0)).ok());
  ASSERT_TRUE(index->Upsert(2, Axis(1)).ok());
  auto r = index->Search(Axis(1), 1);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].id, 2u);
  ASSERT_TRUE(index->Upsert(1, Axis(1)).ok());
  ASSERT_TRUE(index->Upsert(2, Axis(2)).ok());
  EXPECT_EQ(index->size(), 2u);
  r = index->Search(Axis(1), 2);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0], (Neighbor{1, 1.0f}));
  EXPECT_EQ((*r)[1], (Neighbor{2, 0.0f}));
}

TEST_P(VectorIndexTest, RemovedIdsAreNeverReturnedAgain) {
  auto index = Make();
  const size_t n = 2000;
  std::vector<float> data = Fill(*index, n);
  std::set<uint64_t> removed;
  for (size_t i = 0; i < n; i += 3) {
    ASSERT_TRUE(index->Remove(1000 + i).ok());
    removed.insert(1000 + i);
  }
  ASSERT_TRUE(index->Remove(1000 + 0).ok());  // twice
  ASSERT_TRUE(index->Remove(424242).ok());    // never there
  EXPECT_EQ(index->size(), n - removed.size());
  EXPECT_FALSE(index->Contains(1000));
  EXPECT_TRUE(index->Contains(1001));
  for (size_t i = 0; i < n; i += 7) {
    auto r = index->Search(Row(data, kDims, i), 50);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->size(), 50u);
    for (const Neighbor& nb : *r) ASSERT_FALSE(removed.contains(nb.id)) << nb.id;
  }
  // Upserting a removed id brings it back.
  ASSERT_TRUE(index->Upsert(1000, Row(data, kDims, 0)).ok());
  auto r = index->Search(Row(data, kDims, 0), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].id, 1000u);
  EXPECT_EQ(index->size(), n - removed.size() + 1);
}

TEST_P(VectorIndexTest, TiesAreOrderedByIdAscending) {
  auto index = Make();
  Fill(*index, 100);
  std::vector<float> same = Axis(4, 1);
  for (uint64_t id : {50, 3, 17, 9}) ASSERT_TRUE(index->Upsert(id, same).ok());
  auto first = index->Search(same, 3);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 3u);
  for (const Neighbor& n : *first) EXPECT_EQ(n.score, 1.0f);
  EXPECT_TRUE(std::is_sorted(first->begin(), first->end(),
                             [](const Neighbor& a, const Neighbor& b) { return a.id < b.id; }));
  // The exact paths see every copy (hnswlib's link heuristic may leave an
  // exact duplicate unlinked, so the graph may pick other copies).
  auto exact = index->SearchExact(same, 3);
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(*exact, (std::vector<Neighbor>{{3, 1.0f}, {9, 1.0f}, {17, 1.0f}}));
  for (int round = 0; round < 3; ++round) EXPECT_EQ(*index->Search(same, 3), *first);
}

TEST_P(VectorIndexTest, ResultsAreSortedByScore) {
  auto index = Make();
  std::vector<float> data = Fill(*index, 1500);
  auto r = index->Search(Row(data, kDims, 5), 40);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), 40u);
  EXPECT_TRUE(std::is_sorted(r->begin(), r->end(), NeighborBefore));
  EXPECT_EQ((*r)[0].id, 1005u);
}

TEST_P(VectorIndexTest, FilterRejectingNinetyPercentStillReturnsK) {
  auto index = Make();
  const size_t n = 5000;
  std::vector<float> data = Fill(*index, n);
  std::mutex mu;
  std::set<uint64_t> offered;
  bool offered_twice = false;
  SearchFilter filter;
  filter.accept = [&](std::span<const uint64_t> ids, std::vector<char>* ok) {
    std::lock_guard lock(mu);
    ASSERT_EQ(ok->size(), ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      offered_twice |= !offered.insert(ids[i]).second;
      (*ok)[i] = ids[i] % 10 == 0;
    }
  };
  for (size_t q = 0; q < 50; ++q) {
    offered.clear();
    auto r = index->Search(Row(data, kDims, q * 97 % n), 25, filter);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 25u);
    for (const Neighbor& nb : *r) EXPECT_EQ(nb.id % 10, 0u);
    EXPECT_TRUE(std::is_sorted(r->begin(), r->end(), NeighborBefore));
    EXPECT_FALSE(offered_twice);
  }
}

TEST_P(VectorIndexTest, FilterShortOnlyWhenFewerIdsPass) {
  auto index = Make();
  std::vector<float> data = Fill(*index, 3000);
  const std::set<uint64_t> allowed = {1001, 1500, 2999, 3999, 1234, 2222, 1777};
  SearchFilter filter;
  filter.accept = [&](std::span<const uint64_t> ids, std::vector<char>* ok) {
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = allowed.contains(ids[i]);
  };
  auto r = index->Search(Row(data, kDims, 0), 10, filter);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->size(), allowed.size());
  for (const Neighbor& nb : *r) EXPECT_TRUE(allowed.contains(nb.id));
}

TEST_P(VectorIndexTest, SubsetIsScannedExactly) {
  auto index = Make();
  const size_t n = 4000;
  std::vector<float> data = Fill(*index, n);
  std::vector<uint64_t> subset;
  for (size_t i = 0; i < n; i += 13) subset.push_back(1000 + i);
  subset.push_back(subset.front());  // duplicates count once
  subset.push_back(99999999);        // unknown ids are ignored
  ASSERT_TRUE(index->Remove(1000 + 13).ok());
  auto oracle = MakeIndex(IndexKind::kFlat, kDims, {});
  ASSERT_TRUE(oracle.ok());
  for (uint64_t id : subset) {
    if (id >= 1000 && id < 1000 + n && id != 1013) {
      ASSERT_TRUE((*oracle)->Upsert(id, Row(data, kDims, id - 1000)).ok());
    }
  }
  SearchFilter filter;
  filter.subset = subset;
  for (size_t q = 0; q < 30; ++q) {
    auto got = index->Search(Row(data, kDims, q * 31), 10, filter);
    auto want = (*oracle)->Search(Row(data, kDims, q * 31), 10);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(*got, *want);
  }
  // subset and accept together: the intersection.
  filter.accept = [](std::span<const uint64_t> ids, std::vector<char>* ok) {
    for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = ids[i] % 2 == 0;
  };
  auto got = index->Search(Row(data, kDims, 7), 10, filter);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->size(), 10u);
  for (const Neighbor& nb : *got) EXPECT_EQ(nb.id % 2, 0u);
}

TEST_P(VectorIndexTest, LargeSubsetNeverShort) {
  auto index = Make();
  const size_t n = 6000;
  std::vector<float> data = Fill(*index, n);
  std::vector<uint64_t> subset;
  for (size_t i = 0; i < n; i += 2) subset.push_back(1000 + i);
  SearchFilter filter;
  filter.subset = subset;
  for (size_t q = 1; q < 40; q += 2) {
    auto r = index->Search(Row(data, kDims, q), 30, filter);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->size(), 30u);
    for (const Neighbor& nb : *r) EXPECT_EQ(nb.id % 2, 0u);
  }
}

TEST_P(VectorIndexTest, SearchExactMatchesFlat) {
  auto index = Make();
  std::vector<float> data = Fill(*index, 1000);
  auto oracle = RebuildAs(*index, IndexKind::kFlat, {});
  ASSERT_TRUE(oracle.ok());
  for (size_t q = 0; q < 20; ++q) {
    auto got = index->SearchExact(Row(data, kDims, q * 3), 10);
    auto want = (*oracle)->Search(Row(data, kDims, q * 3), 10);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(*got, *want);
  }
}

TEST_P(VectorIndexTest, BatchKeepsTheLastVectorOfARepeatedId) {
  auto index = Make();
  std::vector<uint64_t> ids = {7, 8, 7};
  std::vector<float> vectors = Axis(0);
  for (size_t d : {1, 2}) {
    auto a = Axis(d);
    vectors.insert(vectors.end(), a.begin(), a.end());
  }
  ASSERT_TRUE(index->UpsertBatch(ids, vectors).ok());
  EXPECT_EQ(index->size(), 2u);
  auto r = index->Search(Axis(2), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0], (Neighbor{7, 1.0f}));
}

TEST_P(VectorIndexTest, ForEachVisitsLiveVectors) {
  auto index = Make();
  std::vector<float> data = Fill(*index, 300);
  ASSERT_TRUE(index->Remove(1010).ok());
  size_t seen = 0;
  index->ForEach([&](uint64_t id, std::span<const float> v) {
    ++seen;
    EXPECT_NE(id, 1010u);
    auto want = Row(data, kDims, id - 1000);
    EXPECT_TRUE(std::equal(v.begin(), v.end(), want.begin()));
  });
  EXPECT_EQ(seen, 299u);
}

TEST_P(VectorIndexTest, SearchesRunWhileAWriterUpserts) {
  auto index = Make();
  const size_t n = 3000;
  std::vector<float> data = Fill(*index, n);
  std::vector<float> extra = ClusteredVectors(2000, kDims, 20, 99);
  std::atomic<bool> done{false};
  std::atomic<size_t> searches{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      SearchFilter filter;
      filter.accept = [](std::span<const uint64_t> ids, std::vector<char>* ok) {
        for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = ids[i] % 3 != 0;
      };
      for (size_t q = t; !done; q += 3) {
        auto r = index->Search(Row(data, kDims, q % n), 10, q % 2 ? filter : SearchFilter{});
        if (!r.ok() || r->size() != 10) failed = true;
        ++searches;
      }
    });
  }
  // Every 100 writes wait (up to 2 s) for a search to finish, so searches
  // really overlap the writes however fast the writer is.
  auto overlap = [&] {
    const size_t seen = searches.load();
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (searches.load() == seen && std::chrono::steady_clock::now() < until) {
      std::this_thread::yield();
    }
  };
  for (size_t i = 0; i < extra.size() / kDims; ++i) {
    ASSERT_TRUE(index->Upsert(100000 + i, Row(extra, kDims, i)).ok());
    if (i % 4 == 0) {
      ASSERT_TRUE(index->Remove(1000 + i).ok());
    }
    if (i % 100 == 0) overlap();
  }
  done = true;
  for (auto& t : readers) t.join();
  EXPECT_FALSE(failed);
  EXPECT_GT(searches.load(), 0u);
  EXPECT_EQ(index->size(), n + 2000 - 500);
  auto r = index->Search(Row(extra, kDims, 1999), 1);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)[0].id, 100000u + 1999);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, VectorIndexTest,
                         ::testing::Values(IndexKind::kFlat, IndexKind::kHnsw),
                         [](const auto& info) { return std::string(IndexKindName(info.param)); });

}  // namespace
}  // namespace mnemo::index

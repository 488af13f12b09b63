// VectorSpace over a real SQLite store (issue 17, items 4 and 5): an index
// file is trusted only beside the store it was built from and only when it
// is not ahead of that store's change log; a rebuilt index is written at
// once.
#include "core/vector_space.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "index/index_file.h"
#include "index/vector_math.h"
#include "storage/sqlite/sqlite_backend.h"
#include "test_util.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

constexpr char kSignature[] = "test-4";
constexpr size_t kDims = 4;

// A unit vector of its own for every n.
std::vector<float> VectorOf(int n) {
  std::vector<float> v = {1.0f, static_cast<float>(n % 7), static_cast<float>(n / 7),
                          static_cast<float>(n % 3)};
  float norm = 0;
  for (float x : v) norm += x * x;
  for (float& x : v) x /= std::sqrt(norm);
  return v;
}

class VectorSpaceFileTest : public ::testing::Test {
 protected:
  std::unique_ptr<storage::internal::SqliteBackend> OpenStore(const std::string& db) {
    auto b = storage::internal::SqliteBackend::Open({.path = db});
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    return std::move(*b);
  }
  // Entries "k<n>" for n in [from, to) with VectorOf(n); returns the labels.
  std::vector<storage::Label> Store(storage::internal::SqliteBackend& b, int from, int to) {
    std::vector<storage::LabeledVector> vectors;
    std::vector<storage::Label> labels;
    for (int n = from; n < to; ++n) {
      auto r = b.Upsert({.key = "k" + std::to_string(n), .content = "note " + std::to_string(n)});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      labels.push_back(r->label);
      vectors.push_back({r->label, VectorOf(n)});
    }
    EXPECT_TRUE(b.PutVectors(kSignature, vectors).ok());
    return labels;
  }
  std::unique_ptr<VectorSpace> Open(storage::internal::SqliteBackend& b, const std::string& dir) {
    auto s = VectorSpace::Open(b, kSignature, kDims, {}, dir, StderrLogger());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::move(*s);
  }
  // Every label `space` returns for the vector of every n in [0, 100) is a
  // label the store has a vector for, and its score is the store's.
  void ExpectOnlyStoredLabels(VectorSpace& space, storage::internal::SqliteBackend& b) {
    std::set<storage::Label> stored;
    ASSERT_TRUE(b.ForEachVector(kSignature, [&](const storage::LabeledVector& v) {
                   stored.insert(v.label);
                   return Status::Ok();
                 }).ok());
    EXPECT_EQ(space.size(), stored.size());
    for (int n = 0; n < 100; n += 3) {
      auto hits = space.Search(VectorOf(n), 5, {});
      ASSERT_TRUE(hits.ok()) << hits.status().ToString();
      for (const index::Neighbor& h : *hits) {
        EXPECT_TRUE(stored.contains(static_cast<storage::Label>(h.id)))
            << "label " << h.id << " is not in the database";
        const storage::Label label = static_cast<storage::Label>(h.id);
        auto v = b.VectorsFor(kSignature, std::span(&label, 1));
        ASSERT_TRUE(v.ok());
        if (v->empty()) continue;
        float dot = 0;
        const std::vector<float> q = VectorOf(n);
        for (size_t i = 0; i < kDims; ++i) dot += q[i] * (*v)[0].vector[i];
        EXPECT_NEAR(h.score, dot, 1e-4) << "label " << h.id << " scored from another vector";
      }
    }
  }

  TempDir dir_;
};

// Another workspace's index file (same signature, same dimensions, labels
// from 1 like ours) copied in was loaded, and its vectors answered.
TEST_F(VectorSpaceFileTest, AFileOfAnotherStoreIsNotTrusted) {
  const std::string index_dir = dir_.Sub("index");
  {
    auto other = OpenStore(dir_.Sub("other.db"));
    Store(*other, 0, 60);
    auto space = Open(*other, index_dir);  // rebuilt, and written at once
    ASSERT_TRUE(space->Save().ok());
  }
  ASSERT_TRUE(fs::exists(index::IndexFilePath(index_dir, kSignature, index::IndexKind::kFlat)));
  auto ours = OpenStore(dir_.Sub("ours.db"));
  Store(*ours, 100, 110);
  auto space = Open(*ours, index_dir);
  ExpectOnlyStoredLabels(*space, *ours);
  // And the file is now ours.
  auto header = index::ReadIndexFileHeader(
      index::IndexFilePath(index_dir, kSignature, index::IndexKind::kFlat));
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->store_id, ours->store_id());
  EXPECT_EQ(header->count, 10u);
}

TEST_F(VectorSpaceFileTest, EveryStoreHasAnIdentityOfItsOwnThatLasts) {
  std::string first;
  {
    auto a = OpenStore(dir_.Sub("a.db"));
    first = std::string(a->store_id());
  }
  EXPECT_EQ(first.size(), 32u);
  EXPECT_EQ(OpenStore(dir_.Sub("a.db"))->store_id(), first);
  EXPECT_NE(OpenStore(dir_.Sub("b.db"))->store_id(), first);
}

// The copy of mnemo.db before some writes, put back beside the index file
// written after them: the file's watermark is ahead of the database.
TEST_F(VectorSpaceFileTest, AFileAheadOfTheDatabaseIsRebuilt) {
  const std::string db = dir_.Sub("mnemo.db");
  const std::string index_dir = dir_.Sub("index");
  std::vector<storage::Label> labels;
  {
    auto b = OpenStore(db);
    labels = Store(*b, 0, 30);
  }
  fs::copy_file(db, dir_.Sub("old.db"));
  {
    auto b = OpenStore(db);
    Store(*b, 30, 45);
    for (int i = 0; i < 10; ++i) {
      auto e = b->FindExact("local", "global", "k" + std::to_string(i));
      ASSERT_TRUE(e.ok() && e->has_value());
      ASSERT_TRUE(b->Delete((*e)->id).ok());
    }
    auto space = Open(*b, index_dir);
    EXPECT_EQ(space->size(), 35u);
  }
  fs::copy_file(dir_.Sub("old.db"), db, fs::copy_options::overwrite_existing);
  auto b = OpenStore(db);
  auto space = Open(*b, index_dir);
  EXPECT_EQ(space->size(), 30u);
  ExpectOnlyStoredLabels(*space, *b);
}

// The older copy was written to after it was put back, past the file's
// watermark, before any index was opened on it: the change numbers are
// then the copy's own, and only the count tells.
TEST_F(VectorSpaceFileTest, AnOlderDatabaseThatMovedPastTheFileIsRebuilt) {
  const std::string db = dir_.Sub("mnemo.db");
  const std::string index_dir = dir_.Sub("index");
  {
    auto b = OpenStore(db);
    Store(*b, 0, 30);
  }
  fs::copy_file(db, dir_.Sub("old.db"));
  {
    auto b = OpenStore(db);
    Store(*b, 30, 40);
    for (int i = 0; i < 5; ++i) {
      auto e = b->FindExact("local", "global", "k" + std::to_string(i));
      ASSERT_TRUE(e.ok() && e->has_value());
      ASSERT_TRUE(b->Delete((*e)->id).ok());
    }
    Open(*b, index_dir);  // the file: 35 vectors at watermark 45
  }
  fs::copy_file(dir_.Sub("old.db"), db, fs::copy_options::overwrite_existing);
  auto b = OpenStore(db);
  Store(*b, 50, 70);  // watermark 50: past the file's
  auto space = Open(*b, index_dir);
  EXPECT_EQ(space->size(), 50u);
  ExpectOnlyStoredLabels(*space, *b);
}

// Issue 17 item 5: a crash before the first clean exit found no file, and
// rebuilt again.
TEST_F(VectorSpaceFileTest, ARebuiltIndexIsWrittenAtOnce) {
  auto b = OpenStore(dir_.Sub("mnemo.db"));
  Store(*b, 0, 25);
  const std::string index_dir = dir_.Sub("index");
  auto space = Open(*b, index_dir);
  auto header = index::ReadIndexFileHeader(
      index::IndexFilePath(index_dir, kSignature, index::IndexKind::kFlat));
  ASSERT_TRUE(header.ok()) << header.status().ToString();
  auto watermark = b->VectorWatermark(kSignature);
  ASSERT_TRUE(watermark.ok());
  EXPECT_EQ(header->watermark, static_cast<uint64_t>(*watermark));
  EXPECT_EQ(header->count, 25u);
  EXPECT_EQ(header->store_id, b->store_id());
  // A few changes later the file is kept (the change log replays them) ...
  Store(*b, 25, 30);
  ASSERT_TRUE(space->Sync().ok());
  ASSERT_TRUE(space->Save().ok());
  auto kept = index::ReadIndexFileHeader(
      index::IndexFilePath(index_dir, kSignature, index::IndexKind::kFlat));
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->watermark, header->watermark);
  // ... and a reopen loads it and catches up.
  space.reset();
  auto again = Open(*b, index_dir);
  EXPECT_EQ(again->size(), 30u);
  ExpectOnlyStoredLabels(*again, *b);
}

// Past the hnsw threshold a rebuild goes straight into the graph (no flat
// index of every float vector first), and the graph's int8 scores are
// replaced by the exact ones from storage.
TEST_F(VectorSpaceFileTest, ALargeStoreIsRebuiltAsAGraphAndScoredExactly) {
  auto b = OpenStore(dir_.Sub("mnemo.db"));
  Store(*b, 0, 300);
  index::IndexOptions options;
  options.hnsw_threshold = 100;
  ASSERT_EQ(options.hnsw.encoding, index::VectorEncoding::kInt8);
  auto space = VectorSpace::Open(*b, kSignature, kDims, options, "", StderrLogger());
  ASSERT_TRUE(space.ok()) << space.status().ToString();
  EXPECT_EQ((*space)->kind(), "hnsw");
  EXPECT_EQ((*space)->size(), 300u);
  for (int n = 0; n < 300; n += 17) {
    const std::vector<float> q = VectorOf(n);
    auto hits = (*space)->Search(q, 5, {});
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    ASSERT_FALSE(hits->empty());
    std::vector<storage::Label> labels;
    for (const index::Neighbor& h : *hits) labels.push_back(static_cast<storage::Label>(h.id));
    auto stored = b->VectorsFor(kSignature, labels);
    ASSERT_TRUE(stored.ok());
    ASSERT_EQ(stored->size(), hits->size());
    for (size_t i = 0; i < hits->size(); ++i) {
      EXPECT_EQ((*hits)[i].score, index::Dot(q.data(), (*stored)[i].vector.data(), kDims))
          << "label " << (*hits)[i].id;
      if (i > 0) {
        EXPECT_FALSE(index::NeighborBefore((*hits)[i], (*hits)[i - 1]));
      }
    }
  }
}

}  // namespace
}  // namespace mnemo

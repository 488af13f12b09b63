// The fixture of the VectorSpace tests over a real SQLite store
// (vector_space_test.cc, vector_space_maintenance_test.cc): a unit vector
// of its own for every n, stored as the entry "k<n>", and the check that an
// index answers only with what the store holds.
#ifndef MNEMO_TESTS_CORE_VECTOR_SPACE_FIXTURE_H_
#define MNEMO_TESTS_CORE_VECTOR_SPACE_FIXTURE_H_

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/search/vector_space.h"
#include "storage/sqlite/sqlite_backend.h"
#include "test_util.h"

namespace mnemo::vector_space_test {

using testing::TempDir;

inline constexpr char kSignature[] = "test-4";
inline constexpr size_t kDims = 4;

// A unit vector of its own for every n.
inline std::vector<float> VectorOf(int n) {
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
      auto r = b.entries().Upsert(
          {.key = "k" + std::to_string(n), .content = "note " + std::to_string(n)});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
      labels.push_back(r->label);
      vectors.push_back({r->label, VectorOf(n)});
    }
    EXPECT_TRUE(b.entries().PutVectors(kSignature, vectors).ok());
    return labels;
  }
  std::unique_ptr<VectorSpace> Open(storage::internal::SqliteBackend& b, const std::string& dir) {
    auto s = VectorSpace::Open(b.entries(), kSignature, kDims, {}, dir, StderrLogger());
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::move(*s);
  }
  // Every label `space` returns for the vector of every n in [0, 100) is a
  // label the store has a vector for, and its score is the store's.
  void ExpectOnlyStoredLabels(VectorSpace& space, storage::internal::SqliteBackend& b) {
    std::set<storage::Label> stored;
    ASSERT_TRUE(b.entries()
                    .ForEachVector(kSignature,
                                   [&](const storage::LabeledVector& v) {
                                     stored.insert(v.label);
                                     return Status::Ok();
                                   })
                    .ok());
    EXPECT_EQ(space.size(), stored.size());
    for (int n = 0; n < 100; n += 3) {
      auto hits = space.Search(VectorOf(n), 5, {});
      ASSERT_TRUE(hits.ok()) << hits.status().ToString();
      for (const index::Neighbor& h : *hits) {
        EXPECT_TRUE(stored.contains(static_cast<storage::Label>(h.id)))
            << "label " << h.id << " is not in the database";
        const storage::Label label = static_cast<storage::Label>(h.id);
        auto v = b.entries().VectorsFor(kSignature, std::span(&label, 1));
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

}  // namespace mnemo::vector_space_test

#endif  // MNEMO_TESTS_CORE_VECTOR_SPACE_FIXTURE_H_

// VectorSpace over a real SQLite store (issue 17, items 4 and 5): an index
// file is trusted only beside the store it was built from and only when it
// is not ahead of that store's change log; a rebuilt index is written at
// once. A search that expects its index behind catches it up from the
// change log. Index maintenance: vector_space_maintenance_test.cc.
#include "core/search/vector_space.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/search/search_query.h"
#include "core/search/search_service.h"
#include "core/search/vectors_service.h"
#include "embed/embedder.h"
#include "index/index_file.h"
#include "index/vector_math.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/test_values.h"
#include "test_util.h"
#include "vector_space_fixture.h"

namespace mnemo::vector_space_test {
namespace {

namespace fs = std::filesystem;

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
  EXPECT_EQ(header->store_id, ours->entries().store_id());
  EXPECT_EQ(header->count, 10u);
}

TEST_F(VectorSpaceFileTest, EveryStoreHasAnIdentityOfItsOwnThatLasts) {
  std::string first;
  {
    auto a = OpenStore(dir_.Sub("a.db"));
    first = std::string(a->entries().store_id());
  }
  EXPECT_EQ(first.size(), 32u);
  EXPECT_EQ(OpenStore(dir_.Sub("a.db"))->entries().store_id(), first);
  EXPECT_NE(OpenStore(dir_.Sub("b.db"))->entries().store_id(), first);
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
      auto e = b->entries().FindExact("local", TestNamespace("global"),
                                      TestKey("k" + std::to_string(i)));
      ASSERT_TRUE(e.ok() && e->has_value());
      ASSERT_TRUE(b->entries().Delete((*e)->id).ok());
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
      auto e = b->entries().FindExact("local", TestNamespace("global"),
                                      TestKey("k" + std::to_string(i)));
      ASSERT_TRUE(e.ok() && e->has_value());
      ASSERT_TRUE(b->entries().Delete((*e)->id).ok());
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
  auto watermark = b->entries().VectorWatermark(kSignature);
  ASSERT_TRUE(watermark.ok());
  EXPECT_EQ(header->watermark, static_cast<uint64_t>(*watermark));
  EXPECT_EQ(header->count, 25u);
  EXPECT_EQ(header->store_id, b->entries().store_id());
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
  auto space = VectorSpace::Open(b->entries(), kSignature, kDims, options, "", StderrLogger());
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
    auto stored = b->entries().VectorsFor(kSignature, labels);
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

// The entry store of a test, forwarded, that counts the reads of the vector
// change log and can hold the next one until Release: a catch-up then holds
// VectorSpace's lock for as long as a test needs.
class HeldLogStore final : public storage::EntryStore {
 public:
  explicit HeldLogStore(storage::EntryStore& s) : s_(s) {}

  // The next read of the change log waits (bounded) for Release.
  void HoldNextLogRead() {
    std::lock_guard lock(mu_);
    hold_ = true;
    released_ = false;
  }
  bool WaitLogReadHeld() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBound, [&] { return held_; });
  }
  // Whether the watermark has been read `n` times (waits, bounded).
  bool WaitWatermarkReads(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kBound, [&] { return watermark_reads_ >= n; });
  }
  void Release() {
    {
      std::lock_guard lock(mu_);
      released_ = true;
    }
    cv_.notify_all();
  }
  int log_reads() {
    std::lock_guard lock(mu_);
    return log_reads_;
  }
  int watermark_reads() {
    std::lock_guard lock(mu_);
    return watermark_reads_;
  }
  // FetchWithVectors calls that read the watermark along.
  int fetched_watermarks() {
    std::lock_guard lock(mu_);
    return fetched_watermarks_;
  }

  // The reads of the change log and the keyword searches, in their order.
  std::vector<std::string> TakeCalls() {
    std::lock_guard lock(mu_);
    return std::exchange(calls_, {});
  }

  Result<int64_t> VectorWatermark(std::string_view signature) override {
    auto r = s_.VectorWatermark(signature);
    {
      std::lock_guard lock(mu_);
      ++watermark_reads_;
    }
    cv_.notify_all();
    return r;
  }
  Result<std::vector<storage::VectorChange>> VectorChangesSince(std::string_view signature,
                                                                int64_t seq, int limit) override {
    {
      std::unique_lock lock(mu_);
      ++log_reads_;
      calls_.emplace_back("log");
      if (hold_) {
        hold_ = false;
        held_ = true;
        cv_.notify_all();
        cv_.wait_for(lock, kBound, [&] { return released_; });
      }
    }
    return s_.VectorChangesSince(signature, seq, limit);
  }

  std::string_view store_id() const override { return s_.store_id(); }
  Result<storage::UpsertResult> Upsert(const storage::EntryWrite& w) override {
    return s_.Upsert(w);
  }
  Result<int64_t> UpsertBatch(std::span<const storage::EntryWrite> w,
                              std::vector<storage::Label>* labels) override {
    return s_.UpsertBatch(w, labels);
  }
  Result<std::vector<storage::UpsertResult>> Mutate(const storage::EntryGroup& g,
                                                    const storage::MutateFn& d) override {
    return s_.Mutate(g, d);
  }
  Result<std::optional<Entry>> FindExact(std::string_view o, const Namespace& ns,
                                         const Key& k) override {
    return s_.FindExact(o, ns, k);
  }
  Result<std::optional<Entry>> Resolve(const Namespace& ns, const Key& k,
                                       const storage::ReadScope& scope) override {
    return s_.Resolve(ns, k, scope);
  }
  Result<bool> Delete(std::string_view id) override { return s_.Delete(id); }
  Result<storage::HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                              const storage::HygieneFn& d) override {
    return s_.ApplyHygiene(ids, d);
  }
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override {
    return s_.ClaimHygieneRun(now, interval);
  }
  Result<std::optional<TimeMs>> LastHygieneRun() override { return s_.LastHygieneRun(); }
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t a, int64_t u) override {
    return s_.AddCounters(id, a, u);
  }
  Result<std::vector<Entry>> List(const storage::EntryFilter& f, int limit,
                                  int64_t offset) override {
    return s_.List(f, limit, offset);
  }
  Result<std::vector<storage::KeywordHit>> KeywordSearch(const storage::KeywordQuery& q) override {
    {
      std::lock_guard lock(mu_);
      calls_.emplace_back("keyword");
    }
    return s_.KeywordSearch(q);
  }
  Result<Stats> GetStats(const storage::ReadScope& scope) override { return s_.GetStats(scope); }
  Status ForEach(const storage::ReadScope& scope, std::string_view prefix,
                 const std::function<Status(const Entry&)>& fn) override {
    return s_.ForEach(scope, prefix, fn);
  }
  Result<int64_t> Generation(storage::Counter which) override { return s_.Generation(which); }
  Status PutVectors(std::string_view sig, std::span<const storage::LabeledVector> v) override {
    return s_.PutVectors(sig, v);
  }
  Status ForEachVector(std::string_view sig,
                       const std::function<Status(const storage::LabeledVector&)>& fn) override {
    return s_.ForEachVector(sig, fn);
  }
  Result<std::vector<storage::LabeledVector>> VectorsFor(
      std::string_view sig, std::span<const storage::Label> labels) override {
    return s_.VectorsFor(sig, labels);
  }
  Result<std::vector<storage::MissingVector>> MissingVectors(std::string_view sig,
                                                             storage::Label after,
                                                             int limit) override {
    return s_.MissingVectors(sig, after, limit);
  }
  Result<int64_t> CountMissingVectors(std::string_view sig) override {
    return s_.CountMissingVectors(sig);
  }
  Result<int64_t> CountVectors(std::string_view sig) override { return s_.CountVectors(sig); }
  Result<std::vector<storage::KeywordHit>> FetchByLabels(
      std::span<const storage::Label> labels, const storage::EntryFilter& f,
      const std::vector<std::string>& terms) override {
    return s_.FetchByLabels(labels, f, terms);
  }
  Result<std::vector<storage::Label>> MatchingLabels(const storage::EntryFilter& f,
                                                     int limit) override {
    return s_.MatchingLabels(f, limit);
  }
  Result<storage::FetchedCandidates> FetchWithVectors(std::span<const storage::Label> labels,
                                                      const storage::EntryFilter& f,
                                                      const std::vector<std::string>& terms,
                                                      std::string_view sig,
                                                      std::span<const storage::Label> vectors,
                                                      bool with_watermark) override {
    {
      std::lock_guard lock(mu_);
      if (with_watermark) ++fetched_watermarks_;
    }
    return s_.FetchWithVectors(labels, f, terms, sig, vectors, with_watermark);
  }
  Result<std::vector<std::string>> VectorSignatures() override { return s_.VectorSignatures(); }

 private:
  static constexpr std::chrono::seconds kBound{20};
  storage::EntryStore& s_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool hold_ = false;
  bool held_ = false;
  bool released_ = false;
  int log_reads_ = 0;
  int watermark_reads_ = 0;
  int fetched_watermarks_ = 0;
  std::vector<std::string> calls_;
};

// Searches that find the index behind while another catches it up wait for
// that catch-up and are served by it: each used to read the change log again
// under the lock, so on a node searching behind another node's stores a
// search waited for one round trip per search ahead of it.
TEST_F(VectorSpaceFileTest, SyncsThatFindTheIndexBehindShareOneCatchUp) {
  auto store = OpenStore(dir_.Sub("mnemo.db"));
  Store(*store, 0, 10);
  HeldLogStore held(store->entries());
  auto opened = VectorSpace::Open(held, kSignature, kDims, {}, "", StderrLogger());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  VectorSpace& space = **opened;
  const std::vector<storage::Label> added = Store(*store, 10, 11);  // behind the index now

  held.HoldNextLogRead();
  std::thread first([&] { EXPECT_TRUE(space.Sync().ok()); });
  ASSERT_TRUE(held.WaitLogReadHeld());  // catching up, with the lock held
  const int log_reads = held.log_reads();
  const int watermark_reads = held.watermark_reads();
  std::thread second([&] { EXPECT_TRUE(space.Sync().ok()); });
  // The second has read the newer watermark and now waits for the lock.
  ASSERT_TRUE(held.WaitWatermarkReads(watermark_reads + 1));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  held.Release();
  first.join();
  second.join();

  EXPECT_EQ(held.log_reads(), log_reads);
  auto found = space.Search(VectorOf(10), 1, {});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(static_cast<storage::Label>((*found)[0].id), added[0]);
}

// A search that expects the index behind catches it up in one read of the
// change log (SyncFromLog), with no watermark read and no lock held during
// the read: a Sync that starts while the read is held goes through. An
// older read applied after a newer catch-up changes nothing (its changes
// are at or below the watermark): the vector another process replaced in
// between stays the new one.
TEST_F(VectorSpaceFileTest, ACatchUpFromTheLogIsOneReadWithNoLockHeld) {
  auto store = OpenStore(dir_.Sub("mnemo.db"));
  Store(*store, 0, 10);
  HeldLogStore held(store->entries());
  auto opened = VectorSpace::Open(held, kSignature, kDims, {}, "", StderrLogger());
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  VectorSpace& space = **opened;

  auto current = space.SyncFromLog();
  ASSERT_TRUE(current.ok()) << current.status().ToString();
  EXPECT_FALSE(*current);  // nothing new: not behind

  const storage::Label added = Store(*store, 10, 11)[0];  // another process's store
  const int watermark_reads = held.watermark_reads();
  const int log_reads = held.log_reads();
  held.HoldNextLogRead();
  Result<bool> behind = false;
  std::thread search([&] { behind = space.SyncFromLog(); });
  ASSERT_TRUE(held.WaitLogReadHeld());  // it has read, not applied yet
  // Meanwhile the other process replaces the vector, and a Sync (which
  // takes the lock) catches the index up past both changes.
  const std::vector<storage::LabeledVector> replaced = {{added, VectorOf(50)}};
  ASSERT_TRUE(store->entries().PutVectors(kSignature, replaced).ok());
  ASSERT_TRUE(space.Sync().ok());
  const int64_t synced = space.watermark();
  held.Release();
  search.join();
  ASSERT_TRUE(behind.ok()) << behind.status().ToString();
  EXPECT_TRUE(*behind);

  EXPECT_EQ(held.watermark_reads(), watermark_reads + 1);  // the Sync's alone
  EXPECT_EQ(held.log_reads(), log_reads + 2);              // one each
  EXPECT_EQ(space.watermark(), synced);
  auto found = space.Search(VectorOf(50), 1, {});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ(static_cast<storage::Label>((*found)[0].id), added);
  EXPECT_NEAR((*found)[0].score, 1.0, 1e-5);  // the replacing vector, not the read one
  ExpectOnlyStoredLabels(space, *store);
}

// A hybrid search reads the change log's watermark in the round trip that
// fetches its candidates' rows and vectors, not in one of its own before
// the search (on a server that was a round trip per search). A change it
// shows, another process's store, is caught up and searched again: the
// search answers as one synced first (a search service opened after the
// store), and sees the new entry.
TEST_F(VectorSpaceFileTest, AHybridSearchReadsTheWatermarkWithItsRowsAndSeesAnotherProcessWrite) {
  const std::string signature = embed::ExternalSignature(static_cast<int>(kDims));
  auto add = [&](storage::internal::SqliteBackend& b, int n) {
    auto r = b.entries().Upsert(
        {.key = "k" + std::to_string(n), .content = "note number " + std::to_string(n)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const std::vector<storage::LabeledVector> v = {{r->label, VectorOf(n)}};
    ASSERT_TRUE(b.entries().PutVectors(signature, v).ok());
  };
  auto store = OpenStore(dir_.Sub("mnemo.db"));
  for (int n = 0; n < 60; ++n) add(*store, n);
  HeldLogStore held(store->entries());
  auto open_search = [&](storage::EntryStore& entries, std::unique_ptr<VectorsService>* vectors) {
    auto v = VectorsService::Open(entries, nullptr, {}, StderrLogger());
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    *vectors = std::move(*v);
    return std::make_unique<SearchService>(entries, **vectors, SystemClock(), StderrLogger(),
                                           SearchOptions{});
  };
  std::unique_ptr<VectorsService> vectors;
  auto search = open_search(held, &vectors);
  const auto query = Query::Parse("note");
  ASSERT_TRUE(query.ok());
  SearchRequest request{
      .query = "note", .max_results = 5, .min_score = 0.0, .embedding = VectorOf(200)};
  auto run = [&](SearchService& service) {
    auto parsed = SearchQuery::Parse(*query, request, 0);
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    auto r = service.Search(Principal{}, *parsed);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::pair<std::string, double>> out;
    if (r.ok()) {
      for (const SearchHit& h : r->results) out.emplace_back(h.key, h.score);
    }
    return out;
  };
  ASSERT_EQ(run(*search).size(), 5u);  // the space is opened by the first search
  const int watermark_reads = held.watermark_reads();
  const int fetched = held.fetched_watermarks();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(run(*search).size(), 5u);
  EXPECT_EQ(held.watermark_reads(), watermark_reads);
  EXPECT_EQ(held.fetched_watermarks(), fetched + 5);

  auto other = OpenStore(dir_.Sub("mnemo.db"));  // another process on the same store
  add(*other, 200);
  const int log_reads = held.log_reads();
  const auto seen = run(*search);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen[0].first, "k200");
  EXPECT_GT(held.log_reads(), log_reads);  // caught up
  std::unique_ptr<VectorsService> fresh_vectors;
  auto fresh = open_search(other->entries(), &fresh_vectors);
  EXPECT_EQ(seen, run(*fresh));

  // Where another process writes before every search, the index is found
  // behind again and again: the searches then catch the index up first
  // (one read of the log) instead of walking it twice; and fold again once
  // the index stays current.
  for (int n = 201; n < 204; ++n) {
    add(*other, n);
    ASSERT_FALSE(run(*search).empty());
  }
  const int reads_before = held.watermark_reads();
  const int log_reads_before = held.log_reads();
  add(*other, 204);
  held.TakeCalls();
  auto behind = run(*search);
  ASSERT_FALSE(behind.empty());
  // Caught up first, in one read of the log, before the keyword side (on
  // PostgreSQL that read catches the keyword statistics up too): no
  // watermark read of its own.
  EXPECT_EQ(held.TakeCalls(), (std::vector<std::string>{"log", "keyword"}));
  EXPECT_EQ(held.watermark_reads(), reads_before);
  EXPECT_EQ(held.log_reads(), log_reads_before + 1);
  EXPECT_EQ(behind, run(*fresh));
  for (int i = 0; i < 16; ++i) ASSERT_FALSE(run(*search).empty());
  const int reads_current = held.watermark_reads();
  const int fetched_current = held.fetched_watermarks();
  ASSERT_FALSE(run(*search).empty());
  EXPECT_EQ(held.watermark_reads(), reads_current);
  EXPECT_EQ(held.fetched_watermarks(), fetched_current + 1);
}

}  // namespace
}  // namespace mnemo::vector_space_test

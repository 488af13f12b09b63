// The keyword statistics a search of entries weighs its terms with (BM25's N,
// the token total and each term's row count in the caller's scope), cached
// in the process per generation of entry_terms (issue 46).
//
// entry_terms (pg_schema.cc, v7) changes only in FlushEntryTerms, which
// bumps the generation `entry_terms` (v9) in the same statement. So a
// statistic read with generation g is exact in every snapshot whose
// generation is still g: the search passes the cached figures with g, and
// its statement checks g in its own snapshot before it scores a row
// (pg_entry_search.h). A stale cache costs one more round trip, never a
// different score. A write anywhere (any node) changes the generation and
// the next search of every node reads the statistics again, with its hits
// in the same round trip.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// The statistics of some terms in one read scope, at one generation.
struct TermStats {
  int64_t generation = 0;
  int64_t documents = 0;    // N: rows in the scope
  int64_t tokens = 0;       // Σ doc_length of those rows
  std::vector<int64_t> df;  // rows holding each term, in the order asked
};

class KeywordStatsCache {
 public:
  // The statistics of every one of `terms` in `scope`, when all are cached.
  std::optional<TermStats> Find(const ReadScope& scope, const std::vector<std::string>& terms);
  // The largest row count of those of `terms` cached in `scope` (0 when none
  // is): a search with a term that common may be pruned.
  int64_t LargestCachedDf(const ReadScope& scope, const std::vector<std::string>& terms);
  // Keeps `stats` of `terms` (as a search statement returned them); a
  // generation other than the cached one drops everything cached.
  void Keep(const ReadScope& scope, const std::vector<std::string>& terms, const TermStats& stats);
  // Drops everything (a search found the generation moved).
  void Clear();
  // Reads of the statistics from the server (counted by SearchEntries).
  void CountRead() { ++reads_; }
  int64_t reads() const { return reads_.load(); }
  // Search statements run (counted by SearchEntries): one per search, two
  // when the statistics it read say a pruned try may pay.
  void CountStatement() { ++statements_; }
  int64_t statements() const { return statements_.load(); }

 private:
  struct Scope {
    int64_t documents = 0;
    int64_t tokens = 0;
    std::unordered_map<std::string, int64_t> df;
  };
  // Terms kept at most (all scopes); past it the cache starts again.
  static constexpr size_t kMaxTerms = 200'000;

  std::mutex mu_;
  std::optional<int64_t> generation_;
  std::unordered_map<std::string, Scope> scopes_;  // by ScopeKey
  size_t terms_ = 0;
  std::atomic<int64_t> reads_{0};
  std::atomic<int64_t> statements_{0};
};

// The columns a search statement computing the statistics itself returns
// them in, first on each of its rows: the generation, N, the token total and
// the array of the terms' row counts (pg_entry_search.cc).
inline constexpr int kTermStatsColumns = 4;

// The statistics of `terms` in those columns of `rows`; nullopt when the
// store has no generation (a schema before v9) or the rows none.
std::optional<TermStats> ReadTermStats(const Rows& rows, size_t terms);

}  // namespace mnemo::storage::internal::pg

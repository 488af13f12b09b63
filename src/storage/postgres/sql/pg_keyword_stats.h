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
  // Keeps `stats` of `terms` (as KeywordStatsStatement read them); a
  // generation other than the cached one drops everything cached.
  void Keep(const ReadScope& scope, const std::vector<std::string>& terms, const TermStats& stats);
  // Drops everything (a search found the generation moved).
  void Clear();
  // Searches answered with cached statistics (counted by SearchEntries).
  void CountAnswered() { ++answered_; }
  int64_t answered() const { return answered_.load(); }

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
  std::atomic<int64_t> answered_{0};
};

// One statement reading the generation and the statistics of `terms` in
// `scope` in one snapshot: a row per term (generation, N, tokens, df).
PgStatement KeywordStatsStatement(const std::vector<std::string>& terms, const ReadScope& scope);

// The statistics of those rows; nullopt when the store has no generation
// (a schema older than v9 is never opened, so only a damaged store).
std::optional<TermStats> ReadTermStats(const Rows& rows, size_t terms);

}  // namespace mnemo::storage::internal::pg

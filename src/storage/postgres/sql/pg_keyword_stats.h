// The keyword statistics a search of entries weighs its terms with (BM25's N,
// the token total and each term's row count in the caller's scope), held in
// the process per generation of entry_terms (issue 46).
//
// entry_terms (pg_schema.cc, v7) changes only in FlushEntryTerms, which
// bumps the generation `entry_terms` (v9) in the same statement, and in a
// bulk write that copies its statistics in (postgres_bulk_write.cc), whose
// fold then bumps it in the same transaction (`copied`). So a
// statistic read with generation g is exact in every snapshot whose
// generation is still g: the search passes the figures with g, and its
// statement checks g in its own snapshot before it scores a row
// (pg_entry_search.h). A stale figure costs more round trips, never a
// different score.
//
// Two ways of holding them:
// - The mirror (schema v11, a store's cache): all of entry_terms, every
//   term of every bucket, loaded in one statement (one snapshot) at the
//   first search, so a search of terms never searched before is the one
//   cached statement. The process's own writes move the mirror as they
//   commit (ApplyOwnFold). When that statement finds the generation moved
//   (another node's write), it returns the rows entry_terms_log (v11) holds
//   after its generation in the same round trip; the process adds them and
//   searches again (CatchUpFrom). A search that reads the vector change log
//   first (a node beside another node's writes) reads this log in the same
//   round trip (CatchUpStatement, CatchUpAfter), so its keyword statement
//   mostly finds the mirror current. A "reload everything" row (a bulk write)
//   or a log already pruned past its generation reloads all. A server whose generation is older
//   than the mirror's (a standby behind the node that caught up) cannot be caught up to: that
//   search falls back to the statements that read the statistics in their own snapshot, and the
//   mirror stays. Past kMirrorRowsAtMost rows of entry_terms the mirror gives up and the cache
//   works per term.
// - Per term (a store before v11, a larger one, the tests' plain cache): the
//   statistics a search read are kept until the generation moves; a term
//   never searched is read from the server (pg_entry_search.h, the miss).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/string_ids.h"
#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// The schema version from which the writes log entry_terms' changes
// (pg_schema.cc, v11), so that a store's cache may mirror the statistics.
inline constexpr int kMirroredFromSchemaVersion = 11;

// The statistics of some terms in one read scope, at one generation.
struct TermStats {
  int64_t generation = 0;
  int64_t documents = 0;    // N: rows in the scope
  int64_t tokens = 0;       // Σ doc_length of those rows
  std::vector<int64_t> df;  // rows holding each term, in the order asked
};

class KeywordStatsCache {
 public:
  // `mirror`: hold all of entry_terms (the store needs schema v11, whose
  // writes log their changes); otherwise per term.
  explicit KeywordStatsCache(bool mirror = false) : mirror_on_(mirror) {}

  // Rows of entry_terms (those not zero) the mirror holds at most: 894 075
  // at 100k entries (ten owners), about 25 MB of the process (docs/scaling.md).
  static constexpr size_t kMirrorRowsAtMost = 1'000'000;

  // Whether the statistics are mirrored (not given up past the bound).
  bool mirrors() const { return mirror_on_.load(); }
  // The statistics of `terms` in `scope` from the mirror, loaded on `conn`
  // first when not yet held; nullopt when the cache does not mirror (or
  // gave up: the store is past the bound, or has no generation).
  Result<std::optional<TermStats>> Mirrored(PgConn& conn, const ReadScope& scope,
                                            const std::vector<std::string>& terms);
  // After a search on `conn` found the mirror's generation stale: reads the
  // log after it and applies it (or reloads all). True when the mirror is
  // now at the server's generation (search again); false when the server is
  // behind the mirror (a standby): the mirror is kept, that search falls
  // back.
  Result<bool> CatchUp(PgConn& conn);
  // The same from the log rows a stale search statement returned with its
  // answer (kLogColumns from column `first`: the server's generation, the
  // oldest the log keeps, then per row term, bucket, docs, tokens and
  // generation), read after `from`, the generation that statement was
  // given; no round trip of its own unless a reload is due (or the mirror
  // moved back past `from` meanwhile: then the log is read as CatchUp does).
  Result<bool> CatchUpFrom(PgConn& conn, const Rows& rows, int first, int64_t from);
  // CatchUp's statement, for a caller that sends it in a round trip it
  // makes anyway (the vector change log's read before a search), and the
  // mirror's generation it reads after; nullopt when nothing is mirrored.
  // Its rows go to CatchUpAfter.
  std::optional<std::pair<PgStatement, int64_t>> CatchUpStatement();
  // Applies the rows of CatchUpStatement's statement (read after `from`)
  // when they move the mirror on: a search then finds it current, one
  // statement where a stale one made two. No round trip unless a reload is
  // due.
  Status CatchUpAfter(PgConn& conn, const Rows& rows, int64_t from);
  // After this process's own write committed: `logged` are the rows its
  // fold wrote into entry_terms_log (FlushEntryTerms), all under the
  // generation the fold moved to. When that is the mirror's generation + 1
  // they are applied, so the node's own writes never make its mirror stale
  // (no log read, no stale statement); otherwise (another node's write came
  // in between, a "reload everything" row) the next search catches up as
  // before.
  void ApplyOwnFold(const Rows& logged);
  // The mirror's generation (nullopt before it is loaded).
  std::optional<int64_t> mirror_generation();
  // Full loads of the mirror and catch-ups from the log.
  int64_t loads() const { return loads_.load(); }
  int64_t catch_ups() const { return catch_ups_.load(); }
  // Own folds applied to the mirror (ApplyOwnFold).
  int64_t own_folds() const { return own_folds_.load(); }

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

  // The statistics as loaded: the terms' dense ids (StringIds: their bytes
  // in one string, found by a flat table); each term's rows (bucket, docs)
  // side by side, and its sum over all buckets: about 30 bytes a row and
  // term, where a hash map of strings took 200 (at 100k entries, 894 075
  // rows: 178 MB). What the log added since is kept per term apart
  // (`added`) until the next load.
  struct Mirror {
    int64_t generation = 0;
    std::unordered_map<std::string, uint32_t> bucket_ids;
    std::vector<int64_t> tokens;  // per bucket: its token total (the term '')
    ::mnemo::internal::StringIds terms;
    std::vector<uint32_t> row_at;  // per term, and one past: where in bucket and docs
    std::vector<uint32_t> bucket;  // per row
    std::vector<int64_t> docs;     // per row
    std::vector<int64_t> all;      // per term: its rows' sum
    std::unordered_map<std::string, std::vector<std::pair<uint32_t, int64_t>>> added;
    size_t added_rows = 0;
  };
  // Rows the log may add to a mirror before it is loaded anew (the added
  // rows cost a hash map's ~100 bytes each).
  static constexpr size_t kAddedRowsAtMost = 100'000;
  // The bucket's id in `m`, a new one when first seen.
  static uint32_t BucketId(Mirror& m, std::string_view bucket);
  // Adds a delta of (term, bucket) to the mirror.
  static void Apply(Mirror& m, std::string_view term, std::string_view bucket, int64_t docs,
                    int64_t tokens);
  // Loads all of entry_terms into mirror_ (mu_ held); gives up past the bound.
  Status LoadLocked(PgConn& conn);
  // Gives the mirror up: the cache works per term from now on (mu_ held).
  void GiveUpLocked();
  // CatchUp's work on log rows in kLogColumns from column `first`, read
  // after a generation not past the mirror's (mu_ held).
  Result<bool> CatchUpLocked(PgConn& conn, const Rows& rows, int first);

  std::atomic<bool> mirror_on_;
  std::optional<Mirror> mirror_;  // loaded
  std::atomic<int64_t> loads_{0};
  std::atomic<int64_t> catch_ups_{0};
  std::atomic<int64_t> own_folds_{0};

  std::mutex mu_;
  std::optional<int64_t> generation_;
  std::unordered_map<std::string, Scope> scopes_;  // by ScopeKey
  size_t terms_ = 0;
  std::atomic<int64_t> reads_{0};
  std::atomic<int64_t> statements_{0};
};

// The columns of the log rows a catch-up applies (KeywordStatsCache::
// CatchUpFrom): the server's generation, the oldest entry_terms_log keeps,
// then the row's term, bucket, docs, tokens and generation.
inline constexpr int kLogColumns = 7;

// The columns a search statement computing the statistics itself returns
// them in, first on each of its rows: the generation, N, the token total and
// the array of the terms' row counts (pg_entry_search.cc).
inline constexpr int kTermStatsColumns = 4;

// The statistics of `terms` in those columns of `rows`; nullopt when the
// store has no generation (a schema before v9) or the rows none.
std::optional<TermStats> ReadTermStats(const Rows& rows, size_t terms);

}  // namespace mnemo::storage::internal::pg

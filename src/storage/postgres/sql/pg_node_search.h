// Keyword search of entries from the node's own index (issue 46,
// `[postgres] keyword_index = "node"`, the default): each process holds the
// keyword index of the entries (node_keyword_index.h) and keeps it current
// from the entry change log (pg_schema.cc, v13), as it keeps its vector
// index current from vector_changes.
//
// A search ranks the rows in the process (BM25 from the index's own
// statistics: the same figures and the same bits as the server's
// statement, pg_entry_search.h), then, in one round trip (libpq pipeline),
// reads the log past the index's watermark and fetches the ranked rows by
// label with the log's head in the same statement. When that head is
// still the watermark, the rows are exactly those ranked (the index held
// every change their snapshot holds): they are the hits, and that round
// trip was the whole search. Otherwise the changes read (each changed
// row's current columns, joined in) are applied; when the index then holds
// the rows' snapshot and ranks none it did not fetch, they are still the
// hits (a write beside the top), else the search runs again;
// a log trimmed past the watermark, a "reload" row (a bulk write) or more
// than kChangesAtMost changes reload the index in full (one statement,
// one snapshot). A server whose head is behind the watermark (a standby
// behind the node), or a search still stale after kAttempts tries, falls
// back to the server's statement (the caller's).
//
// Filters the index cannot evaluate (category, namespace, prefix, tags,
// time range) use the server's statement: Handles says which.
//
// Thread-safety: every member may be called from many threads; searches
// share the index, a catch-up or a reload takes it alone.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "mnemo/logger.h"
#include "storage/entry_store.h"
#include "storage/postgres/node_keyword_index.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// The schema version from which the writes log the entries' changes.
inline constexpr int kNodeKeywordsFromSchemaVersion = 13;

class NodeKeywords {
 public:
  // Changes read at once at most; more reload the index in full.
  static constexpr int64_t kChangesAtMost = 5000;
  // Searches that find the log moved at most before the server's statement.
  static constexpr int kAttempts = 3;

  // Each load is logged to `logger` (rows, time, memory) at info level.
  explicit NodeKeywords(std::shared_ptr<Logger> logger) : logger_(std::move(logger)) {}

  // Whether the index can answer a search filtered by `filter`.
  static bool Handles(const EntryFilter& filter);

  // The hits of `query` (terms distinct), scored as SearchEntries scores
  // them; nullopt when the caller must use the server's statement. Loads
  // the index at the first search.
  Result<std::optional<std::vector<KeywordHit>>> Search(PgConn& conn, const KeywordQuery& query);

  // A statement reading the log past the index's watermark, for a round
  // trip the node makes anyway (the vector change log's read before a
  // search), with that watermark; nullopt before the index is loaded.
  std::optional<std::pair<PgStatement, int64_t>> CatchUpStatement();
  // Applies its rows (CatchUp): the next search then finds the index
  // current, one round trip.
  Status CatchUpAfter(PgConn& conn, const Rows& changes, int64_t from) {
    return CatchUp(conn, changes, from);
  }

  // A fetch of the rows of `labels` that pass a filter, weighed by the
  // index rather than the server (a hybrid search's vector-side
  // candidates): the log past the index's watermark, then the rows by label
  // with the log's head, for the caller's pipeline in this order; nullopt
  // before the index is loaded.
  struct Fetch {
    PgStatement changes;
    PgStatement rows;
    int64_t from = 0;  // the watermark `changes` reads past
  };
  std::optional<Fetch> FetchStatements(std::span<const Label> labels, const EntryFilter& filter);
  // The rows fetched, in the labels' order, with the scores of `terms`
  // (distinct) in `scope` the server's fetch gives them (FetchByLabels), to
  // the bit: the index is caught up with the changes read, and weighs when
  // it then holds the rows' snapshot, or a later one (another search caught
  // it up meanwhile) whose changes since touched none of `labels`: the
  // rows are then those of that snapshot too, and so are the scores.
  // nullopt otherwise (a write between the two statements, or one of the
  // labels changed since): the caller asks the server.
  Result<std::optional<std::vector<KeywordHit>>> WeighFetched(PgConn& conn, const Fetch& fetch,
                                                              const Rows& changes, const Rows& rows,
                                                              std::span<const Label> labels,
                                                              const std::vector<std::string>& terms,
                                                              const ReadScope& scope);

  // Round trips the searches made (one per try, loads included).
  int64_t round_trips() const { return round_trips_.load(); }
  int64_t loads() const { return loads_.load(); }
  // Changes of other writes applied from the log.
  int64_t changes_applied() const { return changes_applied_.load(); }
  // Searches answered by the index (not fallen back).
  int64_t searches() const { return searches_.load(); }
  // Fetches weighed by the index (WeighFetched), and those it left to the
  // server.
  int64_t weighed_fetches() const { return weighed_fetches_.load(); }
  int64_t fetches_left() const { return fetches_left_.load(); }
  // The log's seq the index holds every change up to (-1 before the load).
  int64_t watermark();
  // Rows held and the bytes their index takes.
  size_t rows();
  size_t memory_bytes();

 private:
  // Reads every row and the log's head in one statement; replaces the index.
  // Nothing when a load happened since loads() was `seen` (another search
  // reloaded meanwhile).
  Status Reload(PgConn& conn, int64_t seen);
  // Applies the changes statement's rows read past `from` (or reloads).
  Status CatchUp(PgConn& conn, const Rows& changes, int64_t from);

  // Whether a change after `seq` and up to the watermark touched one of
  // `labels`, or the changes kept do not reach back to `seq`. Under mu_.
  bool ChangedSince(int64_t seq, std::span<const Label> labels) const;

  // Changes applied kept (seq, label) for ChangedSince, at most this many.
  static constexpr size_t kRecentChanges = 4096;

  std::shared_ptr<Logger> logger_;
  std::shared_mutex mu_;  // guards index_, watermark_, recent_ and recent_from_
  NodeKeywordIndex index_;
  int64_t watermark_ = -1;
  std::deque<std::pair<int64_t, Label>> recent_;  // every change past recent_from_
  int64_t recent_from_ = -1;
  std::mutex load_mu_;  // one reload at a time
  std::atomic<int64_t> round_trips_{0};
  std::atomic<int64_t> loads_{0};
  std::atomic<int64_t> changes_applied_{0};
  std::atomic<int64_t> searches_{0};
  std::atomic<int64_t> weighed_fetches_{0};
  std::atomic<int64_t> fetches_left_{0};
};

}  // namespace mnemo::storage::internal::pg

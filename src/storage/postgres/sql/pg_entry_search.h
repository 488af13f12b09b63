// Keyword search of entries on PostgreSQL in one statement (issue 46).
//
// The statistics come from entry_terms (pg_schema.cc, v7), which the writes
// keep current: N, the token total and each term's row count of the
// caller's scope are a few index reads, in the same snapshot as the rows
// scored. A process keeps those it read per generation of entry_terms
// (pg_keyword_stats.h) and passes them to the statement, which checks the
// generation in its own snapshot: no other node's write can make them stale.
//
// Candidates are bounded before scoring as on SQLite (docs/storage.md,
// "Pruned keyword search"): E, the rarest terms until they hold `limit` rows
// between them, and C the rest. A row holding C terms alone scores at most
// bound = min(1, (k1 + 1) · Σ_C idf / Σ idf). The statement first scores
// only the rows holding an E term (with every term's weight, so each scores
// exactly as in the full query); when it found `limit` of them and the
// limit-th scores above bound (by 1e-9), no other row can enter the hits and
// they are the full query's, ties included. Otherwise, when it found
// `limit` rows, their limit-th score is a lower bound of the full query's:
// the second try leaves to C only the most common terms whose bound stays
// below it and scores the rows holding any other term, which are then
// proven to hold the hits (SQLite's second try). Without `limit` rows from
// the first try, the same statement scores every row holding any term. The
// first try runs only when C holds at least kPruneFromRows rows and 4 times
// E's, and when the most common term's bound alone is below 1 (as
// FirstPrunedMatch on SQLite): otherwise it can neither prove its hits nor
// narrow the second try, and only costs E's rows (two rare terms: 0.27 of
// 1.4 ms at 100k).
//
// The statement reads its arguments through a materialised CTE: the
// planner's estimates do not depend on them, so after five executions the
// prepared statement keeps one generic plan instead of planning each search.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_keyword_stats.h"

namespace mnemo::storage::internal::pg {

// Below this many rows of the common terms the full query reads few rows.
// A failed first try costs E's rows, at most a quarter of C's; a row scored
// costs 5–15 µs of server time (the heap read, ts_rank_cd per term), so the
// 1 400 rows of two common terms and three rare ones are worth a try
// (20k entries: 21 ms without it).
inline constexpr int64_t kPruneFromRows = 100;

// Folds the notes the entry triggers left in entry_terms_delta into
// entry_terms; run by every write transaction before its commit. `bulk`
// (after a bulk write's hundreds of thousands of notes) empties the table by
// TRUNCATE and counts it empty (ANALYZE): emptied by DELETE, its dead rows
// made the planner expect a large delta until autovacuum came, and every
// later write's fold then read all of entry_terms by a hash join (the
// writes of bench/scaleout.py spent their time there). entry_terms itself
// is left to autovacuum: analysed right after a first load, the writes of
// three nodes spent five times the server CPU in this fold (bench/
// scaleout.py --replicated), and the search needs no exact estimates since
// its connections run without JIT (postgres_database.cc).
//
// With `logged` (schema v11 on), the same statement writes the fold's deltas
// into entry_terms_log under the new generation, for the processes that hold
// all of the statistics (pg_keyword_stats.h) to catch up by: a bulk fold, or
// one of more than kLoggedRowsAtMost rows, logs a single "reload everything"
// row instead. The log keeps the last kLoggedGenerations generations; the
// fold deletes the one that leaves the window. `logged` false is the fold of
// a store before v11 (its tests).
//
// With `copied`, a bulk write copied counts straight into entry_terms
// (postgres_bulk_write.cc: rows of buckets entry_terms held none of): the
// generation moves and the log says "reload everything" even when no note
// is left to fold.
struct EntryTermsFold {
  bool bulk = false;
  bool copied = false;
  bool logged = true;
};
//
// With `logged_rows` (a write's fold, logged and not bulk), the rows it
// logged come back there (generation, term, bucket, docs, tokens: none when
// nothing was folded), for the process's own mirror to apply once the write
// commits (KeywordStatsCache::ApplyOwnFold).
Status FlushEntryTerms(PgConn& conn, EntryTermsFold fold = {},
                       std::optional<Rows>* logged_rows = nullptr);

// The generations entry_terms_log keeps. A process whose statistics are
// older reloads them all (at 100k entries, 0.2 s once); a write of one entry
// logs 10-40 rows, so the window is a few tens of thousands of rows at most.
inline constexpr int64_t kLoggedGenerations = 1000;
// A fold of more (term, bucket) deltas than this logs "reload everything":
// reading the log would cost about what reading entry_terms does.
inline constexpr int64_t kLoggedRowsAtMost = 20'000;

// The SQL that weighs `terms` (distinct) for the entries of `scope`: a WITH
// list defining `w` (term, lexeme, i, df, idf, rarer: the rows of the terms
// rarer than it) and `k` (one row: avgdl, mass, and idf1..idfN, each term's
// idf), a lateral `f` over the row `e` (tf1..tfN, each term's frequency in
// e.tsv, and norm, BM25's length part of e.doc_length) and the normalised
// score of `e` from them. Adds its parameters.
//
// A term's frequency is ts_rank_cd with every weight 1 and the term alone as
// the query: each position of a one-lexeme query is a cover of weight 1, so
// the rank is the count of positions, the term frequency IndexText stored
// (a binary search in the row's tsvector, no unnest of it per row). A
// compressed tsvector is copied once (`|| ''`) for those calls, which would
// each decompress it again; one stored plain (most rows: a memory is short)
// is read in place, as the copy cost more than both calls (at 100k, 0.9
// instead of 1.2 ms for a search scoring 389 rows). A term the row does
// not hold (`@@`, a binary search) is 0 without the rank's call. q and w are
// materialised: inlined, each term's counts were read four times.
struct EntryWeightsSql {
  std::string with;     // "WITH q AS (...), st AS (...), w AS (...), k AS (...)"
  std::string lateral;  // "CROSS JOIN LATERAL (SELECT ... OFFSET 0) f"
  std::string score;    // a double in [0, 1], from k and f
  std::string ready;    // true when the store has rows (k.mass > 0)
  // A one-row select of `ok`: true when the weights hold in the statement's
  // snapshot (empty for AddEntryWeights, whose weights always do).
  std::string fresh;
};
EntryWeightsSql AddEntryWeights(Params& params, const std::vector<std::string>& terms,
                                const ReadScope& scope);

// The same weights from `stats` (the statistics of `terms`, distinct, in
// the scope read: KeywordStatsCache), as parameters: `with` is empty, no
// entry_terms row is read, and a score is the same bits as AddEntryWeights'
// (WeighStats). `fresh` checks stats.generation in the statement's own
// snapshot: the weights hold only when it is true.
EntryWeightsSql AddEntryWeightsFrom(Params& params, const std::vector<std::string>& terms,
                                    const TermStats& stats);

// BM25's weights of some terms from their statistics, computed in the
// floating-point operations and order of the statement computing them from
// entry_terms (AddEntryWeights' CTEs w and k), so the same bits.
struct StatsWeights {
  std::vector<double> df;     // per term, in the order of the statistics
  std::vector<double> idf;    // per term
  std::vector<size_t> order;  // w's order: by df, then by position
  double avgdl = 0;           // 0 without tokens
  double mass = 0;            // Σ idf, in w's order
};
StatsWeights WeighStats(const TermStats& stats);

// The hits of `query` (terms distinct), best first; `pruned` (when given)
// tells whether the first try proved them. With the statistics of its terms
// in `cache` at the store's generation, one statement takes them as
// arguments: it reads no entry_terms row and computes no weight, and knowing
// the weights the process leaves out the pruned tries when they would not
// run (at 100k, 0.20 instead of 0.39 ms of server time for a search scoring
// 108 rows). Otherwise, when a term of the query is cached as common
// (kPruneFromRows rows or more: a pruned try may pay), the statement that
// computes every weight itself and runs the tries, which returns the
// statistics for the cache. Otherwise one statement reads the statistics
// (kept in `cache`) and, when they rule out a pruned try, scores every row
// holding a term in the same statement (a rare query's terms are seldom
// cached: at 100k, 0.27 instead of 0.45 ms of execution for two rare terms);
// when they do not, the statement taking them as arguments follows (a second
// round trip, for a query whose common terms were not cached). A write in
// between, or a store without a generation, falls back to the statement
// computing everything. The hits and scores are that statement's
// (SearchEntriesWeighingAll), to the bit.
Result<std::vector<KeywordHit>> SearchEntries(PgConn& conn, const KeywordQuery& query,
                                              KeywordStatsCache* cache = nullptr,
                                              bool* pruned = nullptr);

// The hits of `query` from the one statement that computes every weight from
// entry_terms itself and runs the pruned tries: the reference the faster
// paths of SearchEntries give the same bits as.
Result<std::vector<KeywordHit>> SearchEntriesWeighingAll(PgConn& conn, const KeywordQuery& query,
                                                         bool* pruned = nullptr);

}  // namespace mnemo::storage::internal::pg

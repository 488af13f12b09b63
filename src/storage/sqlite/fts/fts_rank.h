// The FTS5 auxiliary function mnemo_score(entries_fts [, doc_length [, stats]]):
// the normalised keyword score of bm25.h for the current row, fed with FTS5's
// own counts:
//   N        xRowCount              avgdl  xColumnTotalSize(-1) / N
//   n_t      xQueryPhrase per phrase (once per query, kept with xSetAuxdata
//            like FTS5's built-in bm25)
//   tf       xInstCount / xInst     dl     the second argument when given
//                                          (entries.doc_length), else
//                                          xColumnSize(-1)
// Every phrase of the MATCH expression is one query term (the backend builds
// `"t1" OR "t2" ...`), so Σ idf runs over all query terms.
//
// `stats`, when not NULL, replaces FTS5's N, Σ dl and n_t, which count every
// row of the table, by those of the rows the caller may read (ScopeStats
// below): text "N total n_1 ... n_k", one n per phrase. So one principal's
// scores never depend on what another principal stored (issue 17).
#pragma once

#include <sqlite3.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

inline constexpr const char* kFtsRankFunctionName = "mnemo_score";
// mnemo_matched(fts): the number of query terms (phrases) the row holds.
inline constexpr const char* kFtsMatchedFunctionName = "mnemo_matched";

// mnemo_stats(fts): the numbers mnemo_score reads from FTS5 itself (every
// row of the table), as the text of its `stats` argument.
inline constexpr const char* kFtsStatsFunctionName = "mnemo_stats";

// Registers mnemo_score, mnemo_matched and mnemo_stats on this connection.
Status RegisterFtsRank(sqlite3* db);

// The rows a keyword search may read: `table` (with its alias, "entries e")
// joined to `fts` by `rowid_column` ("e.rowid"), those where `where` holds
// (its text parameters bound in order to plain `?`). An empty `where` means
// every row.
struct FtsScope {
  std::string_view fts;
  std::string_view table;
  std::string_view alias;
  std::string_view rowid_column;
  std::string where;
  std::vector<std::string> params;
  // A query giving the scope's row count and total doc_length in one row
  // from kept counters (its parameters: `params`); empty: count the rows.
  std::string_view corpus_sql;
};

// The numbers mnemo_score scores with: the scope's rows, their Σ doc_length
// and, per query term (MatchExpression order), the rows holding it.
struct ScoreStats {
  int64_t documents = 0;
  int64_t total_tokens = 0;
  std::vector<int64_t> documents_with_term;
};

// mnemo_score's `stats` argument: "N total n_1 ... n_k", then, when given,
// " | p_1 ... p_m": the term of each phrase of the MATCH expression (-1: a
// phrase whose instances are not counted).
std::string FormatStats(const ScoreStats& stats, std::span<const int> phrase_terms = {});

// The counts CountScoreStats made on one reader connection, kept while the
// database does not change: a hybrid search counts its terms for the
// keyword side and again to score the vector side's hits, and common words
// (the costly counts: one row each) recur across searches. `PRAGMA
// data_version` changes with every commit of another connection, in this
// process or another; a reader connection commits nothing itself.
class ScoreStatsMemo {
 public:
  // Inside the caller's read transaction (starts its snapshot): forgets
  // every count when the database changed since the last call.
  Status Validate(Connection& db);

  struct Counts {
    std::optional<std::pair<int64_t, int64_t>> corpus;  // rows, Σ doc_length
    std::unordered_map<std::string, int64_t> terms;     // rows holding the term
  };
  // The counts of one scope (its table, filter and parameters).
  Counts& For(const FtsScope& scope);
  // Keeps a term's count in `counts` (For's).
  void Keep(Counts& counts, const std::string& term, int64_t rows);
  // Forgets every count when more than kMaxKept scopes and terms are kept;
  // a Counts& of For is not to be used after it.
  void Trim();
  // The scope's row count when kept.
  std::optional<int64_t> KnownRows(const FtsScope& scope) const;

  static constexpr size_t kMaxKept = 4096;

 private:
  int64_t version_ = -1;
  size_t kept_ = 0;  // scopes and terms in scopes_
  std::unordered_map<std::string, Counts> scopes_;
};

// The scope's numbers for `terms`; FTS5's own (mnemo_stats, as mnemo_score
// would count them) when `scope.where` is empty. With `memo` (validated in
// this read transaction), counts it holds are not made again and new ones
// are kept.
Result<ScoreStats> CountScoreStats(Connection& db, const FtsScope& scope,
                                   const std::vector<std::string>& terms,
                                   ScoreStatsMemo* memo = nullptr);

// mnemo_score's `stats` argument for `terms` (in MatchExpression order) over
// the scope's rows (CountScoreStats, docs/storage.md "Keyword statistics per
// caller"). When `where` is empty: "" (bind NULL: mnemo_score counts FTS5's
// own inside the search) unless `memo` keeps every number.
Result<std::string> ScopeStats(Connection& db, const FtsScope& scope,
                               const std::vector<std::string>& terms,
                               ScoreStatsMemo* memo = nullptr);

// Pruning a keyword search (issue 22), MaxScore-style: the query's most
// common terms C (the rest E), such that a row holding C terms alone scores
// at most `bound` whatever its frequencies and length. A search over `match`
// finds every row holding an E term and scores it with `stats` exactly as
// the full query does; when its limit-th hit scores above `bound` (by
// kPruneBoundMargin: scores are sums in double, a row's may pass its exact
// bound by rounding), its hits are the full query's.
struct PrunedMatch {
  std::string match;
  std::string stats;
  double bound = 0;
};
inline constexpr double kPruneBoundMargin = 1e-9;
// C's rows must number at least this, and kPruneMinShare times E's, for a
// first try: below that the full query reads few rows, and a try that fails
// costs about one query of its own (measured at 1M entries, issue 22).
inline constexpr int64_t kPruneMinRows = 10000;
inline constexpr int64_t kPruneMinShare = 4;

// The first try: E the rarest terms until they hold `limit` rows between
// them. Its limit-th score is a lower bound of the full query's, so even
// when it does not prove its own hits it sizes the second try
// (PrunedMatchBelow). nullopt: too few rows left to C to be worth it.
std::optional<PrunedMatch> FirstPrunedMatch(const std::vector<std::string>& terms,
                                            const ScoreStats& stats, int limit);

// The widest C (most common terms first) whose bound stays below `kth`, a
// score the full query's limit-th hit is known to reach; nullopt: none.
std::optional<PrunedMatch> PrunedMatchBelow(const std::vector<std::string>& terms,
                                            const ScoreStats& stats, double kth);

// Binds ScopeStats' text, or NULL when it is empty.
void BindScopeStats(Statement& s, int index, const std::string& stats);

}  // namespace mnemo::storage::internal

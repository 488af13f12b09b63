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

#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

inline constexpr const char* kFtsRankFunctionName = "mnemo_score";
// mnemo_matched(fts): the number of query terms (phrases) the row holds.
inline constexpr const char* kFtsMatchedFunctionName = "mnemo_matched";

// Registers mnemo_score and mnemo_matched on this connection.
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

// mnemo_score's `stats` argument for `terms` (in MatchExpression order) over
// the scope's rows: "" (bind NULL: FTS5's counts are the scope's) when
// `where` is empty. Costs one count over the scope's rows (or one read of
// `corpus_sql`) plus one MATCH count per term (docs/storage.md, "Keyword statistics per caller").
Result<std::string> ScopeStats(Connection& db, const FtsScope& scope,
                               const std::vector<std::string>& terms);

// Binds ScopeStats' text, or NULL when it is empty.
void BindScopeStats(Statement& s, int index, const std::string& stats);

}  // namespace mnemo::storage::internal

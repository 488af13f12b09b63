// The FTS5 auxiliary function mnemo_score(entries_fts [, doc_length]): the
// normalised keyword
// score of bm25.h for the current row, fed with FTS5's own counts:
//   N        xRowCount              avgdl  xColumnTotalSize(-1) / N
//   n_t      xQueryPhrase per phrase (once per query, kept with xSetAuxdata
//            like FTS5's built-in bm25)
//   tf       xInstCount / xInst     dl     the second argument when given
//                                          (entries.doc_length), else
//                                          xColumnSize(-1)
// Every phrase of the MATCH expression is one query term (the backend builds
// `"t1" OR "t2" ...`), so Σ idf runs over all query terms.
#pragma once

#include <sqlite3.h>

#include "mnemo/status.h"

namespace mnemo::storage::internal {

inline constexpr const char* kFtsRankFunctionName = "mnemo_score";

// Registers mnemo_score on this connection.
Status RegisterFtsRank(sqlite3* db);

}  // namespace mnemo::storage::internal

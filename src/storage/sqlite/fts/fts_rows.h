// Rows of the contentless FTS5 tables (entries_fts, turns_fts, events_fts,
// documents_fts, segment_recaps_fts): a row is added with its text, and
// removed with the FTS5 'delete' command given exactly the text it was added
// with (a contentless table keeps no copy), so every table that owns such a
// row keeps that text.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// One column of an FTS5 row: its name in the table and its text.
struct FtsColumn {
  std::string_view name;
  std::string_view text;
};

// Adds row `rowid` to `table` and returns its document length (the sum of
// IndexColumn over the columns), learnt from the insert itself.
Result<int64_t> IndexFtsRow(Connection& db, std::string_view table, int64_t rowid,
                            std::initializer_list<FtsColumn> columns);

// Removes row `rowid` from `table`; `columns` must hold the indexed text.
Status UnindexFtsRow(Connection& db, std::string_view table, int64_t rowid,
                     std::initializer_list<FtsColumn> columns);

// Merges every segment of `table` into one ('optimize'), dropping the
// tombstones of removed rows together with the tokens they cancel: until
// then a removed row's tokens stay in the index's older segments. Costs a
// rewrite of the whole index (docs/storage.md gives the figure).
Status OptimizeFtsTable(Connection& db, std::string_view table);

// MAX(rowid) + 1 of `table` (1 when empty): the rowid of a new row whose
// FTS5 row is written first, or the first row a batch adds (entry_bulk.h).
Result<int64_t> NextRowid(Connection& db, std::string_view table);

}  // namespace mnemo::storage::internal

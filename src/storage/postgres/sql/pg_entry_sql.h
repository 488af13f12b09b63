// SQL pieces over the `entries` table shared by the entry and the vector
// half of the PostgreSQL backend (as sqlite/rows/entry_sql.h is for SQLite).
#pragma once

#include <string>

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// The columns ReadEntry expects, in order, from `entries e`.
inline constexpr const char* kEntryColumns =
    "e.id, e.owner, e.namespace, e.key, e.content, e.category, e.tags, e.visibility, "
    "e.created_at, e.updated_at, e.access_count, e.useful_count, e.archived";
inline constexpr int kEntryColumnCount = 13;

// The entry in kEntryColumns of `row` starting at column `first`.
Entry ReadEntry(const Rows& rows, int row, int first = 0);

// "$n" for the parameter just added.
std::string Last(const Params& params);

// The read-scope condition (" AND ..." or ""), its parameter added.
std::string ScopeSql(const ReadScope& scope, Params& params);

// Every part of `filter` (scope included) as a condition over `entries e`,
// as MatchesFilter in entry_rules.h; parameters added to `params`.
std::string FilterSql(const EntryFilter& filter, Params& params);

}  // namespace mnemo::storage::internal::pg

// The statement of EntryStore::MatchingLabels on PostgreSQL: the labels of
// the first `limit` entries passing a filter, ascending.
//
// A caller's scope (its own entries or public ones) is read as two ordered
// index scans merged, its own rows by (owner, label) and the public rows of
// others by label (schema v12's indexes, which carry the columns the rest of
// the filter reads), each stopping at `limit`: a scan of entries in label
// order read every row's filter columns up to the limit-th match, 7 700 rows
// for a user who sees a quarter of 100 000 and all of them for a user who
// sees few. Every hybrid search as a user asks it (core/search).
#pragma once

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

PgStatement MatchingLabelsStatement(const EntryFilter& filter, int limit);

}  // namespace mnemo::storage::internal::pg

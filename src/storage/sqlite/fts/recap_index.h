// The keyword index of segment recaps (schema v6, docs/storage.md):
// `segment_recaps` holds one row per segment with a non-empty recap, whose
// rowid is the row of the contentless `segment_recaps_fts` and whose `body`
// is the recap that row indexed. Both functions run inside the caller's
// write transaction.
#pragma once

#include <string_view>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// Makes the index hold `recap` for segment `segment_id`: nothing when it
// already does; else the old row (if any) is removed and, unless `recap` is
// empty, the new one added. Every write of a segment's recap calls it.
Status SyncRecapIndex(Connection& db, std::string_view segment_id, std::string_view recap);

// Indexes the recap of every stored segment: migration 6's backfill of the
// segments of a version-5 database.
Status IndexExistingRecaps(Connection& db);

}  // namespace mnemo::storage::internal

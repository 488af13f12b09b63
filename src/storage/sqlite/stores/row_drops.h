// Row deletions inside the caller's write transaction, shared by the
// single-row methods and erasure (sqlite_admin_store.cc), and what makes a
// deletion leave nothing behind.
#pragma once

#include <string_view>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// Deletes document `id` with its documents_fts row (sqlite_document_store.cc);
// returns whether it existed.
Result<bool> DropDocumentRow(Connection& db, std::string_view id);

// Empties the write-ahead log after an erasure committed, so the erased
// rows' pages leave it (sqlite_admin_store.cc): every delete that must leave
// nothing behind calls it after its commit, under the writer lock.
Status EmptyLog(Connection& db);

}  // namespace mnemo::storage::internal

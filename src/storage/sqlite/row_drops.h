// Row deletions inside the caller's write transaction, shared by the
// single-row methods and erasure (sqlite_erasure.cc).
#pragma once

#include <string_view>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// Deletes document `id` with its documents_fts row (sqlite_documents.cc);
// returns whether it existed.
Result<bool> DropDocumentRow(Connection& db, std::string_view id);

}  // namespace mnemo::storage::internal

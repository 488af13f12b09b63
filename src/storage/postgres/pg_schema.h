// The PostgreSQL backend's schema and its migrations (a version table, like
// the SQLite backend's; the two histories are separate).
#pragma once

#include <string>

#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

// Creates `schema` when missing and brings it to the latest version inside
// one transaction holding the schema's advisory lock, so two processes
// starting at once migrate once. Returns the version.
Result<int> MigrateSchema(PgConn& conn, const std::string& schema);

int LatestPgSchemaVersion();

// `"name"` with " doubled: a schema name as an SQL identifier.
std::string QuoteIdentifier(std::string_view name);

}  // namespace mnemo::storage::internal::pg

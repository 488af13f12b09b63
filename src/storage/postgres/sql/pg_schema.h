// The PostgreSQL backend's schema and its migrations (a version table, like
// the SQLite backend's; the two histories are separate).
#pragma once

#include <functional>

#include <string>

#include "storage/postgres/pg_connection.h"

namespace mnemo::storage::internal::pg {

int LatestPgSchemaVersion();

// Creates `schema` when missing and brings it to the latest version inside
// one transaction holding the schema's advisory lock, so two processes
// starting at once migrate once. Returns the version. `up_to` stops at an
// older version (tests build a database as an older mnemo left it).
Result<int> MigrateSchema(PgConn& conn, const std::string& schema,
                          int up_to = LatestPgSchemaVersion());

// Runs `body` in one transaction holding the schema's migration lock (one
// per schema name, also before the schema exists), with the schema created
// when missing and set as the search_path: committed when `body` succeeds,
// rolled back otherwise. MigrateSchema and the keyword index's rebuild
// (pg_text_version.h) share it, so two processes starting at once do each
// step once.
Status InMigrationTransaction(PgConn& conn, const std::string& schema, std::string_view what,
                              const std::function<Status()>& body);

// `"name"` with " doubled: a schema name as an SQL identifier.
std::string QuoteIdentifier(std::string_view name);

}  // namespace mnemo::storage::internal::pg

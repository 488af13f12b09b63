// Schema versioning of the SQLite database (docs/storage.md).
//
// `schema_version(version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`
// holds one row per applied migration; the database's version is the largest.
// Migrations are numbered from 1, only ever appended, and each runs in the
// same BEGIN IMMEDIATE transaction as its schema_version row, so a crash
// leaves the database at the previous version. A database whose version is
// newer than this binary knows is refused (kUnavailable) untouched.
#pragma once

#include <span>

#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

struct Migration {
  int version;
  const char* description;
  const char* sql;  // one or more statements
  // Run after `sql`, in the same transaction, when the data already stored
  // must be carried into the new tables in C++ (through the text pipeline).
  Status (*backfill)(Connection&) = nullptr;
};

// Every migration of this binary, in order; the last one's version is the
// schema version it writes.
std::span<const Migration> SchemaMigrations();
int LatestSchemaVersion();

// The database's version (0 for a new database). `schema_version` is created
// when missing.
Result<int> ReadSchemaVersion(Connection& conn);

// Brings the database up to the last of `migrations` and returns the version.
// The connection must have the FTS5 tokenizer registered (migrations create
// FTS tables with it).
Result<int> Migrate(Connection& conn, std::span<const Migration> migrations);

}  // namespace mnemo::storage::internal

// The SQLite backend (default): one database file (sqlite_database.h: WAL
// mode, one writer connection guarded by a mutex, a pool of readers) and
// one store per concern built over it, each in its own file pair:
// SqliteEntryStore, SqliteEpisodicStore, SqliteDocumentStore,
// SqliteContextEventStore, SqliteGraphStore and SqliteAdminStore. Every
// write is one BEGIN IMMEDIATE transaction on the shared writer, so a write
// of one store is serialised with those of the others. Schema:
// migrations.cc.
#pragma once

#include <cstdint>
#include <memory>

#include "storage/rules/vector_rules.h"
#include "storage/sqlite/sqlite_database.h"
#include "storage/sqlite/stores/sqlite_admin_store.h"
#include "storage/sqlite/stores/sqlite_context_event_store.h"
#include "storage/sqlite/stores/sqlite_document_store.h"
#include "storage/sqlite/stores/sqlite_entry_store.h"
#include "storage/sqlite/stores/sqlite_episodic_store.h"
#include "storage/sqlite/stores/sqlite_graph_store.h"
#include "storage/stores.h"

namespace mnemo::storage::internal {

class SqliteBackend {
 public:
  // Opens (creating and migrating when needed) the database of `options`
  // and builds the stores over it. `vector_log_limit`: vector changes kept
  // per signature (vector_rules.h).
  static Result<std::unique_ptr<SqliteBackend>> Open(
      const SqliteOptions& options, int64_t vector_log_limit = kDefaultVectorLogLimit);

  int schema_version() const { return database_->schema_version(); }
  SqliteDatabase& database() { return *database_; }
  SqliteEntryStore& entries() { return *stores_.entries; }
  SqliteEpisodicStore& episodic() { return *stores_.episodic; }
  SqliteDocumentStore& documents() { return *stores_.documents; }
  SqliteContextEventStore& context_events() { return *stores_.context_events; }
  SqliteGraphStore& graph() { return *stores_.graph; }
  SqliteAdminStore& admin() { return *stores_.admin; }

  // The stores as the engine holds them; each keeps the database open.
  Stores stores() const;

 private:
  struct Built {
    std::shared_ptr<SqliteEntryStore> entries;
    std::shared_ptr<SqliteEpisodicStore> episodic;
    std::shared_ptr<SqliteDocumentStore> documents;
    std::shared_ptr<SqliteContextEventStore> context_events;
    std::shared_ptr<SqliteGraphStore> graph;
    std::shared_ptr<SqliteAdminStore> admin;
  };

  explicit SqliteBackend(std::shared_ptr<SqliteDatabase> database);

  std::shared_ptr<SqliteDatabase> database_;
  Built stores_;
};

}  // namespace mnemo::storage::internal

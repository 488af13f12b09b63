// The PostgreSQL backend (`memory.backend = "postgres"`): every table of the
// engine in one schema of a PostgreSQL database (postgres_database.h: the
// migrated schema, a pool of libpq connections, the read router, the writer
// lock) and one store per concern built over it, each in its own file pair
// under stores/: PostgresEntryStore, PostgresEpisodicStore,
// PostgresDocumentStore, PostgresContextEventStore, PostgresGraphStore and
// PostgresAdminStore. Several mnemo processes on several machines may share
// one schema and behave as one memory.
#pragma once

#include <cstdint>
#include <memory>

#include "storage/postgres/postgres_database.h"
#include "storage/postgres/stores/postgres_admin_store.h"
#include "storage/postgres/stores/postgres_context_event_store.h"
#include "storage/postgres/stores/postgres_document_store.h"
#include "storage/postgres/stores/postgres_entry_store.h"
#include "storage/postgres/stores/postgres_episodic_store.h"
#include "storage/postgres/stores/postgres_graph_store.h"
#include "storage/rules/vector_rules.h"
#include "storage/stores.h"

namespace mnemo::storage::internal {

class PostgresBackend {
 public:
  // Opens (creating and migrating when needed) the schema of `options` and
  // builds the stores over it. `vector_log_limit`: vector changes kept per
  // signature (vector_rules.h).
  static Result<std::unique_ptr<PostgresBackend>> Open(
      const PostgresOptions& options, int64_t vector_log_limit = kDefaultVectorLogLimit);

  int schema_version() const { return database_->schema_version(); }
  PostgresDatabase& database() { return *database_; }
  PostgresEntryStore& entries() { return *stores_.entries; }
  PostgresEpisodicStore& episodic() { return *stores_.episodic; }
  PostgresDocumentStore& documents() { return *stores_.documents; }
  PostgresContextEventStore& context_events() { return *stores_.context_events; }
  PostgresGraphStore& graph() { return *stores_.graph; }
  PostgresAdminStore& admin() { return *stores_.admin; }

  // The stores as the engine holds them; each keeps the database open.
  Stores stores() const;

 private:
  struct Built {
    std::shared_ptr<PostgresEntryStore> entries;
    std::shared_ptr<PostgresEpisodicStore> episodic;
    std::shared_ptr<PostgresDocumentStore> documents;
    std::shared_ptr<PostgresContextEventStore> context_events;
    std::shared_ptr<PostgresGraphStore> graph;
    std::shared_ptr<PostgresAdminStore> admin;
  };

  explicit PostgresBackend(std::shared_ptr<PostgresDatabase> database);

  std::shared_ptr<PostgresDatabase> database_;
  Built stores_;
};

}  // namespace mnemo::storage::internal

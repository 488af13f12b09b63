#include "storage/postgres/postgres_backend.h"

#include <utility>

namespace mnemo::storage {
namespace internal {

PostgresBackend::PostgresBackend(std::shared_ptr<PostgresDatabase> database)
    : database_(std::move(database)),
      stores_{.entries = std::make_shared<PostgresEntryStore>(database_),
              .episodic = std::make_shared<PostgresEpisodicStore>(database_),
              .documents = std::make_shared<PostgresDocumentStore>(database_),
              .context_events = std::make_shared<PostgresContextEventStore>(database_),
              .graph = std::make_shared<PostgresGraphStore>(database_),
              .admin = std::make_shared<PostgresAdminStore>(database_)} {}

Result<std::unique_ptr<PostgresBackend>> PostgresBackend::Open(const PostgresOptions& options,
                                                               int64_t vector_log_limit) {
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<PostgresDatabase> database,
                         PostgresDatabase::Open(options, vector_log_limit));
  return std::unique_ptr<PostgresBackend>(new PostgresBackend(std::move(database)));
}

Stores PostgresBackend::stores() const {
  return Stores{.name = "postgres",
                .schema_version = database_->schema_version(),
                .entries = stores_.entries,
                .episodic = stores_.episodic,
                .documents = stores_.documents,
                .context_events = stores_.context_events,
                .graph = stores_.graph,
                .admin = stores_.admin};
}

}  // namespace internal

Result<Stores> OpenPostgresStores(const PostgresOptions& options) {
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<internal::PostgresBackend> backend,
                         internal::PostgresBackend::Open(options));
  return backend->stores();
}

}  // namespace mnemo::storage

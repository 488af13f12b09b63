#include "storage/sqlite/sqlite_backend.h"

#include <string>
#include <utility>

namespace mnemo::storage {
namespace internal {

SqliteBackend::SqliteBackend(std::shared_ptr<SqliteDatabase> database)
    : database_(std::move(database)),
      stores_{.entries = std::make_shared<SqliteEntryStore>(database_),
              .episodic = std::make_shared<SqliteEpisodicStore>(database_),
              .documents = std::make_shared<SqliteDocumentStore>(database_),
              .context_events = std::make_shared<SqliteContextEventStore>(database_),
              .graph = std::make_shared<SqliteGraphStore>(database_),
              .admin = std::make_shared<SqliteAdminStore>(database_)} {}

Result<std::unique_ptr<SqliteBackend>> SqliteBackend::Open(const SqliteOptions& options,
                                                           int64_t vector_log_limit) {
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<SqliteDatabase> database,
                         SqliteDatabase::Open(options, vector_log_limit));
  return std::unique_ptr<SqliteBackend>(new SqliteBackend(std::move(database)));
}

Stores SqliteBackend::stores() const {
  return Stores{.name = "sqlite",
                .schema_version = database_->schema_version(),
                .entries = stores_.entries,
                .episodic = stores_.episodic,
                .documents = stores_.documents,
                .context_events = stores_.context_events,
                .graph = stores_.graph,
                .admin = stores_.admin};
}

}  // namespace internal

Result<Stores> OpenSqliteStores(const SqliteOptions& options) {
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<internal::SqliteBackend> backend,
                         internal::SqliteBackend::Open(options));
  return backend->stores();
}

}  // namespace mnemo::storage

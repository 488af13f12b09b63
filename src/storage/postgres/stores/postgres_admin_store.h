// The PostgreSQL admin store: what spans every store of the schema in one
// write transaction. Files: postgres_admin_store.cc (erasure),
// postgres_restore.cc. Rows are written through the functions the stores
// share (pg_writes.h, PostgresDatabase's row writes), never through copies.
#pragma once

#include <memory>

#include "storage/admin_store.h"
#include "storage/postgres/postgres_database.h"

namespace mnemo::storage::internal {

class PostgresAdminStore final : public AdminStore, private PostgresStore {
 public:
  explicit PostgresAdminStore(std::shared_ptr<PostgresDatabase> db);

  Result<RestoreReport> Restore(const RestoreBatch& batch) override;
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;
};

}  // namespace mnemo::storage::internal

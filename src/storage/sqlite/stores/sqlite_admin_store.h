// The SQLite admin store: what spans every store of the database in one
// write transaction. Files: sqlite_admin_store.cc (erasure),
// sqlite_restore.cc, sqlite_integrity.cc. Rows are written and deleted
// through the functions the stores share (entry_writes.h, sqlite_writes.h,
// row_drops.h), never through copies.
#pragma once

#include <memory>

#include "storage/admin_store.h"
#include "storage/sqlite/sqlite_database.h"

namespace mnemo::storage::internal {

class SqliteAdminStore final : public AdminStore {
 public:
  explicit SqliteAdminStore(std::shared_ptr<SqliteDatabase> db);

  Result<RestoreReport> Restore(const RestoreBatch& batch) override;
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;
  Status CheckIntegrity(std::chrono::milliseconds budget) override;

 private:
  const std::shared_ptr<SqliteDatabase> db_;
};

}  // namespace mnemo::storage::internal

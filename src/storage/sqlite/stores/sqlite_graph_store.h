// The SQLite graph store: table triples.
#pragma once

#include <memory>

#include "storage/graph_store.h"
#include "storage/sqlite/sqlite_database.h"

namespace mnemo::storage::internal {

class SqliteGraphStore final : public GraphStore {
 public:
  explicit SqliteGraphStore(std::shared_ptr<SqliteDatabase> db);

  Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) override;
  Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) override;
  Result<std::optional<TripleRow>> GetTriple(std::string_view id) override;
  Result<bool> DeleteTriple(std::string_view id) override;
  Result<bool> CloseTriple(std::string_view id, TimeMs at) override;

 private:
  const std::shared_ptr<SqliteDatabase> db_;
};

}  // namespace mnemo::storage::internal

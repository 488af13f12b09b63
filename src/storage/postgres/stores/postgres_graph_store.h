// The PostgreSQL graph store: table triples.
#pragma once

#include <memory>

#include "storage/graph_store.h"
#include "storage/postgres/postgres_database.h"

namespace mnemo::storage::internal {

class PostgresGraphStore final : public GraphStore, private PostgresStore {
 public:
  explicit PostgresGraphStore(std::shared_ptr<PostgresDatabase> db);

  Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) override;
  Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) override;
  Result<std::optional<TripleRow>> GetTriple(std::string_view id) override;
  Result<bool> DeleteTriple(std::string_view id) override;
  Result<bool> CloseTriple(std::string_view id, TimeMs at) override;
};

}  // namespace mnemo::storage::internal

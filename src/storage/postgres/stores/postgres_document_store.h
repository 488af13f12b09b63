// The PostgreSQL document store: table documents with its keyword index
// (pg_text.h).
#pragma once

#include <memory>

#include "storage/document_store.h"
#include "storage/postgres/postgres_database.h"

namespace mnemo::storage::internal {

class PostgresDocumentStore final : public DocumentStore, private PostgresStore {
 public:
  explicit PostgresDocumentStore(std::shared_ptr<PostgresDatabase> db);

  Result<DocumentPut> PutDocument(const DocumentRow& row) override;
  Result<std::optional<DocumentRow>> GetDocument(std::string_view id, bool count_access) override;
  Result<std::vector<DocumentHit>> SearchDocuments(const DocumentQuery& query) override;
  Result<std::vector<DocumentRow>> ListDocuments(std::optional<std::string> owner,
                                                 std::optional<std::string> source_prefix,
                                                 int limit, int64_t offset) override;
  Result<bool> DeleteDocument(std::string_view id) override;
  Result<int64_t> CountDocuments(std::optional<std::string> owner) override;
  Result<std::vector<int64_t>> DocumentFrequencies(std::span<const std::string> terms) override;
  Status UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                               std::string_view summary, std::span<const std::string> tags,
                               std::span<const std::string> entities, TimeMs updated_at) override;
};

}  // namespace mnemo::storage::internal

// The in-memory document store.
#pragma once

#include <memory>

#include "storage/document_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryDocumentStore final : public DocumentStore {
 public:
  explicit MemoryDocumentStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

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

 private:
  using Row = MemoryState::Row;
  using Doc = MemoryState::Doc;
  using Undo = MemoryState::Undo;
  using VectorSpace = MemoryState::VectorSpace;
  using KeywordScorer = MemoryState::KeywordScorer;
  using TurnDoc = MemoryState::TurnDoc;
  using EventDoc = MemoryState::EventDoc;
  using StoredSegmentVector = MemoryState::StoredSegmentVector;
  using LogRow = MemoryState::LogRow;

  const std::shared_ptr<MemoryState> state_;
};

}  // namespace mnemo::storage::internal

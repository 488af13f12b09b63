// The in-memory graph store.
#pragma once

#include <memory>

#include "storage/graph_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryGraphStore final : public GraphStore {
 public:
  explicit MemoryGraphStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

  Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) override;
  Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) override;
  Result<std::optional<TripleRow>> GetTriple(std::string_view id) override;
  Result<bool> DeleteTriple(std::string_view id) override;
  Result<bool> CloseTriple(std::string_view id, TimeMs at) override;

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

// The in-memory admin store: erasure (memory_admin_store.cc) and restore
// (memory_restore.cc) over every store's rows under the one exclusive lock.
#pragma once

#include <memory>

#include "storage/admin_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryAdminStore final : public AdminStore {
 public:
  explicit MemoryAdminStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

  Result<RestoreReport> Restore(const RestoreBatch& batch) override;
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;

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

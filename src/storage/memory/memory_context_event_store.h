// The in-memory context event store.
#pragma once

#include <memory>

#include "storage/context_event_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryContextEventStore final : public ContextEventStore {
 public:
  explicit MemoryContextEventStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

  Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) override;
  Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                     const SessionId& session_id) override;
  Result<std::vector<ContextEventHit>> SearchContextEvents(const ContextEventQuery& query) override;
  Result<int64_t> DeleteContextEventsUpTo(std::string_view owner, const SessionId& session_id,
                                          int64_t up_to_seq) override;
  Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) override;
  Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) override;

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

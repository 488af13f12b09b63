// The in-memory episodic store: turns, segments, events, facets
// (memory_episodic_store.cc), turn claims and rule captures
// (memory_turn_claims.cc), recap search and vectors (memory_recaps.cc).
#pragma once

#include <memory>

#include "storage/episodic_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryEpisodicStore final : public EpisodicStore {
 public:
  explicit MemoryEpisodicStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

  Result<std::vector<TurnRow>> AppendTurns(std::span<const TurnWrite> rows) override;
  Result<std::vector<TurnRow>> SessionTurns(std::string_view owner, const SessionId& session_id,
                                            int64_t from_seq, int64_t to_seq) override;
  Result<std::vector<TurnHit>> SearchTurns(const TurnQuery& query) override;
  Result<std::vector<TurnRow>> TurnsAfter(int64_t after_id, int limit) override;
  Status ReplaceTurnSearchText(int64_t id, std::string_view search_text) override;
  Result<std::optional<SegmentRow>> OpenSegment(std::string_view owner,
                                                const SessionId& session_id) override;
  Status PutSegment(const SegmentRow& s) override;
  Result<bool> CloseSegment(std::string_view id, TimeMs closed_at) override;
  Result<SegmentChange> StepSegment(std::string_view owner, const SessionId& session_id,
                                    const SegmentDecision& decide) override;
  Result<std::optional<SegmentRow>> GetSegment(std::string_view id) override;
  Result<std::vector<SegmentRow>> Segments(bool all, std::string_view owner,
                                           const std::optional<SessionId>& session_id) override;
  Result<std::vector<SegmentRow>> SegmentsNeedingRecap(int limit, int64_t max_attempts) override;
  Result<int64_t> AddEvents(std::span<const EventRow> rows) override;
  Result<std::vector<EventHit>> SearchEvents(const EventQuery& query) override;
  Result<bool> CloseEvent(std::string_view id, TimeMs closed_at) override;
  Result<FacetRow> MergeFacet(const FacetRow& observation) override;
  Result<std::vector<FacetRow>> Facets(bool all, std::string_view owner) override;
  Result<std::optional<EventRow>> GetEvent(std::string_view id) override;
  Result<bool> ReplaceEvent(const EventRow& row) override;
  Result<bool> DeleteEvent(std::string_view id) override;
  Result<bool> DeleteFacet(std::string_view owner, std::string_view facet_type,
                           std::string_view key) override;
  Result<TurnClaimOutcome> ClaimTurn(const TurnClaim& claim,
                                     std::span<const TurnWrite> rows) override;
  Result<RecordedTurn> RecordTurn(const std::optional<TurnClaim>& claim,
                                  std::vector<TurnWrite> rows,
                                  const TurnSegmentDecision& decide) override;
  Result<bool> FinishTurnClaim(const TurnKey& key, std::string_view result) override;
  Result<std::optional<TurnClaim>> GetTurnClaim(const TurnKey& key) override;
  Status AddRuleCapture(const RuleCaptureWrite& capture) override;
  Result<std::vector<RuleCapture>> RuleCaptures(std::string_view owner) override;
  Result<std::vector<SegmentRow>> IdleOpenSegments(TimeMs before, int limit) override;
  Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) override;
  Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                          std::span<const float> vector) override;
  Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                         int64_t after_version, int limit) override;

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

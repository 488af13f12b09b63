// The PostgreSQL episodic store: turns, segments and their recaps, events,
// facets (each text with its keyword index, pg_text.h), idempotent turn
// claims and rule captures.
// Files: postgres_episodic_store.cc (turns, segments, events, facets),
// postgres_turn_claims.cc, postgres_recaps.cc (recap search and vectors),
// postgres_rule_captures.cc.
#pragma once

#include <memory>

#include "storage/episodic_store.h"
#include "storage/postgres/postgres_database.h"

namespace mnemo::storage::internal {

class PostgresEpisodicStore final : public EpisodicStore, private PostgresStore {
 public:
  explicit PostgresEpisodicStore(std::shared_ptr<PostgresDatabase> db);

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
  Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) override;
  Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                          std::span<const float> vector) override;
  Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                         int64_t after_version, int limit) override;
};

}  // namespace mnemo::storage::internal

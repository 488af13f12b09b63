// Idempotent turns and idle segments in memory: claims in a map, claimed
// and appended under one exclusive lock.
#include <algorithm>
#include <mutex>
#include <string>
#include <tuple>

#include "storage/memory/memory_episodic_store.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::storage::internal {
namespace {

std::tuple<std::string, std::string, std::string> ClaimIndex(const TurnKey& key) {
  return {key.owner, key.session_id.str(), key.turn_id.str()};
}

}  // namespace

Result<TurnClaimOutcome> MemoryEpisodicStore::ClaimTurn(const TurnClaim& claim,
                                                        std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnClaim(claim, rows));
  std::unique_lock lock(state_->mu_);
  TurnClaimOutcome out{.claim = claim};
  if (auto it = state_->turn_claims_.find(ClaimIndex(claim.key));
      it != state_->turn_claims_.end()) {
    out.claim = it->second;
    return out;
  }
  out.rows = state_->AppendTurnsLocked(rows);
  out.claimed = true;
  out.claim = TurnClaim{.key = claim.key,
                        .first_seq = out.rows.empty() ? -1 : out.rows.front().seq,
                        .claimed_at = claim.claimed_at};
  state_->turn_claims_.emplace(ClaimIndex(claim.key), out.claim);
  return out;
}

Result<RecordedTurn> MemoryEpisodicStore::RecordTurn(const std::optional<TurnClaim>& claim,
                                                     std::vector<TurnWrite> rows,
                                                     const TurnSegmentDecision& decide) {
  MNEMO_RETURN_IF_ERROR(ValidateRecordedTurn(claim, rows));
  std::unique_lock lock(state_->mu_);
  RecordedTurn out;
  if (claim) {
    if (auto it = state_->turn_claims_.find(ClaimIndex(claim->key));
        it != state_->turn_claims_.end()) {
      out.claim = it->second;
      return out;
    }
  }
  // The rows as they will be stored, for `decide`; they are inserted only
  // once the segment step (all or nothing itself) succeeded.
  // The rows move into the result (the state keeps its own copy); only
  // their search texts are read after.
  out.rows = state_->PlanTurnsLocked(std::span<TurnWrite>(rows));
  MNEMO_ASSIGN_OR_RETURN(
      out.segment,
      state_->StepSegmentLocked(out.rows[0].owner, out.rows[0].session_id,
                                [&](const SegmentView& view) { return decide(out.rows, view); }));
  for (size_t i = 0; i < out.rows.size(); ++i)
    state_->InsertTurnLocked(out.rows[i], rows[i].SearchText(out.rows[i]));
  if (claim) {
    out.claim = TurnClaim{
        .key = claim->key, .first_seq = out.rows.front().seq, .claimed_at = claim->claimed_at};
    state_->turn_claims_.emplace(ClaimIndex(claim->key), *out.claim);
  }
  out.stored = true;
  return out;
}

Result<bool> MemoryEpisodicStore::FinishTurnClaim(const TurnKey& key, std::string_view result) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  std::unique_lock lock(state_->mu_);
  auto it = state_->turn_claims_.find(ClaimIndex(key));
  if (it == state_->turn_claims_.end()) {
    return NotFound("turn " + key.turn_id.str() + " of session " + key.session_id.str() +
                    " is not claimed");
  }
  if (!it->second.result.empty()) return false;
  it->second.result = std::string(result);
  return true;
}

Result<std::optional<TurnClaim>> MemoryEpisodicStore::GetTurnClaim(const TurnKey& key) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  std::shared_lock lock(state_->mu_);
  auto it = state_->turn_claims_.find(ClaimIndex(key));
  if (it == state_->turn_claims_.end()) return std::optional<TurnClaim>();
  return std::optional<TurnClaim>(it->second);
}

Status MemoryEpisodicStore::AddRuleCapture(const RuleCaptureWrite& capture) {
  MNEMO_RETURN_IF_ERROR(ValidateRuleCapture(capture));
  std::unique_lock lock(state_->mu_);
  state_->rule_captures_.emplace(capture.owner, capture.session_id.str(), capture.tool_name,
                                 capture.rule_id);
  return Status::Ok();
}

Result<std::vector<RuleCapture>> MemoryEpisodicStore::RuleCaptures(std::string_view owner) {
  std::shared_lock lock(state_->mu_);
  std::vector<RuleCapture> out;
  for (const auto& [o, session, tool, id] : state_->rule_captures_) {
    if (o == owner)
      out.push_back({.owner = o, .session_id = session, .tool_name = tool, .rule_id = id});
  }
  return out;
}

Result<std::vector<SegmentRow>> MemoryEpisodicStore::IdleOpenSegments(TimeMs before, int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<SegmentRow> out;
  for (const auto& [address, id] : state_->open_segments_) {
    const SegmentRow& s = state_->segments_.at(id);
    if (s.last_turn_at < before) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const SegmentRow& a, const SegmentRow& b) {
    return std::tie(a.last_turn_at, a.id) < std::tie(b.last_turn_at, b.id);
  });
  if (out.size() > static_cast<size_t>(std::max(limit, 0))) {
    out.resize(static_cast<size_t>(std::max(limit, 0)));
  }
  return out;
}

}  // namespace mnemo::storage::internal

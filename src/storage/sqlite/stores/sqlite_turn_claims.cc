// Idempotent turns and idle segments on SQLite (schema v10, docs/storage.md):
// `turn_claims` keyed by (owner, session_id, turn_id), written in the
// transaction that appends the turn's rows.
#include <algorithm>
#include <mutex>
#include <string>

#include "storage/rules/episodic_rules.h"
#include "storage/sqlite/rows/episodic_sql.h"
#include "storage/sqlite/stores/sqlite_episodic_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kClaimSelect =
    "SELECT first_seq, result, claimed_at FROM turn_claims WHERE owner = ? AND session_id = ? "
    "AND turn_id = ?";

// The claim of `key` read on `db` (the writer inside its transaction, or a
// reader).
Result<std::optional<TurnClaim>> ReadClaim(Connection& db, const TurnKey& key) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(kClaimSelect, "read the turn claim"));
  s.Bind(1, key.owner);
  s.Bind(2, key.session_id.view());
  s.Bind(3, key.turn_id.view());
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("read the turn claim"));
  if (!found) return std::optional<TurnClaim>();
  return std::optional<TurnClaim>(TurnClaim{.key = key,
                                            .first_seq = s.ColumnInt(0),
                                            .result = std::string(s.ColumnText(1)),
                                            .claimed_at = s.ColumnInt(2)});
}

// Inserts `claim` (ClaimTurn's row: an empty result).
Status InsertClaim(Connection& db, const TurnClaim& claim) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO turn_claims (owner, session_id, turn_id, first_seq, result, "
                 "claimed_at) VALUES (?, ?, ?, ?, '', ?)",
                 "claim the turn"));
  put.Bind(1, claim.key.owner);
  put.Bind(2, claim.key.session_id.view());
  put.Bind(3, claim.key.turn_id.view());
  put.Bind(4, claim.first_seq);
  put.Bind(5, claim.claimed_at);
  return put.Run("claim the turn");
}

}  // namespace

Result<TurnClaimOutcome> SqliteEpisodicStore::ClaimTurn(const TurnClaim& claim,
                                                        std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnClaim(claim, rows));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  TurnClaimOutcome out{.claim = claim};
  MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(db, claim.key));
  if (stored) {
    out.claim = std::move(*stored);
    return out;  // nothing written: the transaction rolls back
  }
  MNEMO_ASSIGN_OR_RETURN(out.rows, AppendTurnsLocked(rows));
  out.claimed = true;
  out.claim = TurnClaim{.key = claim.key,
                        .first_seq = out.rows.empty() ? -1 : out.rows.front().seq,
                        .claimed_at = claim.claimed_at};
  MNEMO_RETURN_IF_ERROR(InsertClaim(db, out.claim));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return out;
}

Result<RecordedTurn> SqliteEpisodicStore::RecordTurn(const std::optional<TurnClaim>& claim,
                                                     std::vector<TurnWrite> rows,
                                                     const TurnSegmentDecision& decide) {
  MNEMO_RETURN_IF_ERROR(ValidateRecordedTurn(claim, rows));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  RecordedTurn out;
  if (claim) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(db, claim->key));
    if (stored) {
      out.claim = std::move(*stored);
      return out;  // nothing written: the transaction rolls back
    }
  }
  // The rows move into the result; `rows` is not read after.
  MNEMO_ASSIGN_OR_RETURN(out.rows, AppendTurnsLocked(std::span<TurnWrite>(rows)));
  if (claim) {
    out.claim = TurnClaim{
        .key = claim->key, .first_seq = out.rows.front().seq, .claimed_at = claim->claimed_at};
    MNEMO_RETURN_IF_ERROR(InsertClaim(db, *out.claim));
  }
  MNEMO_ASSIGN_OR_RETURN(
      out.segment, StepSegmentIn(db, out.rows[0].owner, out.rows[0].session_id,
                                 [&](const SegmentView& view) { return decide(out.rows, view); }));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  out.stored = true;
  return out;
}

Result<bool> SqliteEpisodicStore::FinishTurnClaim(const TurnKey& key, std::string_view result) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(db, key));
  if (!stored)
    return NotFound("turn " + key.turn_id.str() + " of session " + key.session_id.str() +
                    " is not claimed");
  if (!stored->result.empty()) return false;
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("UPDATE turn_claims SET result = ? WHERE owner = ? AND session_id = ? AND "
                 "turn_id = ?",
                 "store the turn's result"));
  put.Bind(1, result);
  put.Bind(2, key.owner);
  put.Bind(3, key.session_id.view());
  put.Bind(4, key.turn_id.view());
  MNEMO_RETURN_IF_ERROR(put.Run("store the turn's result"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Result<std::optional<TurnClaim>> SqliteEpisodicStore::GetTurnClaim(const TurnKey& key) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  ReaderLease db = db_->AcquireReader();
  return ReadClaim(*db, key);
}

Result<std::vector<SegmentRow>> SqliteEpisodicStore::IdleOpenSegments(TimeMs before, int limit) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kSegmentColumns +
                                         " FROM segments WHERE status = 'open' AND "
                                         "last_turn_at < ? ORDER BY last_turn_at, id LIMIT ?",
                                     "find idle open segments"));
  s.Bind(1, before);
  s.Bind(2, static_cast<int64_t>(std::max(limit, 0)));
  return ReadAll<SegmentRow>(s, "find idle open segments", ReadSegment);
}

}  // namespace mnemo::storage::internal

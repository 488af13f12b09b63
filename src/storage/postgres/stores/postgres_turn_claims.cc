// Idempotent turns and idle segments on PostgreSQL (schema v2,
// docs/storage.md): `turn_claims` keyed by (owner, session_id, turn_id),
// written in the transaction that appends the turn's rows. Every write holds
// the schema's writer lock, so a claim is read and inserted without a race.
#include <string>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_episodic_sql.h"
#include "storage/postgres/stores/postgres_episodic_store.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

Result<std::optional<TurnClaim>> ReadClaim(PgConn& conn, const TurnKey& key) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn.ExecPrepared("SELECT first_seq, result, claimed_at FROM turn_claims WHERE "
                        "owner = $1 AND session_id = $2 AND turn_id = $3",
                        Params().Add(key.owner).Add(key.session_id.view()).Add(key.turn_id.view()),
                        "read the turn claim"));
  if (rows.empty()) return std::optional<TurnClaim>();
  return std::optional<TurnClaim>(TurnClaim{.key = key,
                                            .first_seq = rows.Int(0, 0),
                                            .result = std::string(rows.Text(0, 1)),
                                            .claimed_at = rows.Int(0, 2)});
}

// Inserts `claim` (ClaimTurn's row: an empty result).
Status InsertClaim(PgConn& conn, const TurnClaim& claim) {
  return conn
      .ExecPrepared(
          "INSERT INTO turn_claims (owner, session_id, turn_id, first_seq, result, "
          "claimed_at) VALUES ($1, $2, $3, $4, '', $5)",
          Params()
              .Add(claim.key.owner)
              .Add(claim.key.session_id.view())
              .Add(claim.key.turn_id.view())
              .Add(claim.first_seq)
              .Add(claim.claimed_at),
          "claim the turn")
      .status();
}

}  // namespace

Result<TurnClaimOutcome> PostgresEpisodicStore::ClaimTurn(const TurnClaim& claim,
                                                          std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnClaim(claim, rows));
  const std::vector<pg::IndexedText> texts = pg::IndexTurnTexts(rows);
  // Copied once (the caller keeps its writes), not on every attempt: each
  // attempt stores these rows in place, and they become the result.
  std::vector<TurnRow> inserted = pg::CopyTurnRows(rows);
  TurnClaimOutcome out{.claim = claim};
  MNEMO_RETURN_IF_ERROR(Write("claim the turn", [&](PgConn& conn) -> Status {
    out = TurnClaimOutcome{.claim = claim};  // a retried attempt starts afresh
    MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(conn, claim.key));
    if (stored) {
      out.claim = std::move(*stored);
      return Status::Ok();  // nothing written
    }
    MNEMO_RETURN_IF_ERROR(pg::InsertTurnsIn(conn, inserted, rows, texts));
    out.claimed = true;
    out.claim = TurnClaim{.key = claim.key,
                          .first_seq = inserted.empty() ? -1 : inserted.front().seq,
                          .claimed_at = claim.claimed_at};
    return InsertClaim(conn, out.claim);
  }));
  if (out.claimed) out.rows = std::move(inserted);
  return out;
}

Result<RecordedTurn> PostgresEpisodicStore::RecordTurn(const std::optional<TurnClaim>& claim,
                                                       std::vector<TurnWrite> rows,
                                                       const TurnSegmentDecision& decide) {
  MNEMO_RETURN_IF_ERROR(ValidateRecordedTurn(claim, rows));
  const std::vector<pg::IndexedText> texts = pg::IndexTurnTexts(rows);
  // The rows move out of their writes once, here: a retried attempt stores
  // the same rows again (new seqs and ids), and they become the result.
  std::vector<TurnRow> stored;
  stored.reserve(rows.size());
  for (TurnWrite& w : rows) stored.push_back(std::move(w.row));
  RecordedTurn out;
  MNEMO_RETURN_IF_ERROR(Write("record the turn", [&](PgConn& conn) -> Status {
    out = RecordedTurn();  // a retried attempt starts afresh
    if (claim) {
      MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(conn, claim->key));
      if (stored) {
        out.claim = std::move(*stored);
        return Status::Ok();  // nothing written
      }
    }
    MNEMO_RETURN_IF_ERROR(pg::InsertTurnsIn(conn, stored, rows, texts));
    if (claim) {
      out.claim = TurnClaim{
          .key = claim->key, .first_seq = stored.front().seq, .claimed_at = claim->claimed_at};
      MNEMO_RETURN_IF_ERROR(InsertClaim(conn, *out.claim));
    }
    MNEMO_ASSIGN_OR_RETURN(
        out.segment, StepSegmentIn(conn, stored[0].owner, stored[0].session_id,
                                   [&](const SegmentView& view) { return decide(stored, view); }));
    out.stored = true;
    return Status::Ok();
  }));
  if (out.stored) out.rows = std::move(stored);
  return out;
}

Result<bool> PostgresEpisodicStore::FinishTurnClaim(const TurnKey& key, std::string_view result) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  bool stored_now = false;
  bool claimed = false;
  MNEMO_RETURN_IF_ERROR(Write("store the turn's result", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(std::optional<TurnClaim> stored, ReadClaim(conn, key));
    claimed = stored.has_value();
    stored_now = claimed && stored->result.empty();
    if (!stored_now) return Status::Ok();
    return conn
        .ExecPrepared(
            "UPDATE turn_claims SET result = $1 WHERE owner = $2 AND session_id = $3 AND "
            "turn_id = $4",
            Params().Add(result).Add(key.owner).Add(key.session_id.view()).Add(key.turn_id.view()),
            "store the turn's result")
        .status();
  }));
  if (!claimed) {
    return NotFound("turn " + key.turn_id.str() + " of session " + key.session_id.str() +
                    " is not claimed");
  }
  return stored_now;
}

Result<std::optional<TurnClaim>> PostgresEpisodicStore::GetTurnClaim(const TurnKey& key) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnKey(key));
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  return ReadClaim(*conn, key);
}

Result<std::vector<SegmentRow>> PostgresEpisodicStore::IdleOpenSegments(TimeMs before, int limit) {
  if (limit <= 0) return std::vector<SegmentRow>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + pg::kSegmentColumns +
                     " FROM segments s WHERE s.status = 'open' AND s.last_turn_at < $1 "
                     "ORDER BY s.last_turn_at, s.id LIMIT $2",
                 Params().Add(before).Add(static_cast<int64_t>(limit)), "find idle open segments"));
  std::vector<SegmentRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(pg::ReadSegment(rows, i));
  return out;
}

}  // namespace mnemo::storage::internal

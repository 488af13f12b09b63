// Episodic turns on SQLite (schema v4, docs/storage.md).
#include <algorithm>
#include <mutex>
#include <string>

#include "storage/entry_rules.h"
#include "storage/episodic_rules.h"
#include "storage/sqlite/entry_sql.h"
#include "storage/sqlite/fts_tokenizer.h"
#include "storage/sqlite/sqlite_backend.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kTurnColumns =
    "t.id, t.owner, t.session_id, t.seq, t.role, t.content, t.lesson, t.tool_calls_json, "
    "t.timestamp_ms, t.cost_microdollars, t.agent_id";
constexpr int kTurnColumnCount = 11;

TurnRow ReadTurn(const Statement& s) {
  return TurnRow{.id = s.ColumnInt(0),
                 .owner = std::string(s.ColumnText(1)),
                 .session_id = std::string(s.ColumnText(2)),
                 .seq = s.ColumnInt(3),
                 .role = std::string(s.ColumnText(4)),
                 .content = std::string(s.ColumnText(5)),
                 .lesson = std::string(s.ColumnText(6)),
                 .tool_calls_json = std::string(s.ColumnText(7)),
                 .timestamp_ms = s.ColumnInt(8),
                 .cost_microdollars = s.ColumnInt(9),
                 .agent_id = std::string(s.ColumnText(10))};
}

}  // namespace

Result<std::vector<TurnRow>> SqliteBackend::AppendTurns(std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  std::vector<TurnRow> out;
  if (rows.empty()) return out;
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  int64_t seq = 0;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement last,
        db.Prepare("SELECT COALESCE(MAX(seq) + 1, 0) FROM turns WHERE owner = ? AND session_id = ?",
                   "find the session's next sequence number"));
    last.Bind(1, rows[0].row.owner);
    last.Bind(2, rows[0].row.session_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, last.Step("find the session's next sequence number"));
    if (found) seq = last.ColumnInt(0);
  }
  for (const TurnWrite& w : rows) {
    TurnRow row = w.row;
    row.seq = seq++;
    int64_t id = 0;
    {
      MNEMO_ASSIGN_OR_RETURN(
          Statement next,
          db.Prepare("SELECT COALESCE(MAX(id), 0) + 1 FROM turns", "allocate a turn id"));
      MNEMO_ASSIGN_OR_RETURN(bool found, next.Step("allocate a turn id"));
      if (!found) return Internal("allocate a turn id: no result");
      id = std::max(next.ColumnInt(0), next_turn_id_);
      next_turn_id_ = id + 1;
    }
    int64_t length = 0;
    {
      MNEMO_ASSIGN_OR_RETURN(Statement index,
                             db.Prepare("INSERT INTO turns_fts (rowid, body) VALUES (?, ?)",
                                        "add the turn to the text index"));
      index.Bind(1, id);
      index.Bind(2, w.search_text);
      IndexedLengthCapture capture;
      MNEMO_RETURN_IF_ERROR(index.Run("add the turn to the text index"));
      length = capture.tokens();
    }
    MNEMO_ASSIGN_OR_RETURN(
        Statement put,
        db.Prepare("INSERT INTO turns (id, owner, session_id, seq, role, content, lesson, "
                   "tool_calls_json, timestamp_ms, cost_microdollars, agent_id, search_text, "
                   "doc_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                   "store the turn"));
    put.Bind(1, id);
    put.Bind(2, row.owner);
    put.Bind(3, row.session_id);
    put.Bind(4, row.seq);
    put.Bind(5, row.role);
    put.Bind(6, row.content);
    put.Bind(7, row.lesson);
    put.Bind(8, row.tool_calls_json);
    put.Bind(9, row.timestamp_ms);
    put.Bind(10, row.cost_microdollars);
    put.Bind(11, row.agent_id);
    put.Bind(12, w.search_text);
    put.Bind(13, length);
    MNEMO_RETURN_IF_ERROR(put.Run("store the turn"));
    row.id = id;
    out.push_back(std::move(row));
  }
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return out;
}

Result<std::vector<TurnRow>> SqliteBackend::SessionTurns(std::string_view owner,
                                                         std::string_view session_id,
                                                         int64_t from_seq, int64_t to_seq) {
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kTurnColumns +
                                         " FROM turns t WHERE t.owner = ? AND t.session_id = ? AND "
                                         "t.seq BETWEEN ? AND ? ORDER BY t.seq",
                                     "read the session's turns"));
  s.Bind(1, owner);
  s.Bind(2, session_id);
  s.Bind(3, from_seq);
  s.Bind(4, to_seq);
  std::vector<TurnRow> rows;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the session's turns"));
    if (!row) break;
    rows.push_back(ReadTurn(s));
  }
  return rows;
}

Result<std::vector<TurnHit>> SqliteBackend::SearchTurns(const TurnQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<TurnHit>();
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  ReaderLease db = AcquireReader();
  // CROSS JOIN keeps turns_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare(std::string("SELECT ") + kTurnColumns +
                                   ", mnemo_score(turns_fts, t.doc_length) AS score FROM turns_fts "
                                   "CROSS JOIN turns t ON t.id = turns_fts.rowid "
                                   "WHERE turns_fts MATCH ?1 AND (?2 OR t.owner = ?3) AND "
                                   "(?4 IS NULL OR t.session_id = ?4) "
                                   "ORDER BY score DESC, t.timestamp_ms DESC, t.id LIMIT ?5",
                               "search turns"));
  s.Bind(1, match);
  s.Bind(2, static_cast<int64_t>(query.all ? 1 : 0));
  s.Bind(3, query.owner);
  if (query.session_id) {
    s.Bind(4, *query.session_id);
  } else {
    s.BindNull(4);
  }
  s.Bind(5, static_cast<int64_t>(query.limit));
  std::vector<TurnHit> hits;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("search turns"));
    if (!row) break;
    hits.push_back({.row = ReadTurn(s), .score = s.ColumnDouble(kTurnColumnCount)});
  }
  return hits;
}

}  // namespace mnemo::storage::internal

// Context events (schema v8) on SQLite (docs/storage.md): rows in
// `context_events`, their computation text in the contentless
// `context_events_fts`, the next seq of each session in `context_sessions`.
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "storage/rules/context_event_rules.h"
#include "storage/rules/entry_rules.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/stores/sqlite_context_event_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kEventColumns =
    "c.id, c.owner, c.session_id, c.seq, c.event_json, c.search_text, c.timestamp_ms, "
    "c.created_at";
constexpr int kEventColumnCount = 8;

ContextEventRow ReadEvent(const Statement& s) {
  return ContextEventRow{.id = s.ColumnInt(0),
                         .owner = std::string(s.ColumnText(1)),
                         .session_id = std::string(s.ColumnText(2)),
                         .seq = s.ColumnInt(3),
                         .event_json = std::string(s.ColumnText(4)),
                         .search_text = std::string(s.ColumnText(5)),
                         .timestamp_ms = s.ColumnInt(6),
                         .created_at = s.ColumnInt(7)};
}

// Deletes the rows `select` (bound, selecting id and search_text) finds,
// with their index rows, inside the caller's transaction; returns how many.
Result<int64_t> DeleteSelected(Connection& db, Statement& select) {
  std::vector<std::pair<int64_t, std::string>> doomed;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, select.Step("find context events to delete"));
    if (!row) break;
    doomed.emplace_back(select.ColumnInt(0), std::string(select.ColumnText(1)));
  }
  for (const auto& [id, search_text] : doomed) {
    MNEMO_RETURN_IF_ERROR(UnindexFtsRow(db, "context_events_fts", id, {{"body", search_text}}));
    MNEMO_ASSIGN_OR_RETURN(Statement del, db.Prepare("DELETE FROM context_events WHERE id = ?",
                                                     "delete a context event"));
    del.Bind(1, id);
    MNEMO_RETURN_IF_ERROR(del.Run("delete a context event"));
  }
  return static_cast<int64_t>(doomed.size());
}

}  // namespace

Status InsertContextEventIn(Connection& db, ContextEventRow& out) {
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement put,
        db.Prepare("INSERT INTO context_events (owner, session_id, seq, event_json, search_text, "
                   "timestamp_ms, created_at, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                   "store the context event"));
    put.Bind(1, out.owner);
    put.Bind(2, out.session_id);
    put.Bind(3, out.seq);
    put.Bind(4, out.event_json);
    put.Bind(5, out.search_text);
    put.Bind(6, out.timestamp_ms);
    put.Bind(7, out.created_at);
    if (out.id > 0) {
      put.Bind(8, out.id);
    } else {
      put.BindNull(8);
    }
    MNEMO_RETURN_IF_ERROR(put.Run("store the context event"));
  }
  out.id = sqlite3_last_insert_rowid(db.handle());
  MNEMO_ASSIGN_OR_RETURN(const int64_t length, IndexFtsRow(db, "context_events_fts", out.id,
                                                           {{"body", out.search_text}}));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement len,
                           db.Prepare("UPDATE context_events SET doc_length = ? WHERE id = ?",
                                      "record the event's length"));
    len.Bind(1, length);
    len.Bind(2, out.id);
    MNEMO_RETURN_IF_ERROR(len.Run("record the event's length"));
  }
  return Status::Ok();
}

SqliteContextEventStore::SqliteContextEventStore(std::shared_ptr<SqliteDatabase> db)
    : db_(std::move(db)) {}

Result<ContextEventRow> SqliteContextEventStore::AppendContextEvent(const ContextEventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateContextEvent(row));
  ContextEventRow out = row;
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement next,
        db.Prepare("INSERT INTO context_sessions (owner, session_id, next_seq) VALUES (?1, ?2, 1) "
                   "ON CONFLICT (owner, session_id) DO UPDATE SET next_seq = next_seq + 1 "
                   "RETURNING next_seq - 1",
                   "allocate the event's sequence number"));
    next.Bind(1, out.owner);
    next.Bind(2, out.session_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, next.Step("allocate the event's sequence number"));
    if (!found) return Internal("allocate the event's sequence number: no result");
    out.seq = next.ColumnInt(0);
    MNEMO_RETURN_IF_ERROR(next.Run("allocate the event's sequence number"));
  }
  MNEMO_RETURN_IF_ERROR(InsertContextEventIn(db, out));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return out;
}

Result<std::vector<ContextEventRow>> SqliteContextEventStore::ContextEvents(
    std::string_view owner, const SessionId& session) {
  const std::string_view session_id = session.view();
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kEventColumns +
                                         " FROM context_events c WHERE c.owner = ? AND "
                                         "c.session_id = ? ORDER BY c.seq",
                                     "read the session's context events"));
  s.Bind(1, owner);
  s.Bind(2, session_id);
  return ReadAll<ContextEventRow>(s, "read the session's context events", ReadEvent);
}

Result<std::vector<ContextEventRow>> SqliteContextEventStore::ContextEventsAfter(int64_t after_id,
                                                                                 int limit) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kEventColumns +
                                         " FROM context_events c WHERE c.id > ? ORDER BY c.id "
                                         "LIMIT ?",
                                     "read context events by id"));
  s.Bind(1, after_id);
  s.Bind(2, static_cast<int64_t>(limit));
  return ReadAll<ContextEventRow>(s, "read context events by id", ReadEvent);
}

Result<std::vector<ContextEventHit>> SqliteContextEventStore::SearchContextEvents(
    const ContextEventQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<ContextEventHit>();
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  ReaderLease db = db_->AcquireReader();
  // CROSS JOIN keeps context_events_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare(std::string("SELECT ") + kEventColumns +
                                   ", mnemo_score(context_events_fts, c.doc_length) AS score "
                                   "FROM context_events_fts CROSS JOIN context_events c "
                                   "ON c.id = context_events_fts.rowid "
                                   "WHERE context_events_fts MATCH ?1 AND (?2 OR c.owner = ?3) AND "
                                   "(?4 IS NULL OR c.session_id = ?4) "
                                   "ORDER BY score DESC, c.seq DESC, c.id LIMIT ?5",
                               "search context events"));
  s.Bind(1, match);
  s.Bind(2, static_cast<int64_t>(query.all ? 1 : 0));
  s.Bind(3, query.owner);
  if (query.session_id) {
    s.Bind(4, query.session_id->view());
  } else {
    s.BindNull(4);
  }
  s.Bind(5, static_cast<int64_t>(query.limit));
  return ReadAll<ContextEventHit>(s, "search context events", [](const Statement& row) {
    return ContextEventHit{.row = ReadEvent(row), .score = row.ColumnDouble(kEventColumnCount)};
  });
}

Result<int64_t> SqliteContextEventStore::DeleteContextEventsUpTo(std::string_view owner,
                                                                 const SessionId& session,
                                                                 int64_t up_to_seq) {
  const std::string_view session_id = session.view();
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(
      Statement select,
      db.Prepare("SELECT id, search_text FROM context_events WHERE owner = ? AND session_id = ? "
                 "AND seq <= ?",
                 "find context events to delete"));
  select.Bind(1, owner);
  select.Bind(2, session_id);
  select.Bind(3, up_to_seq);
  MNEMO_ASSIGN_OR_RETURN(int64_t deleted, DeleteSelected(db, select));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return deleted;
}

Result<int64_t> SqliteContextEventStore::DeleteContextEventsByIds(std::span<const int64_t> ids) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  int64_t deleted = 0;
  for (const int64_t id : ids) {
    MNEMO_ASSIGN_OR_RETURN(Statement select,
                           db.Prepare("SELECT id, search_text FROM context_events WHERE id = ?",
                                      "find context events to delete"));
    select.Bind(1, id);
    MNEMO_ASSIGN_OR_RETURN(int64_t n, DeleteSelected(db, select));
    deleted += n;
  }
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return deleted;
}

}  // namespace mnemo::storage::internal

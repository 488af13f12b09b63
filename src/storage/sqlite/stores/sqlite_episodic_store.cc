// Episodic turns (schema v4), segments, events and profile facets (schema
// v5) on SQLite (docs/storage.md).
#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <utility>

#include "storage/rules/entry_rules.h"
#include "storage/rules/episodic_rules.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/fts/recap_index.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/episodic_sql.h"
#include "storage/sqlite/rows/tags_json.h"
#include "storage/sqlite/stores/row_drops.h"
#include "storage/sqlite/stores/sqlite_episodic_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

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

// The shortest decimal that reads back as `value`, bound as text and written
// with CAST(? AS REAL): Statement binds no doubles. Confidences are short
// decimals (0.4, 0.6, 0.9), which SQLite reads back exactly.
std::string DecimalText(double value) {
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return ec == std::errc() ? std::string(buffer.data(), end) : std::string("0");
}

constexpr const char* kEventColumns =
    "e.id, e.owner, e.session_id, e.segment_id, e.type, e.text, e.confidence, e.created_at, "
    "e.closed_at";
constexpr int kEventColumnCount = 9;

EventRow ReadEvent(const Statement& s) {
  return EventRow{.id = std::string(s.ColumnText(0)),
                  .owner = std::string(s.ColumnText(1)),
                  .session_id = std::string(s.ColumnText(2)),
                  .segment_id = std::string(s.ColumnText(3)),
                  .type = std::string(s.ColumnText(4)),
                  .text = std::string(s.ColumnText(5)),
                  .confidence = s.ColumnDouble(6),
                  .created_at = s.ColumnInt(7),
                  .closed_at = s.ColumnInt(8)};
}

constexpr const char* kFacetColumns =
    "owner, facet_type, key, value, confidence, evidence_count, segment_ids, updated_at, "
    "valid_from, evidence, history, statements";

Result<FacetRow> ReadFacet(const Statement& s) {
  std::optional<std::vector<std::string>> ids = DecodeTags(s.ColumnText(6));
  if (!ids) return Internal("a facet's segment_ids is not a JSON array of strings");
  std::optional<std::vector<FacetValue>> history = DecodeFacetHistory(s.ColumnText(10));
  if (!history) return Internal("a facet's history is not a JSON array of five strings a value");
  std::optional<std::vector<FacetStatement>> statements;
  if (!s.ColumnIsNull(11)) {
    statements = DecodeFacetStatements(s.ColumnText(11));
    if (!statements) {
      return Internal("a facet's statements are not a JSON array of eight strings a statement");
    }
  }
  return FacetRow{.owner = std::string(s.ColumnText(0)),
                  .facet_type = std::string(s.ColumnText(1)),
                  .key = std::string(s.ColumnText(2)),
                  .value = std::string(s.ColumnText(3)),
                  .confidence = s.ColumnDouble(4),
                  .evidence_count = s.ColumnInt(5),
                  .segment_ids = std::move(*ids),
                  .updated_at = s.ColumnInt(7),
                  .valid_from = s.ColumnInt(8),
                  .evidence = std::string(s.ColumnText(9)),
                  .history = std::move(*history),
                  .statements = std::move(statements)};
}

}  // namespace

Status InsertTurnIn(Connection& db, const TurnRow& row, std::string_view search_text) {
  MNEMO_ASSIGN_OR_RETURN(int64_t length,
                         IndexFtsRow(db, "turns_fts", row.id, {{"body", search_text}}));
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO turns (id, owner, session_id, seq, role, content, lesson, "
                 "tool_calls_json, timestamp_ms, cost_microdollars, agent_id, search_text, "
                 "doc_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
                 "store the turn"));
  put.Bind(1, row.id);
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
  if (std::optional<std::string_view> stored = StoredSearchText(row, search_text)) {
    put.Bind(12, *stored);
  } else {
    put.BindNull(12);
  }
  put.Bind(13, length);
  MNEMO_RETURN_IF_ERROR(put.Run("store the turn"));
  return Status::Ok();
}

SqliteEpisodicStore::SqliteEpisodicStore(std::shared_ptr<SqliteDatabase> db) : db_(std::move(db)) {}

Result<std::vector<TurnRow>> SqliteEpisodicStore::AppendTurns(std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  if (rows.empty()) return std::vector<TurnRow>();
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  MNEMO_ASSIGN_OR_RETURN(std::vector<TurnRow> out, AppendTurnsLocked(rows));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return out;
}

template <typename Write>
Result<std::vector<TurnRow>> SqliteEpisodicStore::AppendTurnsLocked(std::span<Write> rows) {
  std::vector<TurnRow> out;
  if (rows.empty()) return out;
  Connection& db = db_->writer();
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
  for (Write& w : rows) {
    TurnRow row = std::move(w.row);  // a copy when Write is const
    row.seq = seq++;
    int64_t id = 0;
    {
      MNEMO_ASSIGN_OR_RETURN(
          Statement next,
          db.Prepare("SELECT COALESCE(MAX(id), 0) + 1 FROM turns", "allocate a turn id"));
      MNEMO_ASSIGN_OR_RETURN(bool found, next.Step("allocate a turn id"));
      if (!found) return Internal("allocate a turn id: no result");
      id = std::max(next.ColumnInt(0), db_->writer_state().next_turn_id);
      db_->writer_state().next_turn_id = id + 1;
    }
    row.id = id;
    MNEMO_RETURN_IF_ERROR(InsertTurnIn(db, row, w.SearchText(row)));
    row.id = id;
    out.push_back(std::move(row));
  }
  return out;
}

template Result<std::vector<TurnRow>> SqliteEpisodicStore::AppendTurnsLocked(
    std::span<const TurnWrite> rows);
template Result<std::vector<TurnRow>> SqliteEpisodicStore::AppendTurnsLocked(
    std::span<TurnWrite> rows);

Result<std::vector<TurnRow>> SqliteEpisodicStore::SessionTurns(std::string_view owner,
                                                               const SessionId& session_id,
                                                               int64_t from_seq, int64_t to_seq) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kTurnColumns +
                                         " FROM turns t WHERE t.owner = ? AND t.session_id = ? AND "
                                         "t.seq BETWEEN ? AND ? ORDER BY t.seq",
                                     "read the session's turns"));
  s.Bind(1, owner);
  s.Bind(2, session_id.view());
  s.Bind(3, from_seq);
  s.Bind(4, to_seq);
  return ReadAll<TurnRow>(s, "read the session's turns", ReadTurn);
}

Result<std::vector<TurnHit>> SqliteEpisodicStore::SearchTurns(const TurnQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<TurnHit>();
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  ReaderLease db = db_->AcquireReader();
  // One owner's turns: the statistics are that owner's too.
  FtsScope scope{.fts = "turns_fts", .table = "turns t", .alias = "t", .rowid_column = "t.id"};
  if (!query.all) {
    scope.where = "t.owner = ?";
    scope.params = {query.owner};
  }
  MNEMO_ASSIGN_OR_RETURN(const std::string stats, ScopeStats(*db, scope, terms));
  // CROSS JOIN keeps turns_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(
          std::string("SELECT ") + kTurnColumns +
              ", mnemo_score(turns_fts, t.doc_length, ?6) AS score, mnemo_matched(turns_fts) "
              "FROM turns_fts "
              "CROSS JOIN turns t ON t.id = turns_fts.rowid "
              "WHERE turns_fts MATCH ?1 AND (?2 OR t.owner = ?3) AND "
              "(?4 IS NULL OR t.session_id = ?4) AND "
              "(?7 IS NULL OR t.timestamp_ms >= ?7) AND (?8 IS NULL OR t.timestamp_ms < ?8) "
              "AND (?9 IS NULL OR t.agent_id = ?9) "
              "ORDER BY score DESC, t.timestamp_ms DESC, t.id LIMIT ?5",
          "search turns"));
  s.Bind(1, match);
  s.Bind(2, static_cast<int64_t>(query.all ? 1 : 0));
  s.Bind(3, query.owner);
  if (query.session_id) {
    s.Bind(4, query.session_id->view());
  } else {
    s.BindNull(4);
  }
  s.Bind(5, static_cast<int64_t>(query.limit));
  BindScopeStats(s, 6, stats);
  BindOptional(s, 7, query.since);
  BindOptional(s, 8, query.until);
  BindOptional(s, 9, query.agent_id);
  return ReadAll<TurnHit>(s, "search turns", [](const Statement& row) {
    return TurnHit{.row = ReadTurn(row),
                   .score = row.ColumnDouble(kTurnColumnCount),
                   .matched_terms = row.ColumnInt(kTurnColumnCount + 1)};
  });
}

Result<std::vector<TurnRow>> SqliteEpisodicStore::TurnsAfter(int64_t after_id, int limit) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(std::string("SELECT ") + kTurnColumns +
                                                      " FROM turns t WHERE t.id > ? ORDER BY t.id "
                                                      "LIMIT ?",
                                                  "read turns"));
  s.Bind(1, after_id);
  s.Bind(2, static_cast<int64_t>(std::max(limit, 0)));
  return ReadAll<TurnRow>(s, "read turns", ReadTurn);
}

Status SqliteEpisodicStore::ReplaceTurnSearchText(int64_t id, std::string_view search_text) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  std::string old_text;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find, db.Prepare("SELECT COALESCE(search_text, content) FROM turns WHERE id = ?",
                                   "find the turn"));
    find.Bind(1, id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the turn"));
    if (!found) return NotFound("no turn " + std::to_string(id));
    old_text = std::string(find.ColumnText(0));
  }
  MNEMO_RETURN_IF_ERROR(UnindexFtsRow(db, "turns_fts", id, {{"body", old_text}}));
  MNEMO_ASSIGN_OR_RETURN(int64_t length, IndexFtsRow(db, "turns_fts", id, {{"body", search_text}}));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement put,
        db.Prepare("UPDATE turns SET search_text = NULLIF(?1, content), doc_length = ?2 "
                   "WHERE id = ?3",
                   "replace the turn's search text"));
    put.Bind(1, search_text);
    put.Bind(2, length);
    put.Bind(3, id);
    MNEMO_RETURN_IF_ERROR(put.Run("replace the turn's search text"));
  }
  return txn.Commit();
}

Result<std::optional<SegmentRow>> SqliteEpisodicStore::OpenSegment(std::string_view owner,
                                                                   const SessionId& session_id) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kSegmentColumns +
                                         " FROM segments WHERE owner = ? AND session_id = ? AND "
                                         "status = 'open'",
                                     "find the session's open segment"));
  s.Bind(1, owner);
  s.Bind(2, session_id.view());
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("find the session's open segment"));
  if (!found) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(ReadSegment(s));
}

// PutSegment inside the caller's write transaction.
Status PutSegmentIn(Connection& db, const SegmentRow& seg) {
  MNEMO_RETURN_IF_ERROR(ValidateSegment(seg));
  std::optional<std::string> stored_status;
  std::optional<std::string> open_id;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find, db.Prepare("SELECT status FROM segments WHERE id = ?", "find the segment"));
    find.Bind(1, seg.id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the segment"));
    if (found) stored_status = std::string(find.ColumnText(0));
  }
  {
    MNEMO_ASSIGN_OR_RETURN(Statement open, db.Prepare("SELECT id FROM segments WHERE owner = ? AND "
                                                      "session_id = ? AND status = 'open'",
                                                      "find the session's open segment"));
    open.Bind(1, seg.owner);
    open.Bind(2, seg.session_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, open.Step("find the session's open segment"));
    if (found) open_id = std::string(open.ColumnText(0));
  }
  MNEMO_RETURN_IF_ERROR(CheckSegmentPut(seg, stored_status, open_id));
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare(std::string("INSERT INTO segments (") + kSegmentColumns +
                     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14) "
                     "ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, "
                     "session_id = excluded.session_id, status = excluded.status, "
                     "first_seq = excluded.first_seq, last_seq = excluded.last_seq, "
                     "turn_count = excluded.turn_count, started_at = excluded.started_at, "
                     "last_turn_at = excluded.last_turn_at, closed_at = excluded.closed_at, "
                     "centroid = excluded.centroid, recap = excluded.recap, "
                     "recap_source = excluded.recap_source, "
                     "recap_attempts = excluded.recap_attempts",
                 "store the segment"));
  put.Bind(1, seg.id);
  put.Bind(2, seg.owner);
  put.Bind(3, seg.session_id);
  put.Bind(4, seg.status);
  put.Bind(5, seg.first_seq);
  put.Bind(6, seg.last_seq);
  put.Bind(7, seg.turn_count);
  put.Bind(8, seg.started_at);
  put.Bind(9, seg.last_turn_at);
  put.Bind(10, seg.closed_at);
  std::string buffer;
  const std::string_view centroid = EncodeVector(seg.centroid, buffer);
  if (centroid.empty()) {
    put.BindNull(11);
  } else {
    put.BindBlob(11, centroid);
  }
  put.Bind(12, seg.recap);
  put.Bind(13, seg.recap_source);
  put.Bind(14, seg.recap_attempts);
  MNEMO_RETURN_IF_ERROR(put.Run("store the segment"));
  return SyncRecapIndex(db, seg.id, seg.recap);
}

namespace {

// CloseSegment inside the caller's write transaction.
Result<bool> CloseSegmentIn(Connection& db, std::string_view id, TimeMs closed_at) {
  MNEMO_ASSIGN_OR_RETURN(Statement close,
                         db.Prepare("UPDATE segments SET status = 'closed', closed_at = ? "
                                    "WHERE id = ? AND status = 'open'",
                                    "close the segment"));
  close.Bind(1, closed_at);
  close.Bind(2, id);
  MNEMO_RETURN_IF_ERROR(close.Run("close the segment"));
  return sqlite3_changes(db.handle()) > 0;
}

}  // namespace

Status SqliteEpisodicStore::PutSegment(const SegmentRow& seg) {
  MNEMO_RETURN_IF_ERROR(ValidateSegment(seg));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_RETURN_IF_ERROR(PutSegmentIn(db, seg));
  return txn.Commit();
}

Result<bool> SqliteEpisodicStore::CloseSegment(std::string_view id, TimeMs closed_at) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(bool closed, CloseSegmentIn(db, id, closed_at));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return closed;
}

Result<SegmentChange> StepSegmentIn(Connection& db, std::string_view owner,
                                    std::string_view session_id,
                                    const EpisodicStore::SegmentDecision& decide) {
  SegmentView view;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement s,
                           db.Prepare(std::string("SELECT ") + kSegmentColumns +
                                          " FROM segments WHERE owner = ? AND session_id = ? AND "
                                          "status = 'open'",
                                      "find the session's open segment"));
    s.Bind(1, owner);
    s.Bind(2, session_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("find the session's open segment"));
    if (found) view.open = ReadSegment(s);
  }
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db.Prepare("SELECT max(last_seq) FROM segments WHERE owner = ? AND session_id = ?",
                   "find the session's last segmented turn"));
    s.Bind(1, owner);
    s.Bind(2, session_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("find the session's last segmented turn"));
    if (found && !s.ColumnIsNull(0)) view.next_seq = s.ColumnInt(0) + 1;
  }
  MNEMO_ASSIGN_OR_RETURN(SegmentChange change, decide(view));
  if (change.close_open && view.open) {
    MNEMO_ASSIGN_OR_RETURN(bool closed, CloseSegmentIn(db, view.open->id, change.closed_at));
    change.close_open = closed;
  } else {
    change.close_open = false;
  }
  if (change.put) MNEMO_RETURN_IF_ERROR(PutSegmentIn(db, *change.put));
  return change;
}

Result<SegmentChange> SqliteEpisodicStore::StepSegment(std::string_view owner,
                                                       const SessionId& session_id,
                                                       const SegmentDecision& decide) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(SegmentChange change, StepSegmentIn(db, owner, session_id.view(), decide));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return change;
}

Result<std::optional<SegmentRow>> SqliteEpisodicStore::GetSegment(std::string_view id) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(std::string("SELECT ") + kSegmentColumns +
                                                      " FROM segments WHERE id = ?",
                                                  "read the segment"));
  s.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("read the segment"));
  if (!found) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(ReadSegment(s));
}

Result<std::vector<SegmentRow>> SqliteEpisodicStore::Segments(
    bool all, std::string_view owner, const std::optional<SessionId>& session_id) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kSegmentColumns +
                                         " FROM segments WHERE (?1 OR owner = ?2) AND "
                                         "(?3 IS NULL OR session_id = ?3) ORDER BY started_at, id",
                                     "list segments"));
  s.Bind(1, static_cast<int64_t>(all ? 1 : 0));
  s.Bind(2, owner);
  if (session_id) {
    s.Bind(3, session_id->view());
  } else {
    s.BindNull(3);
  }
  return ReadAll<SegmentRow>(s, "list segments", ReadSegment);
}

Result<std::vector<SegmentRow>> SqliteEpisodicStore::SegmentsNeedingRecap(int limit,
                                                                          int64_t max_attempts) {
  if (limit <= 0) return std::vector<SegmentRow>();
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kSegmentColumns +
                                         " FROM segments WHERE status = 'closed' AND "
                                         "recap_source = 'extractive' AND recap_attempts < ? "
                                         "ORDER BY closed_at, id LIMIT ?",
                                     "find segments to re-summarise"));
  s.Bind(1, max_attempts);
  s.Bind(2, static_cast<int64_t>(limit));
  return ReadAll<SegmentRow>(s, "find segments to re-summarise", ReadSegment);
}

Result<bool> AddEventIn(Connection& db, const EventRow& e) {
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find, db.Prepare("SELECT 1 FROM events WHERE owner = ? AND type = ? AND text = ?",
                                   "find an identical event"));
    find.Bind(1, e.owner);
    find.Bind(2, e.type);
    find.Bind(3, e.text);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find an identical event"));
    if (found) return false;
  }
  MNEMO_ASSIGN_OR_RETURN(const int64_t rowid, NextRowid(db, "events"));
  MNEMO_ASSIGN_OR_RETURN(int64_t length, IndexFtsRow(db, "events_fts", rowid, {{"body", e.text}}));
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO events (rowid, id, owner, session_id, segment_id, type, text, "
                 "confidence, created_at, doc_length, closed_at) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CAST(?8 AS REAL), ?9, ?10, ?11)",
                 "store the event"));
  const std::string confidence = DecimalText(e.confidence);
  put.Bind(1, rowid);
  put.Bind(2, e.id);
  put.Bind(3, e.owner);
  put.Bind(4, e.session_id);
  put.Bind(5, e.segment_id);
  put.Bind(6, e.type);
  put.Bind(7, e.text);
  put.Bind(8, confidence);
  put.Bind(9, e.created_at);
  put.Bind(10, length);
  put.Bind(11, e.closed_at);
  MNEMO_RETURN_IF_ERROR(put.Run("store the event"));
  return true;
}

Result<int64_t> SqliteEpisodicStore::AddEvents(std::span<const EventRow> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(rows));
  if (rows.empty()) return int64_t{0};
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  int64_t added = 0;
  for (const EventRow& e : rows) {
    MNEMO_ASSIGN_OR_RETURN(const bool stored, AddEventIn(db, e));
    if (stored) ++added;
  }
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return added;
}

Result<std::vector<EventHit>> SqliteEpisodicStore::SearchEvents(const EventQuery& query) {
  if (query.limit <= 0) return std::vector<EventHit>();
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  // ?1 the match, ?2 the type (NULL: any), ?3 all owners, ?4 the owner, ?5 the limit.
  constexpr const char* kFilter = "(?2 IS NULL OR e.type = ?2) AND (?3 OR e.owner = ?4)";
  ReaderLease db = db_->AcquireReader();
  // CROSS JOIN keeps events_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      terms.empty()
          ? db->Prepare(std::string("SELECT ") + kEventColumns + ", 0.0 FROM events e WHERE " +
                            kFilter + " ORDER BY e.created_at DESC, e.id LIMIT ?5",
                        "list events")
          : db->Prepare(std::string("SELECT ") + kEventColumns +
                            ", mnemo_score(events_fts, e.doc_length) AS score FROM events_fts "
                            "CROSS JOIN events e ON e.rowid = events_fts.rowid "
                            "WHERE events_fts MATCH ?1 AND " +
                            kFilter + " ORDER BY score DESC, e.created_at DESC, e.id LIMIT ?5",
                        "search events"));
  if (!terms.empty()) s.Bind(1, match);
  if (query.type) {
    s.Bind(2, *query.type);
  } else {
    s.BindNull(2);
  }
  s.Bind(3, static_cast<int64_t>(query.all ? 1 : 0));
  s.Bind(4, query.owner);
  s.Bind(5, static_cast<int64_t>(query.limit));
  return ReadAll<EventHit>(s, "search events", [](const Statement& row) {
    return EventHit{.row = ReadEvent(row), .score = row.ColumnDouble(kEventColumnCount)};
  });
}

Result<bool> SqliteEpisodicStore::CloseEvent(std::string_view id, TimeMs closed_at) {
  if (closed_at <= 0) return InvalidArgument("closed_at must be positive", "closed_at");
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(Statement find, db.Prepare("SELECT closed_at FROM events WHERE id = ?",
                                                    "find the event to close"));
  find.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(const bool found, find.Step("find the event to close"));
  if (!found) return NotFound("no event " + std::string(id));
  if (find.ColumnInt(0) != 0) return false;
  MNEMO_ASSIGN_OR_RETURN(
      Statement close,
      db.Prepare("UPDATE events SET closed_at = ?1 WHERE id = ?2", "close the event"));
  close.Bind(1, closed_at);
  close.Bind(2, id);
  MNEMO_RETURN_IF_ERROR(close.Run("close the event"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Status PutFacetIn(Connection& db, const FacetRow& merged) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare(std::string("INSERT INTO facets (") + kFacetColumns +
                     ") VALUES (?1, ?2, ?3, ?4, CAST(?5 AS REAL), ?6, ?7, ?8, ?9, ?10, ?11, ?12) "
                     "ON CONFLICT (owner, facet_type, key) DO UPDATE SET value = excluded.value, "
                     "confidence = excluded.confidence, evidence_count = excluded.evidence_count, "
                     "segment_ids = excluded.segment_ids, updated_at = excluded.updated_at, "
                     "valid_from = excluded.valid_from, evidence = excluded.evidence, "
                     "history = excluded.history, statements = excluded.statements",
                 "store the facet"));
  const std::string confidence = DecimalText(merged.confidence);
  const std::string segment_ids = EncodeTags(merged.segment_ids);
  put.Bind(1, merged.owner);
  put.Bind(2, merged.facet_type);
  put.Bind(3, merged.key);
  put.Bind(4, merged.value);
  put.Bind(5, confidence);
  put.Bind(6, merged.evidence_count);
  put.Bind(7, segment_ids);
  put.Bind(8, merged.updated_at);
  put.Bind(9, merged.valid_from);
  put.Bind(10, merged.evidence);
  const std::string history = EncodeFacetHistory(merged.history);
  put.Bind(11, history);
  std::string statements;
  if (merged.statements) {
    statements = EncodeFacetStatements(*merged.statements);
    put.Bind(12, statements);
  } else {
    put.BindNull(12);
  }
  return put.Run("store the facet");
}

Result<std::vector<FacetRow>> OwnerFacetsIn(Connection& db, std::string_view owner) {
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db.Prepare(std::string("SELECT ") + kFacetColumns +
                                        " FROM facets WHERE owner = ? ORDER BY facet_type, key",
                                    "read the owner's facets"));
  s.Bind(1, owner);
  std::vector<FacetRow> facets;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the owner's facets"));
    if (!row) break;
    MNEMO_ASSIGN_OR_RETURN(FacetRow f, ReadFacet(s));
    facets.push_back(std::move(f));
  }
  return facets;
}

Result<FacetRow> SqliteEpisodicStore::MergeFacet(const FacetRow& observation) {
  MNEMO_RETURN_IF_ERROR(ValidateFacet(observation));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  std::optional<FacetRow> stored;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement find,
                           db.Prepare(std::string("SELECT ") + kFacetColumns +
                                          " FROM facets WHERE owner = ? AND facet_type = ? AND "
                                          "key = ?",
                                      "find the facet"));
    find.Bind(1, observation.owner);
    find.Bind(2, observation.facet_type);
    find.Bind(3, observation.key);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the facet"));
    if (found) {
      MNEMO_ASSIGN_OR_RETURN(FacetRow row, ReadFacet(find));
      stored = std::move(row);
    }
  }
  FacetRow merged = MergeFacetRow(stored, observation);
  MNEMO_RETURN_IF_ERROR(PutFacetIn(db, merged));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return merged;
}

Result<std::vector<FacetRow>> SqliteEpisodicStore::Facets(bool all, std::string_view owner) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(std::string("SELECT ") + kFacetColumns +
                                                      " FROM facets WHERE ?1 OR owner = ?2 "
                                                      "ORDER BY facet_type, key, owner",
                                                  "list facets"));
  s.Bind(1, static_cast<int64_t>(all ? 1 : 0));
  s.Bind(2, owner);
  std::vector<FacetRow> facets;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("list facets"));
    if (!row) break;
    MNEMO_ASSIGN_OR_RETURN(FacetRow f, ReadFacet(s));
    facets.push_back(std::move(f));
  }
  return facets;
}

// --- Corrections (episodic_store.h): an event keeps its rowid, so its index
// row is replaced in place; 'optimize' then drops the old text's tokens.

namespace {

// The rowid and row of event `id`, if any.
Result<std::optional<std::pair<int64_t, EventRow>>> FindEventIn(Connection& db,
                                                                std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(Statement find, db.Prepare(std::string("SELECT ") + kEventColumns +
                                                        ", e.rowid FROM events e WHERE e.id = ?",
                                                    "find the event"));
  find.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the event"));
  if (!found) return std::optional<std::pair<int64_t, EventRow>>();
  return std::optional<std::pair<int64_t, EventRow>>(
      std::pair{find.ColumnInt(kEventColumnCount), ReadEvent(find)});
}

}  // namespace

Result<std::optional<EventRow>> SqliteEpisodicStore::GetEvent(std::string_view id) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(auto found, FindEventIn(*db, id));
  if (!found) return std::optional<EventRow>();
  return std::optional<EventRow>(std::move(found->second));
}

Result<bool> SqliteEpisodicStore::ReplaceEvent(const EventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(std::span<const EventRow>(&row, 1)));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(auto found, FindEventIn(db, row.id));
  if (!found) return false;
  const auto& [rowid, stored] = *found;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement same,
        db.Prepare("SELECT id FROM events WHERE owner = ? AND type = ? AND text = ? AND id != ?",
                   "find an identical event"));
    same.Bind(1, stored.owner);
    same.Bind(2, row.type);
    same.Bind(3, row.text);
    same.Bind(4, row.id);
    MNEMO_ASSIGN_OR_RETURN(bool taken, same.Step("find an identical event"));
    if (taken) {
      return Conflict("event " + std::string(same.ColumnText(0)) +
                      " already says this: delete one of the two instead");
    }
  }
  MNEMO_RETURN_IF_ERROR(UnindexFtsRow(db, "events_fts", rowid, {{"body", stored.text}}));
  MNEMO_ASSIGN_OR_RETURN(int64_t length,
                         IndexFtsRow(db, "events_fts", rowid, {{"body", row.text}}));
  MNEMO_ASSIGN_OR_RETURN(Statement put,
                         db.Prepare("UPDATE events SET type = ?1, text = ?2, confidence = "
                                    "CAST(?3 AS REAL), doc_length = ?4 WHERE rowid = ?5",
                                    "correct the event"));
  const std::string confidence = DecimalText(row.confidence);
  put.Bind(1, row.type);
  put.Bind(2, row.text);
  put.Bind(3, confidence);
  put.Bind(4, length);
  put.Bind(5, rowid);
  MNEMO_RETURN_IF_ERROR(put.Run("correct the event"));
  MNEMO_RETURN_IF_ERROR(OptimizeFtsTable(db, "events_fts"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Result<bool> SqliteEpisodicStore::DeleteEvent(std::string_view id) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(auto found, FindEventIn(db, id));
  if (!found) return false;
  MNEMO_RETURN_IF_ERROR(
      UnindexFtsRow(db, "events_fts", found->first, {{"body", found->second.text}}));
  MNEMO_ASSIGN_OR_RETURN(Statement del,
                         db.Prepare("DELETE FROM events WHERE rowid = ?", "delete the event"));
  del.Bind(1, found->first);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the event"));
  MNEMO_RETURN_IF_ERROR(OptimizeFtsTable(db, "events_fts"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  MNEMO_RETURN_IF_ERROR(EmptyLog(db));
  return true;
}

Result<bool> SqliteEpisodicStore::DeleteFacet(std::string_view owner, std::string_view facet_type,
                                              std::string_view key) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(
      Statement del, db.Prepare("DELETE FROM facets WHERE owner = ? AND facet_type = ? AND key = ?",
                                "delete the facet"));
  del.Bind(1, owner);
  del.Bind(2, facet_type);
  del.Bind(3, key);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the facet"));
  const bool deleted = sqlite3_changes(db.handle()) > 0;
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  if (deleted) MNEMO_RETURN_IF_ERROR(EmptyLog(db));
  return deleted;
}

}  // namespace mnemo::storage::internal

// Episodic turns, segments, events and profile facets on PostgreSQL
// (pg_schema.cc), with the semantics of sqlite_episodic_store.cc. Every write runs
// under the schema's writer lock (PostgresDatabase::Write), so the
// read-modify-write steps here (the next seq of a session, StepSegment,
// MergeFacet, the duplicate check of AddEvents) see no interleaved write
// from any thread or process.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_episodic_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_episodic_store.h"
#include "storage/rules/entry_rules.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr const char* kTurnColumns =
    "t.id, t.owner, t.session_id, t.seq, t.role, t.content, t.lesson, t.tool_calls_json, "
    "t.timestamp_ms, t.cost_microdollars, t.agent_id";
constexpr int kTurnColumnCount = 11;

TurnRow ReadTurn(const Rows& rows, int row) {
  return TurnRow{.id = rows.Int(row, 0),
                 .owner = std::string(rows.Text(row, 1)),
                 .session_id = std::string(rows.Text(row, 2)),
                 .seq = rows.Int(row, 3),
                 .role = std::string(rows.Text(row, 4)),
                 .content = std::string(rows.Text(row, 5)),
                 .lesson = std::string(rows.Text(row, 6)),
                 .tool_calls_json = std::string(rows.Text(row, 7)),
                 .timestamp_ms = rows.Int(row, 8),
                 .cost_microdollars = rows.Int(row, 9),
                 .agent_id = std::string(rows.Text(row, 10))};
}

std::vector<TurnRow> ReadTurns(const Rows& rows) {
  std::vector<TurnRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadTurn(rows, i));
  return out;
}

std::vector<SegmentRow> ReadSegments(const Rows& rows) {
  std::vector<SegmentRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(pg::ReadSegment(rows, i));
  return out;
}

constexpr const char* kEventColumns =
    "e.id, e.owner, e.session_id, e.segment_id, e.type, e.text, e.confidence, e.created_at, "
    "e.closed_at";
constexpr int kEventColumnCount = 9;

EventRow ReadEvent(const Rows& rows, int row) {
  return EventRow{.id = std::string(rows.Text(row, 0)),
                  .owner = std::string(rows.Text(row, 1)),
                  .session_id = std::string(rows.Text(row, 2)),
                  .segment_id = std::string(rows.Text(row, 3)),
                  .type = std::string(rows.Text(row, 4)),
                  .text = std::string(rows.Text(row, 5)),
                  .confidence = rows.Double(row, 6),
                  .created_at = rows.Int(row, 7),
                  .closed_at = rows.Int(row, 8)};
}

constexpr const char* kFacetColumns =
    "owner, facet_type, key, value, confidence, evidence_count, segment_ids, updated_at, "
    "valid_from, evidence, history, statements";

Result<FacetRow> ReadFacet(const Rows& rows, int row) {
  std::optional<std::vector<FacetValue>> history = DecodeFacetHistory(rows.Text(row, 10));
  if (!history) return Internal("a facet's history is not a JSON array of five strings a value");
  std::optional<std::vector<FacetStatement>> statements;
  if (!rows.IsNull(row, 11)) {
    statements = DecodeFacetStatements(rows.Text(row, 11));
    if (!statements) {
      return Internal("a facet's statements are not a JSON array of eight strings a statement");
    }
  }
  return FacetRow{.owner = std::string(rows.Text(row, 0)),
                  .facet_type = std::string(rows.Text(row, 1)),
                  .key = std::string(rows.Text(row, 2)),
                  .value = std::string(rows.Text(row, 3)),
                  .confidence = rows.Double(row, 4),
                  .evidence_count = rows.Int(row, 5),
                  .segment_ids = rows.TextArray(row, 6),
                  .updated_at = rows.Int(row, 7),
                  .valid_from = rows.Int(row, 8),
                  .evidence = std::string(rows.Text(row, 9)),
                  .history = std::move(*history),
                  .statements = std::move(statements)};
}

// The open segment of (owner, session), read inside or outside a write.
Result<std::optional<SegmentRow>> FindOpenSegment(PgConn& conn, std::string_view owner,
                                                  std::string_view session_id) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn.ExecPrepared(std::string("SELECT ") + pg::kSegmentColumns +
                            " FROM segments s WHERE s.owner = $1 AND s.session_id = $2 AND "
                            "s.status = 'open'",
                        Params().Add(owner).Add(session_id), "find the session's open segment"));
  if (rows.empty()) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(pg::ReadSegment(rows, 0));
}

}  // namespace

// PutSegment inside the caller's write transaction.
Status PutSegmentIn(PgConn& conn, const SegmentRow& seg) {
  MNEMO_RETURN_IF_ERROR(ValidateSegment(seg));
  std::optional<std::string> stored_status;
  std::optional<std::string> open_id;
  {
    MNEMO_ASSIGN_OR_RETURN(Rows found,
                           conn.ExecPrepared("SELECT status FROM segments WHERE id = $1",
                                             Params().Add(seg.id), "find the segment"));
    if (!found.empty()) stored_status = std::string(found.Text(0, 0));
  }
  {
    MNEMO_ASSIGN_OR_RETURN(Rows open,
                           conn.ExecPrepared("SELECT id FROM segments WHERE owner = $1 AND "
                                             "session_id = $2 AND status = 'open'",
                                             Params().Add(seg.owner).Add(seg.session_id),
                                             "find the session's open segment"));
    if (!open.empty()) open_id = std::string(open.Text(0, 0));
  }
  MNEMO_RETURN_IF_ERROR(CheckSegmentPut(seg, stored_status, open_id));
  Params p;
  p.Add(seg.id)
      .Add(seg.owner)
      .Add(seg.session_id)
      .Add(seg.status)
      .Add(seg.first_seq)
      .Add(seg.last_seq)
      .Add(seg.turn_count)
      .Add(seg.started_at)
      .Add(seg.last_turn_at)
      .Add(seg.closed_at);
  if (seg.centroid.empty()) {
    p.AddNull();
  } else {
    p.AddFloats(seg.centroid);
  }
  p.Add(seg.recap).Add(seg.recap_source).Add(seg.recap_attempts);
  MNEMO_RETURN_IF_ERROR(
      conn.ExecPrepared(
              "INSERT INTO segments (id, owner, session_id, status, first_seq, last_seq, "
              "turn_count, started_at, last_turn_at, closed_at, centroid, recap, recap_source, "
              "recap_attempts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::bytea, "
              "$12, $13, $14) ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, "
              "session_id = excluded.session_id, status = excluded.status, "
              "first_seq = excluded.first_seq, last_seq = excluded.last_seq, "
              "turn_count = excluded.turn_count, started_at = excluded.started_at, "
              "last_turn_at = excluded.last_turn_at, closed_at = excluded.closed_at, "
              "centroid = excluded.centroid, recap = excluded.recap, "
              "recap_source = excluded.recap_source, recap_attempts = excluded.recap_attempts",
              p, "store the segment")
          .status());
  return pg::SyncRecapIndex(conn, seg.id, seg.recap);
}

namespace {

// CloseSegment inside the caller's write transaction.
Result<bool> CloseSegmentIn(PgConn& conn, std::string_view id, TimeMs closed_at) {
  MNEMO_ASSIGN_OR_RETURN(Rows closed,
                         conn.ExecPrepared("UPDATE segments SET status = 'closed', "
                                           "closed_at = $2 WHERE id = $1 AND status = 'open'",
                                           Params().Add(id).Add(closed_at), "close the segment"));
  return closed.affected() > 0;
}

}  // namespace

// A turn row inside the caller's write (row.id <= 0: the next turn id);
// returns its id. Text statistics are the caller's.
Result<int64_t> InsertTurnIn(PgConn& conn, const TurnRow& row, std::string_view search_text,
                             const pg::IndexedText& text) {
  Params p;
  p.Add(row.owner)
      .Add(row.session_id)
      .Add(row.seq)
      .Add(row.role)
      .Add(row.content)
      .Add(row.lesson)
      .Add(row.tool_calls_json)
      .Add(row.timestamp_ms)
      .Add(row.cost_microdollars)
      .Add(row.agent_id);
  if (std::optional<std::string_view> stored = StoredSearchText(row, search_text)) {
    p.Add(*stored);
  } else {
    p.AddNull();
  }
  p.Add(text.length).Add(pg::TsvectorLiteral(text));
  if (row.id > 0) {
    p.Add(row.id);
  } else {
    p.AddNull();
  }
  MNEMO_ASSIGN_OR_RETURN(
      Rows put, conn.ExecPrepared(
                    "INSERT INTO turns (id, owner, session_id, seq, role, content, lesson, "
                    "tool_calls_json, timestamp_ms, cost_microdollars, agent_id, search_text, "
                    "doc_length, tsv) VALUES (COALESCE($14::bigint, nextval('turn_ids')), $1, $2, "
                    "$3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::tsvector) RETURNING id",
                    p, "store the turn"));
  return put.Int(0, 0);
}

// An event inside the caller's write; false (nothing written) when the
// (owner, type, text) is stored. Text statistics are the caller's.
Result<bool> AddEventIn(PgConn& conn, const EventRow& e, const pg::IndexedText& text) {
  // md5 first: the unique index is on md5(text) (a long text would not
  // fit a btree entry), so this lookup uses it.
  MNEMO_ASSIGN_OR_RETURN(
      Rows found,
      conn.ExecPrepared("SELECT 1 FROM events WHERE owner = $1 AND type = $2 AND "
                        "md5(text) = md5($3) AND text = $3",
                        Params().Add(e.owner).Add(e.type).Add(e.text), "find an identical event"));
  if (!found.empty()) return false;
  Params p;
  p.Add(e.id)
      .Add(e.owner)
      .Add(e.session_id)
      .Add(e.segment_id)
      .Add(e.type)
      .Add(e.text)
      .Add(e.confidence)
      .Add(e.created_at)
      .Add(text.length)
      .Add(pg::TsvectorLiteral(text))
      .Add(e.closed_at);
  // A reused id violates UNIQUE (id): kConflict, and the whole write rolls back.
  MNEMO_RETURN_IF_ERROR(
      conn.ExecPrepared(
              "INSERT INTO events (row_id, id, owner, session_id, segment_id, type, text, "
              "confidence, created_at, doc_length, tsv, closed_at) VALUES "
              "(nextval('event_rows'), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10::tsvector, $11)",
              p, "store the event")
          .status());
  return true;
}

PostgresEpisodicStore::PostgresEpisodicStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

Result<std::vector<TurnRow>> PostgresEpisodicStore::AppendTurns(std::span<const TurnWrite> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnWrites(rows));
  if (rows.empty()) return std::vector<TurnRow>();
  // Tokenised before the writer lock is taken, which every writer waits for.
  const std::vector<pg::IndexedText> texts = pg::IndexTurnTexts(rows);
  // Copied once (the caller keeps its writes), not on every attempt: each
  // attempt stores these rows in place, and they are the result.
  std::vector<TurnRow> out = pg::CopyTurnRows(rows);
  MNEMO_RETURN_IF_ERROR(Write("store the turns", [&](PgConn& conn) -> Status {
    return pg::InsertTurnsIn(conn, out, rows, texts);
  }));
  return out;
}

Result<std::vector<TurnRow>> PostgresEpisodicStore::SessionTurns(std::string_view owner,
                                                                 const SessionId& session_id,
                                                                 int64_t from_seq, int64_t to_seq) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec(std::string("SELECT ") + kTurnColumns +
                                " FROM turns t WHERE t.owner = $1 AND t.session_id = $2 AND "
                                "t.seq BETWEEN $3 AND $4 ORDER BY t.seq",
                            Params().Add(owner).Add(session_id.view()).Add(from_seq).Add(to_seq),
                            "read the session's turns"));
  return ReadTurns(rows);
}

Result<std::vector<TurnHit>> PostgresEpisodicStore::SearchTurns(const TurnQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<TurnHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  std::optional<pg::TextScope> scope;
  if (!query.all) scope = pg::TextScope{.owner = query.owner};
  MNEMO_ASSIGN_OR_RETURN(pg::TermWeights weights,
                         pg::WeighTerms(*conn, "turns", "turns", terms, scope));
  if (weights.empty()) return std::vector<TurnHit>();
  Params p;
  const pg::ScoreSql score = pg::AddScoreParams(p, weights, "t");
  p.Add(query.all);
  std::string where = " AND (" + pg::Last(p) + "::boolean";
  p.Add(query.owner);
  where += " OR t.owner = " + pg::Last(p) + ")";
  if (query.session_id) {
    p.Add(query.session_id->view());
  } else {
    p.AddNull();
  }
  where += " AND (" + pg::Last(p) + "::text IS NULL OR t.session_id = " + pg::Last(p) + ")";
  if (query.since) {
    p.Add(static_cast<int64_t>(*query.since));
    where += " AND t.timestamp_ms >= " + pg::Last(p) + "::bigint";
  }
  if (query.until) {
    p.Add(static_cast<int64_t>(*query.until));
    where += " AND t.timestamp_ms < " + pg::Last(p) + "::bigint";
  }
  if (query.agent_id) {
    p.Add(*query.agent_id);
    where += " AND t.agent_id = " + pg::Last(p);
  }
  p.Add(static_cast<int64_t>(query.limit));
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + kTurnColumns + ", " + score.score + " AS score, " +
                     score.matched + " FROM turns t WHERE " + score.match + where +
                     " ORDER BY score DESC, t.timestamp_ms DESC, t.id LIMIT " + pg::Last(p),
                 p, "search turns"));
  std::vector<TurnHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back({.row = ReadTurn(rows, i),
                    .score = rows.Double(i, kTurnColumnCount),
                    .matched_terms = rows.Int(i, kTurnColumnCount + 1)});
  }
  return hits;
}

Result<std::vector<TurnRow>> PostgresEpisodicStore::TurnsAfter(int64_t after_id, int limit) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec(std::string("SELECT ") + kTurnColumns +
                                " FROM turns t WHERE t.id > $1 ORDER BY t.id LIMIT $2",
                            Params().Add(after_id).Add(static_cast<int64_t>(std::max(limit, 0))),
                            "read turns"));
  return ReadTurns(rows);
}

Status PostgresEpisodicStore::ReplaceTurnSearchText(int64_t id, std::string_view search_text) {
  const pg::IndexedText text = pg::IndexText({search_text});
  return Write("replace the turn's search text", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows found, conn.Exec("SELECT doc_length FROM turns WHERE id = $1",
                                                 Params().Add(id), "find the turn"));
    if (found.empty()) return NotFound("no turn " + std::to_string(id));
    MNEMO_RETURN_IF_ERROR(
        conn.Exec("UPDATE turns SET search_text = NULLIF($2, content), doc_length = $3, "
                  "tsv = $4::tsvector WHERE id = $1",
                  Params().Add(id).Add(search_text).Add(text.length).Add(pg::TsvectorLiteral(text)),
                  "replace the turn's search text")
            .status());
    return pg::AddTextStats(conn, "turns", 0, text.length - found.Int(0, 0));
  });
}

Result<std::optional<SegmentRow>> PostgresEpisodicStore::OpenSegment(std::string_view owner,
                                                                     const SessionId& session_id) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  return FindOpenSegment(*conn, owner, session_id.view());
}

Status PostgresEpisodicStore::PutSegment(const SegmentRow& s) {
  MNEMO_RETURN_IF_ERROR(ValidateSegment(s));
  return Write("store the segment", [&](PgConn& conn) { return PutSegmentIn(conn, s); });
}

Result<bool> PostgresEpisodicStore::CloseSegment(std::string_view id, TimeMs closed_at) {
  bool closed = false;
  MNEMO_RETURN_IF_ERROR(Write("close the segment", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(closed, CloseSegmentIn(conn, id, closed_at));
    return Status::Ok();
  }));
  return closed;
}

Result<SegmentChange> StepSegmentIn(PgConn& conn, std::string_view owner,
                                    std::string_view session_id,
                                    const EpisodicStore::SegmentDecision& decide) {
  SegmentView view;
  MNEMO_ASSIGN_OR_RETURN(view.open, FindOpenSegment(conn, owner, session_id));
  MNEMO_ASSIGN_OR_RETURN(
      Rows last, conn.ExecPrepared("SELECT max(last_seq) FROM segments WHERE owner = $1 AND "
                                   "session_id = $2",
                                   Params().Add(owner).Add(session_id),
                                   "find the session's last segmented turn"));
  if (!last.IsNull(0, 0)) view.next_seq = last.Int(0, 0) + 1;
  MNEMO_ASSIGN_OR_RETURN(SegmentChange change, decide(view));
  if (change.close_open && view.open) {
    MNEMO_ASSIGN_OR_RETURN(change.close_open,
                           CloseSegmentIn(conn, view.open->id, change.closed_at));
  } else {
    change.close_open = false;
  }
  if (change.put) MNEMO_RETURN_IF_ERROR(PutSegmentIn(conn, *change.put));
  return change;
}

Result<SegmentChange> PostgresEpisodicStore::StepSegment(std::string_view owner,
                                                         const SessionId& session_id,
                                                         const SegmentDecision& decide) {
  // Read, decide and write in one transaction under the writer lock: no
  // other step of any process runs between the read and the write. A
  // retried attempt reads afresh and asks `decide` again.
  SegmentChange change;
  MNEMO_RETURN_IF_ERROR(Write("step the segment", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(change, StepSegmentIn(conn, owner, session_id.view(), decide));
    return Status::Ok();
  }));
  return change;
}

Result<std::optional<SegmentRow>> PostgresEpisodicStore::GetSegment(std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(std::string("SELECT ") + pg::kSegmentColumns +
                                                   " FROM segments s WHERE s.id = $1",
                                               Params().Add(id), "read the segment"));
  if (rows.empty()) return std::optional<SegmentRow>();
  return std::optional<SegmentRow>(pg::ReadSegment(rows, 0));
}

Result<std::vector<SegmentRow>> PostgresEpisodicStore::Segments(
    bool all, std::string_view owner, const std::optional<SessionId>& session_id) {
  Params p;
  p.Add(all).Add(owner);
  if (session_id) {
    p.Add(session_id->view());
  } else {
    p.AddNull();
  }
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec(std::string("SELECT ") + pg::kSegmentColumns +
                                        " FROM segments s WHERE ($1::boolean OR s.owner = $2) AND "
                                        "($3::text IS NULL OR s.session_id = $3) "
                                        "ORDER BY s.started_at, s.id",
                                    p, "list segments"));
  return ReadSegments(rows);
}

Result<std::vector<SegmentRow>> PostgresEpisodicStore::SegmentsNeedingRecap(int limit,
                                                                            int64_t max_attempts) {
  if (limit <= 0) return std::vector<SegmentRow>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec(std::string("SELECT ") + pg::kSegmentColumns +
                                        " FROM segments s WHERE s.status = 'closed' AND "
                                        "s.recap_source = 'extractive' AND s.recap_attempts < $1 "
                                        "ORDER BY s.closed_at, s.id LIMIT $2",
                                    Params().Add(max_attempts).Add(static_cast<int64_t>(limit)),
                                    "find segments to re-summarise"));
  return ReadSegments(rows);
}

Result<int64_t> PostgresEpisodicStore::AddEvents(std::span<const EventRow> rows) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(rows));
  if (rows.empty()) return int64_t{0};
  // Tokenised before the writer lock is taken, which every writer waits for.
  std::vector<pg::IndexedText> texts;
  texts.reserve(rows.size());
  for (const EventRow& e : rows) texts.push_back(pg::IndexText({e.text}));
  int64_t added = 0;
  MNEMO_RETURN_IF_ERROR(Write("store the events", [&](PgConn& conn) -> Status {
    added = 0;
    int64_t tokens = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      const pg::IndexedText& text = texts[i];
      MNEMO_ASSIGN_OR_RETURN(const bool stored, AddEventIn(conn, rows[i], text));
      if (!stored) continue;
      tokens += text.length;
      ++added;
    }
    return pg::AddTextStats(conn, "events", added, tokens);
  }));
  return added;
}

Result<std::vector<EventHit>> PostgresEpisodicStore::SearchEvents(const EventQuery& query) {
  if (query.limit <= 0) return std::vector<EventHit>();
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  Params p;
  std::string sql = std::string("SELECT ") + kEventColumns;
  std::string order = " ORDER BY e.created_at DESC, e.id";
  std::string where;
  if (terms.empty()) {
    sql += ", 0.0::float8 FROM events e WHERE true";
  } else {
    MNEMO_ASSIGN_OR_RETURN(pg::TermWeights weights,
                           pg::WeighTerms(*conn, "events", "events", terms));
    if (weights.empty()) return std::vector<EventHit>();
    const pg::ScoreSql score = pg::AddScoreParams(p, weights, "e");
    sql += ", " + score.score + " AS score FROM events e WHERE " + score.match;
    order = " ORDER BY score DESC, e.created_at DESC, e.id";
  }
  p.Add(query.type);
  where += " AND (" + pg::Last(p) + "::text IS NULL OR e.type = " + pg::Last(p) + ")";
  p.Add(query.all);
  where += " AND (" + pg::Last(p) + "::boolean";
  p.Add(query.owner);
  where += " OR e.owner = " + pg::Last(p) + ")";
  p.Add(static_cast<int64_t>(query.limit));
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(sql + where + order + " LIMIT " + pg::Last(p), p,
                                               terms.empty() ? "list events" : "search events"));
  std::vector<EventHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back({.row = ReadEvent(rows, i), .score = rows.Double(i, kEventColumnCount)});
  }
  return hits;
}

Result<bool> PostgresEpisodicStore::CloseEvent(std::string_view id, TimeMs closed_at) {
  if (closed_at <= 0) return InvalidArgument("closed_at must be positive", "closed_at");
  bool closed = false;
  MNEMO_RETURN_IF_ERROR(Write("close the event", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows found,
                           conn.Exec("SELECT closed_at FROM events WHERE id = $1 FOR UPDATE",
                                     Params().Add(id), "find the event to close"));
    if (found.empty()) return NotFound("no event " + std::string(id));
    closed = found.Int(0, 0) == 0;
    if (!closed) return Status::Ok();
    return conn
        .Exec("UPDATE events SET closed_at = $1 WHERE id = $2", Params().Add(closed_at).Add(id),
              "close the event")
        .status();
  }));
  return closed;
}

// Inserts or replaces the facet of (owner, facet_type, key) with `merged`.
Status PutFacetIn(PgConn& conn, const FacetRow& merged) {
  Params p;
  p.Add(merged.owner)
      .Add(merged.facet_type)
      .Add(merged.key)
      .Add(merged.value)
      .Add(merged.confidence)
      .Add(merged.evidence_count)
      .AddTextArray(merged.segment_ids)
      .Add(merged.updated_at)
      .Add(merged.valid_from)
      .Add(merged.evidence)
      .Add(EncodeFacetHistory(merged.history))
      .Add(merged.statements ? std::optional<std::string>(EncodeFacetStatements(*merged.statements))
                             : std::nullopt);
  return conn
      .Exec(std::string("INSERT INTO facets (") + kFacetColumns +
                ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) "
                "ON CONFLICT (owner, facet_type, key) DO UPDATE SET value = excluded.value, "
                "confidence = excluded.confidence, evidence_count = excluded.evidence_count, "
                "segment_ids = excluded.segment_ids, updated_at = excluded.updated_at, "
                "valid_from = excluded.valid_from, evidence = excluded.evidence, "
                "history = excluded.history, statements = excluded.statements",
            p, "store the facet")
      .status();
}

Result<std::vector<FacetRow>> OwnerFacetsIn(PgConn& conn, std::string_view owner) {
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.Exec(std::string("SELECT ") + kFacetColumns +
                                                  " FROM facets WHERE owner = $1 "
                                                  "ORDER BY facet_type, key",
                                              Params().Add(owner), "read the owner's facets"));
  std::vector<FacetRow> facets;
  facets.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    MNEMO_ASSIGN_OR_RETURN(FacetRow f, ReadFacet(rows, i));
    facets.push_back(std::move(f));
  }
  return facets;
}

Result<FacetRow> PostgresEpisodicStore::MergeFacet(const FacetRow& observation) {
  MNEMO_RETURN_IF_ERROR(ValidateFacet(observation));
  FacetRow merged;
  MNEMO_RETURN_IF_ERROR(Write("store the facet", [&](PgConn& conn) -> Status {
    std::optional<FacetRow> stored;
    {
      MNEMO_ASSIGN_OR_RETURN(
          Rows found,
          conn.Exec(
              std::string("SELECT ") + kFacetColumns +
                  " FROM facets WHERE owner = $1 AND facet_type = $2 AND "
                  "key = $3",
              Params().Add(observation.owner).Add(observation.facet_type).Add(observation.key),
              "find the facet"));
      if (!found.empty()) {
        MNEMO_ASSIGN_OR_RETURN(FacetRow row, ReadFacet(found, 0));
        stored = std::move(row);
      }
    }
    merged = MergeFacetRow(stored, observation);
    return PutFacetIn(conn, merged);
  }));
  return merged;
}

Result<std::vector<FacetRow>> PostgresEpisodicStore::Facets(bool all, std::string_view owner) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(std::string("SELECT ") + kFacetColumns +
                                                   " FROM facets WHERE $1::boolean OR owner = $2 "
                                                   "ORDER BY facet_type, key, owner",
                                               Params().Add(all).Add(owner), "list facets"));
  std::vector<FacetRow> facets;
  facets.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    MNEMO_ASSIGN_OR_RETURN(FacetRow f, ReadFacet(rows, i));
    facets.push_back(std::move(f));
  }
  return facets;
}

// --- Corrections (episodic_store.h): rows change or go in one write, with
// the keyword statistics they count in; the tsvector is the row's own.

Result<std::optional<EventRow>> PostgresEpisodicStore::GetEvent(std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(std::string("SELECT ") + kEventColumns +
                                                   " FROM events e WHERE e.id = $1",
                                               Params().Add(id), "find the event"));
  if (rows.empty()) return std::optional<EventRow>();
  return std::optional<EventRow>(ReadEvent(rows, 0));
}

Result<bool> PostgresEpisodicStore::ReplaceEvent(const EventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateEvents(std::span<const EventRow>(&row, 1)));
  const pg::IndexedText text = pg::IndexText({row.text});
  bool replaced = false;
  MNEMO_RETURN_IF_ERROR(Write("correct the event", [&](PgConn& conn) -> Status {
    replaced = false;
    MNEMO_ASSIGN_OR_RETURN(
        Rows stored, conn.Exec("SELECT owner, doc_length FROM events WHERE id = $1 FOR UPDATE",
                               Params().Add(row.id), "find the event"));
    if (stored.empty()) return Status::Ok();
    const std::string owner(stored.Text(0, 0));
    const int64_t old_length = stored.Int(0, 1);
    MNEMO_ASSIGN_OR_RETURN(Rows same,
                           conn.Exec("SELECT id FROM events WHERE owner = $1 AND type = $2 AND "
                                     "md5(text) = md5($3) AND text = $3 AND id <> $4",
                                     Params().Add(owner).Add(row.type).Add(row.text).Add(row.id),
                                     "find an identical event"));
    if (!same.empty()) {
      return Conflict("event " + std::string(same.Text(0, 0)) +
                      " already says this: delete one of the two instead");
    }
    Params p;
    p.Add(row.type)
        .Add(row.text)
        .Add(row.confidence)
        .Add(text.length)
        .Add(pg::TsvectorLiteral(text))
        .Add(row.id);
    MNEMO_RETURN_IF_ERROR(conn.Exec("UPDATE events SET type = $1, text = $2, confidence = $3, "
                                    "doc_length = $4, tsv = $5::tsvector WHERE id = $6",
                                    p, "correct the event")
                              .status());
    replaced = true;
    return pg::AddTextStats(conn, "events", 0, text.length - old_length);
  }));
  return replaced;
}

Result<bool> PostgresEpisodicStore::DeleteEvent(std::string_view id) {
  bool deleted = false;
  MNEMO_RETURN_IF_ERROR(Write("delete the event", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows gone,
                           conn.Exec("DELETE FROM events WHERE id = $1 RETURNING doc_length",
                                     Params().Add(id), "delete the event"));
    deleted = !gone.empty();
    if (!deleted) return Status::Ok();
    return pg::AddTextStats(conn, "events", -1, -gone.Int(0, 0));
  }));
  return deleted;
}

Result<bool> PostgresEpisodicStore::DeleteFacet(std::string_view owner, std::string_view facet_type,
                                                std::string_view key) {
  bool deleted = false;
  MNEMO_RETURN_IF_ERROR(Write("delete the facet", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Rows gone, conn.Exec("DELETE FROM facets WHERE owner = $1 AND facet_type = $2 AND key = $3",
                             Params().Add(owner).Add(facet_type).Add(key), "delete the facet"));
    deleted = gone.affected() > 0;
    return Status::Ok();
  }));
  return deleted;
}

}  // namespace mnemo::storage::internal

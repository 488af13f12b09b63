// Context events on PostgreSQL (pg_schema.cc): rows in `context_events`
// with their computation text's tsvector, ids from the context_event_ids
// sequence, the next seq of each session in `context_sessions`.
#include <string>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_context_event_store.h"
#include "storage/rules/context_event_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr const char* kEventColumns =
    "c.id, c.owner, c.session_id, c.seq, c.event_json, c.search_text, c.timestamp_ms, "
    "c.created_at";
constexpr int kEventColumnCount = 8;

ContextEventRow ReadEvent(const Rows& rows, int i) {
  return ContextEventRow{.id = rows.Int(i, 0),
                         .owner = std::string(rows.Text(i, 1)),
                         .session_id = std::string(rows.Text(i, 2)),
                         .seq = rows.Int(i, 3),
                         .event_json = std::string(rows.Text(i, 4)),
                         .search_text = std::string(rows.Text(i, 5)),
                         .timestamp_ms = rows.Int(i, 6),
                         .created_at = rows.Int(i, 7)};
}

// Deletes the events `condition` (over `context_events`, parameters in
// `params`) selects and removes them from the keyword statistics, inside
// the caller's write; returns how many.
Result<int64_t> DeleteWhere(PgConn& conn, const std::string& condition, const Params& params) {
  MNEMO_ASSIGN_OR_RETURN(Rows gone,
                         conn.Exec("WITH gone AS (DELETE FROM context_events WHERE " + condition +
                                       " RETURNING doc_length) SELECT count(*), "
                                       "COALESCE(sum(doc_length), 0) FROM gone",
                                   params, "delete context events"));
  const int64_t deleted = gone.Int(0, 0);
  MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "context_events", -deleted, -gone.Int(0, 1)));
  return deleted;
}

}  // namespace

// The event with row.seq (row.id <= 0: the next id) and its index row and
// statistics; returns its id. The session's next seq is the caller's.
Result<int64_t> InsertContextEventIn(PgConn& conn, const ContextEventRow& row,
                                     const pg::IndexedText& text) {
  Params p;
  p.Add(row.owner)
      .Add(row.session_id)
      .Add(row.seq)
      .Add(row.event_json)
      .Add(row.search_text)
      .Add(row.timestamp_ms)
      .Add(row.created_at)
      .Add(text.length)
      .Add(pg::TsvectorLiteral(text));
  if (row.id > 0) {
    p.Add(row.id);
  } else {
    p.AddNull();
  }
  MNEMO_ASSIGN_OR_RETURN(
      Rows put,
      conn.Exec("INSERT INTO context_events (id, owner, session_id, seq, event_json, "
                "search_text, timestamp_ms, created_at, doc_length, tsv) VALUES "
                "(COALESCE($10::bigint, nextval('context_event_ids')), $1, $2, $3, $4, $5, $6, "
                "$7, $8, $9::tsvector) RETURNING id",
                p, "store the context event"));
  MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "context_events", 1, text.length));
  return put.Int(0, 0);
}

PostgresContextEventStore::PostgresContextEventStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

Result<ContextEventRow> PostgresContextEventStore::AppendContextEvent(const ContextEventRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateContextEvent(row));
  const pg::IndexedText text = pg::IndexText({row.search_text});
  ContextEventRow out;
  MNEMO_RETURN_IF_ERROR(Write("store the context event", [&](PgConn& conn) -> Status {
    out = row;
    MNEMO_ASSIGN_OR_RETURN(
        Rows next,
        conn.Exec("INSERT INTO context_sessions (owner, session_id, next_seq) VALUES ($1, $2, 1) "
                  "ON CONFLICT (owner, session_id) DO UPDATE SET next_seq = "
                  "context_sessions.next_seq + 1 RETURNING next_seq - 1",
                  Params().Add(out.owner).Add(out.session_id),
                  "allocate the event's sequence number"));
    out.seq = next.Int(0, 0);
    out.id = 0;
    MNEMO_ASSIGN_OR_RETURN(out.id, InsertContextEventIn(conn, out, text));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<ContextEventRow>> PostgresContextEventStore::ContextEvents(
    std::string_view owner, const SessionId& session) {
  const std::string_view session_id = session.view();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + kEventColumns +
                     " FROM context_events c WHERE c.owner = $1 AND c.session_id = $2 "
                     "ORDER BY c.seq",
                 Params().Add(owner).Add(session_id), "read the session's context events"));
  std::vector<ContextEventRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadEvent(rows, i));
  return out;
}

Result<std::vector<ContextEventRow>> PostgresContextEventStore::ContextEventsAfter(int64_t after_id,
                                                                                   int limit) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec(std::string("SELECT ") + kEventColumns +
                                " FROM context_events c WHERE c.id > $1 ORDER BY c.id LIMIT $2",
                            Params().Add(after_id).Add(limit), "read context events by id"));
  std::vector<ContextEventRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadEvent(rows, i));
  return out;
}

Result<std::vector<ContextEventHit>> PostgresContextEventStore::SearchContextEvents(
    const ContextEventQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<ContextEventHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(pg::TermWeights weights,
                         pg::WeighTerms(*conn, "context_events", "context_events", terms));
  if (weights.empty()) return std::vector<ContextEventHit>();
  Params p;
  const pg::ScoreSql score = pg::AddScoreParams(p, weights, "c");
  p.Add(query.all);
  const std::string all = pg::Last(p);
  p.Add(query.owner);
  const std::string owner = pg::Last(p);
  if (query.session_id) {
    p.Add(query.session_id->view());
  } else {
    p.AddNull();
  }
  const std::string session = pg::Last(p);
  p.Add(static_cast<int64_t>(query.limit));
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec(std::string("SELECT ") + kEventColumns + ", " + score.score +
                                " AS score FROM context_events c WHERE " + score.match + " AND (" +
                                all + " OR c.owner = " + owner + ") AND (" + session +
                                "::text IS NULL OR c.session_id = " + session +
                                ") ORDER BY score DESC, c.seq DESC, c.id LIMIT " + pg::Last(p),
                            p, "search context events"));
  std::vector<ContextEventHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back({.row = ReadEvent(rows, i), .score = rows.Double(i, kEventColumnCount)});
  }
  return hits;
}

Result<int64_t> PostgresContextEventStore::DeleteContextEventsUpTo(std::string_view owner,
                                                                   const SessionId& session,
                                                                   int64_t up_to_seq) {
  const std::string_view session_id = session.view();
  int64_t deleted = 0;
  MNEMO_RETURN_IF_ERROR(Write("delete context events", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(deleted,
                           DeleteWhere(conn, "owner = $1 AND session_id = $2 AND seq <= $3",
                                       Params().Add(owner).Add(session_id).Add(up_to_seq)));
    return Status::Ok();
  }));
  return deleted;
}

Result<int64_t> PostgresContextEventStore::DeleteContextEventsByIds(std::span<const int64_t> ids) {
  if (ids.empty()) return 0;
  int64_t deleted = 0;
  MNEMO_RETURN_IF_ERROR(Write("delete context events", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(deleted,
                           DeleteWhere(conn, "id = ANY($1::bigint[])", Params().AddIntArray(ids)));
    return Status::Ok();
  }));
  return deleted;
}

}  // namespace mnemo::storage::internal

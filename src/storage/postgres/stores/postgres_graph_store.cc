// The graph on PostgreSQL (pg_schema.cc): rows in `triples`, compared
// through their subject_key / object_key columns, as on SQLite.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/stores/postgres_graph_store.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr const char* kTripleColumns =
    "t.id, t.owner, t.subject, t.predicate, t.object, t.confidence, t.source, t.sentence, "
    "t.valid_from, t.valid_to, t.created_at";

TripleRow ReadTriple(const Rows& rows, int i) {
  return TripleRow{.id = std::string(rows.Text(i, 0)),
                   .owner = std::string(rows.Text(i, 1)),
                   .subject = std::string(rows.Text(i, 2)),
                   .predicate = std::string(rows.Text(i, 3)),
                   .object = std::string(rows.Text(i, 4)),
                   .confidence = rows.Double(i, 5),
                   .source = std::string(rows.Text(i, 6)),
                   .sentence = std::string(rows.Text(i, 7)),
                   .valid_from = rows.Int(i, 8),
                   .valid_to = rows.Int(i, 9),  // NULL (current) reads as 0
                   .created_at = rows.Int(i, 10)};
}

std::vector<TripleRow> ReadTriples(const Rows& rows) {
  std::vector<TripleRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadTriple(rows, i));
  return out;
}

}  // namespace

Status InsertTriple(PgConn& conn, const TripleRow& t) {
  Params p;
  p.Add(t.id)
      .Add(t.owner)
      .Add(t.subject)
      .Add(TripleTermKey(t.subject))
      .Add(t.predicate)
      .Add(t.object)
      .Add(TripleTermKey(t.object))
      .Add(t.confidence)
      .Add(t.source)
      .Add(t.sentence)
      .Add(t.valid_from);
  if (t.valid_to == 0) {
    p.AddNull();
  } else {
    p.Add(t.valid_to);
  }
  p.Add(t.created_at);
  return conn
      .Exec(
          "INSERT INTO triples (row_id, id, owner, subject, subject_key, predicate, object, "
          "object_key, confidence, source, sentence, valid_from, valid_to, created_at) VALUES "
          "(nextval('triple_rows'), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
          p, "store the triple")
      .status();
}

namespace {

Status EndTriple(PgConn& conn, const TripleRow& t, TimeMs at) {
  return conn
      .Exec("UPDATE triples SET valid_to = $1 WHERE id = $2", Params().Add(at).Add(t.id),
            "end a triple")
      .status();
}

}  // namespace

PostgresGraphStore::PostgresGraphStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

Result<TripleUpsert> PostgresGraphStore::UpsertTriple(const TripleRow& row, bool single_valued) {
  // Outside the transaction: a retried attempt stores the same id.
  MNEMO_ASSIGN_OR_RETURN(const TripleRow normalised, NewTripleRow(row));
  TripleUpsert out;
  MNEMO_RETURN_IF_ERROR(Write("store the triple", [&](PgConn& conn) -> Status {
    out = {};
    TripleRow incoming = normalised;
    std::vector<TripleRow> existing;
    {
      // A multi-valued predicate's plan needs only the current triple of
      // the same object (one probe of triples_current): "user likes ..."
      // grows with every document, and reading it all made each upsert O(n).
      Params p;
      p.Add(incoming.owner).Add(TripleTermKey(incoming.subject)).Add(incoming.predicate);
      if (!single_valued) p.Add(TripleTermKey(incoming.object));
      MNEMO_ASSIGN_OR_RETURN(
          Rows rows,
          conn.Exec(std::string("SELECT ") + kTripleColumns +
                        " FROM triples t WHERE t.owner = $1 AND t.subject_key = $2 AND "
                        "t.predicate = $3" +
                        (single_valued ? "" : " AND t.object_key = $4 AND t.valid_to IS NULL") +
                        " ORDER BY t.id",
                    p, "find the triples"));
      existing = ReadTriples(rows);
    }
    const TripleUpsertPlan plan = PlanTripleUpsert(existing, incoming, single_valued);
    if (plan.refresh) {
      TripleRow& same = existing[*plan.refresh];
      same.confidence = std::max(same.confidence, incoming.confidence);
      MNEMO_RETURN_IF_ERROR(conn.Exec("UPDATE triples SET confidence = $1 WHERE id = $2",
                                      Params().Add(same.confidence).Add(same.id),
                                      "refresh the triple")
                                .status());
      out.row = same;
    } else {
      MNEMO_ASSIGN_OR_RETURN(Rows taken, conn.Exec("SELECT 1 FROM triples WHERE id = $1",
                                                   Params().Add(incoming.id), "check the id"));
      if (!taken.empty()) return Conflict("triple id " + incoming.id + " is already used");
      incoming.valid_to = plan.insert_valid_to;
      MNEMO_RETURN_IF_ERROR(InsertTriple(conn, incoming));
      out.row = incoming;
      out.created = true;
    }
    for (const size_t i : plan.supersede) {
      MNEMO_RETURN_IF_ERROR(EndTriple(conn, existing[i], SupersededAt(existing[i], incoming)));
      out.superseded.push_back(existing[i].id);
    }
    for (const size_t i : plan.trim) {
      MNEMO_RETURN_IF_ERROR(EndTriple(conn, existing[i], incoming.valid_from));
    }
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<TripleRow>> PostgresGraphStore::QueryTriples(const TripleQuery& query) {
  if (query.limit <= 0) return std::vector<TripleRow>();
  const TripleQuery q = NormalizedQuery(query);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + kTripleColumns +
                     " FROM triples t WHERE ($1::text IS NULL OR t.owner = $1) AND "
                     "($2::text IS NULL OR t.subject_key = $2) AND "
                     "($3::text IS NULL OR t.predicate = $3) AND "
                     "($4::text IS NULL OR t.object_key = $4) AND "
                     "($7::bigint IS NULL OR (t.valid_from <= $7 AND (t.valid_to IS NULL OR "
                     "t.valid_to > $7))) AND ($5 OR $7::bigint IS NOT NULL OR t.valid_to IS NULL) "
                     "ORDER BY t.subject_key, t.predicate, t.valid_to IS NOT NULL, "
                     "t.valid_from DESC, t.object_key, t.id LIMIT $6",
                 Params()
                     .Add(q.owner)
                     .Add(q.subject)
                     .Add(q.predicate)
                     .Add(q.object)
                     .Add(q.include_history)
                     .Add(q.limit)
                     .Add(q.as_of ? std::optional<std::string>(std::to_string(*q.as_of))
                                  : std::optional<std::string>()),
                 "query triples"));
  return ReadTriples(rows);
}

Result<std::optional<TripleRow>> PostgresGraphStore::GetTriple(std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(std::string("SELECT ") + kTripleColumns +
                                                   " FROM triples t WHERE t.id = $1",
                                               Params().Add(id), "find the triple"));
  if (rows.empty()) return std::optional<TripleRow>();
  return std::optional<TripleRow>(ReadTriple(rows, 0));
}

Result<bool> PostgresGraphStore::DeleteTriple(std::string_view id) {
  bool deleted = false;
  MNEMO_RETURN_IF_ERROR(Write("delete the triple", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows gone, conn.Exec("DELETE FROM triples WHERE id = $1",
                                                Params().Add(id), "delete the triple"));
    deleted = gone.affected() > 0;
    return Status::Ok();
  }));
  return deleted;
}

Result<bool> PostgresGraphStore::CloseTriple(std::string_view id, TimeMs at) {
  bool closed = false;
  MNEMO_RETURN_IF_ERROR(Write("close the triple", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Rows done, conn.Exec("UPDATE triples SET valid_to = GREATEST($1::bigint, valid_from, 1) "
                             "WHERE id = $2 AND valid_to IS NULL",
                             Params().Add(at).Add(id), "close the triple"));
    closed = done.affected() > 0;
    return Status::Ok();
  }));
  return closed;
}

}  // namespace mnemo::storage::internal

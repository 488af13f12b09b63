// Search over segment recaps and recap vectors on PostgreSQL, with the
// semantics of sqlite_recaps.cc. The recap index itself is kept by
// pg_episodic_sql.cc (SyncRecapIndex) in every segment write.
#include <optional>
#include <string>

#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_episodic_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_episodic_store.h"
#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {

using pg::Params;
using pg::PgConn;
using pg::Rows;

Result<std::vector<SegmentHit>> PostgresEpisodicStore::SearchSegments(const SegmentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<SegmentHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(pg::TermWeights weights,
                         pg::WeighTerms(*conn, "segment_recaps", "segment_recaps", terms));
  if (weights.empty()) return std::vector<SegmentHit>();
  Params p;
  const pg::ScoreSql score = pg::AddScoreParams(p, weights, "r");
  p.Add(query.owner);
  std::string where = " AND (" + pg::Last(p) + "::text IS NULL OR s.owner = " + pg::Last(p) + ")";
  p.Add(query.session_id);
  where += " AND (" + pg::Last(p) + "::text IS NULL OR s.session_id = " + pg::Last(p) + ")";
  p.Add(static_cast<int64_t>(query.limit));
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + pg::kSegmentColumns + ", " + score.score +
                     " AS score FROM segment_recaps r JOIN segments s ON s.id = r.segment_id "
                     "WHERE " +
                     score.match + " AND s.status = 'closed'" + where +
                     " ORDER BY score DESC, s.closed_at DESC, s.id LIMIT " + pg::Last(p),
                 p, "search segment recaps"));
  std::vector<SegmentHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back(
        {.row = pg::ReadSegment(rows, i), .score = rows.Double(i, pg::kSegmentColumnCount)});
  }
  return hits;
}

Status PostgresEpisodicStore::PutSegmentVector(std::string_view segment_id,
                                               std::string_view signature,
                                               std::span<const float> vector) {
  MNEMO_RETURN_IF_ERROR(CheckSegmentVector(signature, vector, std::nullopt));
  return Write("store the recap vector", [&](PgConn& conn) -> Status {
    {
      MNEMO_ASSIGN_OR_RETURN(Rows found, conn.Exec("SELECT 1 FROM segments WHERE id = $1",
                                                   Params().Add(segment_id), "find the segment"));
      if (found.empty()) return NotFound("no segment " + std::string(segment_id));
    }
    {
      MNEMO_ASSIGN_OR_RETURN(
          Rows dim, conn.Exec("SELECT dim FROM segment_vectors WHERE signature = $1 LIMIT 1",
                              Params().Add(signature), "read the dimension of the recap vectors"));
      if (!dim.empty()) {
        MNEMO_RETURN_IF_ERROR(
            CheckSegmentVector(signature, vector, static_cast<size_t>(dim.Int(0, 0))));
      }
    }
    // The counter is raised under the writer lock, so versions are handed
    // out in commit order: a reader that saw version v never misses a later
    // commit with a smaller one.
    MNEMO_ASSIGN_OR_RETURN(Rows bumped, conn.Exec("UPDATE generations SET value = value + 1 "
                                                  "WHERE name = 'segment_vectors' RETURNING value",
                                                  "allocate a recap vector version"));
    if (bumped.empty()) return Internal("allocate a recap vector version: no counter");
    return conn
        .Exec(
            "INSERT INTO segment_vectors (segment_id, signature, version, dim, vector) "
            "VALUES ($1, $2, $3, $4, $5::bytea) ON CONFLICT (signature, segment_id) DO UPDATE "
            "SET version = excluded.version, dim = excluded.dim, vector = excluded.vector",
            Params()
                .Add(segment_id)
                .Add(signature)
                .Add(bumped.Int(0, 0))
                .Add(static_cast<int64_t>(vector.size()))
                .AddFloats(vector),
            "store the recap vector")
        .status();
  });
}

Result<std::vector<SegmentVector>> PostgresEpisodicStore::SegmentVectorsSince(
    std::string_view signature, int64_t after_version, int limit) {
  if (limit <= 0) return std::vector<SegmentVector>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec("SELECT v.segment_id, s.owner, s.session_id, v.version, v.vector "
                 "FROM segment_vectors v JOIN segments s ON s.id = v.segment_id "
                 "WHERE v.signature = $1 AND v.version > $2 ORDER BY v.version LIMIT $3",
                 Params().Add(signature).Add(after_version).Add(static_cast<int64_t>(limit)),
                 "read recap vectors"));
  std::vector<SegmentVector> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    out.push_back({.segment_id = std::string(rows.Text(i, 0)),
                   .owner = std::string(rows.Text(i, 1)),
                   .session_id = std::string(rows.Text(i, 2)),
                   .version = rows.Int(i, 3),
                   .vector = rows.Floats(i, 4)});
  }
  return out;
}

}  // namespace mnemo::storage::internal

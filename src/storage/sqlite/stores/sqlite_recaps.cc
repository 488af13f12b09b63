// Search over segment recaps and recap vectors (schema v6) on SQLite
// (docs/storage.md). The recap index itself is kept by recap_index.cc.
#include <mutex>
#include <optional>
#include <string>

#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/episodic_sql.h"
#include "storage/sqlite/stores/sqlite_episodic_store.h"

namespace mnemo::storage::internal {

Result<std::vector<SegmentHit>> SqliteEpisodicStore::SearchSegments(const SegmentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<SegmentHit>();
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  ReaderLease db = db_->AcquireReader();
  // CROSS JOINs keep segment_recaps_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kSegmentColumns +
                      ", mnemo_score(segment_recaps_fts, r.doc_length) AS score "
                      "FROM segment_recaps_fts "
                      "CROSS JOIN segment_recaps r ON r.rowid = segment_recaps_fts.rowid "
                      "CROSS JOIN segments ON segments.id = r.segment_id "
                      "WHERE segment_recaps_fts MATCH ?1 AND segments.status = 'closed' AND "
                      "(?2 IS NULL OR segments.owner = ?2) AND "
                      "(?3 IS NULL OR segments.session_id = ?3) "
                      "ORDER BY score DESC, segments.closed_at DESC, segments.id LIMIT ?4",
                  "search segment recaps"));
  s.Bind(1, match);
  BindOptional(s, 2, query.owner);
  BindOptional(s, 3, query.session_id);
  s.Bind(4, static_cast<int64_t>(query.limit));
  return ReadAll<SegmentHit>(s, "search segment recaps", [](const Statement& row) {
    return SegmentHit{.row = ReadSegment(row), .score = row.ColumnDouble(kSegmentColumnCount)};
  });
}

Status SqliteEpisodicStore::PutSegmentVector(std::string_view segment_id,
                                             std::string_view signature,
                                             std::span<const float> vector) {
  MNEMO_RETURN_IF_ERROR(CheckSegmentVector(signature, vector, std::nullopt));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement find,
                           db.Prepare("SELECT 1 FROM segments WHERE id = ?", "find the segment"));
    find.Bind(1, segment_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the segment"));
    if (!found) return NotFound("no segment " + std::string(segment_id));
  }
  {
    MNEMO_ASSIGN_OR_RETURN(Statement dim,
                           db.Prepare("SELECT dim FROM segment_vectors WHERE signature = ? LIMIT 1",
                                      "read the dimension of the recap vectors"));
    dim.Bind(1, signature);
    MNEMO_ASSIGN_OR_RETURN(bool found, dim.Step("read the dimension of the recap vectors"));
    if (found) {
      MNEMO_RETURN_IF_ERROR(
          CheckSegmentVector(signature, vector, static_cast<size_t>(dim.ColumnInt(0))));
    }
  }
  int64_t version = 0;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement bump,
                           db.Prepare("UPDATE generations SET value = value + 1 "
                                      "WHERE name = 'segment_vectors' RETURNING value",
                                      "allocate a recap vector version"));
    MNEMO_ASSIGN_OR_RETURN(bool found, bump.Step("allocate a recap vector version"));
    if (!found) return Internal("allocate a recap vector version: no counter");
    version = bump.ColumnInt(0);
    MNEMO_RETURN_IF_ERROR(bump.Run("allocate a recap vector version"));
  }
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO segment_vectors (segment_id, signature, version, dim, vector) "
                 "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (signature, segment_id) DO UPDATE SET "
                 "version = excluded.version, dim = excluded.dim, vector = excluded.vector",
                 "store the recap vector"));
  std::string buffer;
  put.Bind(1, segment_id);
  put.Bind(2, signature);
  put.Bind(3, version);
  put.Bind(4, static_cast<int64_t>(vector.size()));
  put.BindBlob(5, EncodeVector(vector, buffer));
  MNEMO_RETURN_IF_ERROR(put.Run("store the recap vector"));
  return txn.Commit();
}

Result<std::vector<SegmentVector>> SqliteEpisodicStore::SegmentVectorsSince(
    std::string_view signature, int64_t after_version, int limit) {
  if (limit <= 0) return std::vector<SegmentVector>();
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare("SELECT v.segment_id, s.owner, s.session_id, v.version, v.vector "
                               "FROM segment_vectors v JOIN segments s ON s.id = v.segment_id "
                               "WHERE v.signature = ? AND v.version > ? ORDER BY v.version LIMIT ?",
                               "read recap vectors"));
  s.Bind(1, signature);
  s.Bind(2, after_version);
  s.Bind(3, static_cast<int64_t>(limit));
  return ReadAll<SegmentVector>(s, "read recap vectors", [](const Statement& row) {
    return SegmentVector{.segment_id = std::string(row.ColumnText(0)),
                         .owner = std::string(row.ColumnText(1)),
                         .session_id = std::string(row.ColumnText(2)),
                         .version = row.ColumnInt(3),
                         .vector = DecodeVector(row.ColumnBlob(4))};
  });
}

}  // namespace mnemo::storage::internal

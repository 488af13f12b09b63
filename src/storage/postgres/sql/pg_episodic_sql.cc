#include "storage/postgres/sql/pg_episodic_sql.h"

#include <string>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_text.h"

namespace mnemo::storage::internal::pg {

SegmentRow ReadSegment(const Rows& rows, int row, int first) {
  return SegmentRow{.id = std::string(rows.Text(row, first + 0)),
                    .owner = std::string(rows.Text(row, first + 1)),
                    .session_id = std::string(rows.Text(row, first + 2)),
                    .status = std::string(rows.Text(row, first + 3)),
                    .first_seq = rows.Int(row, first + 4),
                    .last_seq = rows.Int(row, first + 5),
                    .turn_count = rows.Int(row, first + 6),
                    .started_at = rows.Int(row, first + 7),
                    .last_turn_at = rows.Int(row, first + 8),
                    .closed_at = rows.Int(row, first + 9),
                    .centroid = rows.IsNull(row, first + 10) ? std::vector<float>()
                                                             : rows.Floats(row, first + 10),
                    .recap = std::string(rows.Text(row, first + 11)),
                    .recap_source = std::string(rows.Text(row, first + 12)),
                    .recap_attempts = rows.Int(row, first + 13)};
}

Status SyncRecapIndex(PgConn& conn, std::string_view segment_id, std::string_view recap) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows stored,
      conn.ExecPrepared("SELECT body, doc_length FROM segment_recaps WHERE segment_id = $1",
                        Params().Add(segment_id), "find the indexed recap"));
  const bool found = !stored.empty();
  if (found && stored.Text(0, 0) == recap) return Status::Ok();
  if (!found && recap.empty()) return Status::Ok();
  const int64_t old_length = found ? stored.Int(0, 1) : 0;
  if (recap.empty()) {
    MNEMO_RETURN_IF_ERROR(conn.ExecPrepared("DELETE FROM segment_recaps WHERE segment_id = $1",
                                            Params().Add(segment_id), "remove the indexed recap")
                              .status());
    return AddTextStats(conn, "segment_recaps", -1, -old_length);
  }
  const IndexedText text = IndexText({recap});
  Params p;
  p.Add(segment_id).Add(recap).Add(text.length).Add(TsvectorLiteral(text));
  if (found) {
    MNEMO_RETURN_IF_ERROR(conn.ExecPrepared("UPDATE segment_recaps SET body = $2, doc_length = $3, "
                                            "tsv = $4::tsvector WHERE segment_id = $1",
                                            p, "replace the indexed recap")
                              .status());
    return AddTextStats(conn, "segment_recaps", 0, text.length - old_length);
  }
  MNEMO_RETURN_IF_ERROR(
      conn.ExecPrepared("INSERT INTO segment_recaps (row_id, segment_id, body, doc_length, tsv) "
                        "VALUES (nextval('recap_rows'), $1, $2, $3, $4::tsvector)",
                        p, "index the recap")
          .status());
  return AddTextStats(conn, "segment_recaps", 1, text.length);
}

std::vector<IndexedText> IndexTurnTexts(std::span<const TurnWrite> rows) {
  std::vector<IndexedText> texts;
  texts.reserve(rows.size());
  for (const TurnWrite& w : rows) texts.push_back(IndexText({w.SearchText(w.row)}));
  return texts;
}

std::vector<TurnRow> CopyTurnRows(std::span<const TurnWrite> writes) {
  std::vector<TurnRow> rows;
  rows.reserve(writes.size());
  for (const TurnWrite& w : writes) rows.push_back(w.row);
  return rows;
}

Status InsertTurnsIn(PgConn& conn, std::span<TurnRow> rows, std::span<const TurnWrite> writes,
                     std::span<const IndexedText> texts) {
  if (rows.empty()) return Status::Ok();
  // MAX + 1 is safe: the writer lock serialises every append of every
  // process, and the UNIQUE (owner, session_id, seq) backs it up.
  MNEMO_ASSIGN_OR_RETURN(
      Rows last,
      conn.ExecPrepared("SELECT COALESCE(MAX(seq) + 1, 0) FROM turns WHERE owner = $1 AND "
                        "session_id = $2",
                        Params().Add(rows[0].owner).Add(rows[0].session_id),
                        "find the session's next sequence number"));
  int64_t seq = last.Int(0, 0);
  int64_t tokens = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    TurnRow& row = rows[i];
    const IndexedText& text = texts[i];
    row.seq = seq++;
    row.id = 0;
    MNEMO_ASSIGN_OR_RETURN(row.id,
                           internal::InsertTurnIn(conn, row, writes[i].SearchText(row), text));
    tokens += text.length;
  }
  return AddTextStats(conn, "turns", static_cast<int64_t>(rows.size()), tokens);
}

}  // namespace mnemo::storage::internal::pg

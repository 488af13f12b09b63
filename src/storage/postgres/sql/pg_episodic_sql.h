// SQL pieces over the `segments` table shared by the segment and the recap
// half of the PostgreSQL backend (as sqlite/rows/episodic_sql.h and
// sqlite/fts/recap_index.h are for SQLite): the columns, their reader, and the
// keyword index of recaps that every write of a segment keeps.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "storage/episodic.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_text.h"

namespace mnemo::storage::internal::pg {

// The columns ReadSegment expects, in order, from `segments s`.
inline constexpr const char* kSegmentColumns =
    "s.id, s.owner, s.session_id, s.status, s.first_seq, s.last_seq, s.turn_count, "
    "s.started_at, s.last_turn_at, s.closed_at, s.centroid, s.recap, s.recap_source, "
    "s.recap_attempts";
inline constexpr int kSegmentColumnCount = 14;

// The segment in kSegmentColumns of `row` starting at column `first`.
SegmentRow ReadSegment(const Rows& rows, int row, int first = 0);

// Inside the caller's write transaction: makes `segment_recaps` hold
// `recap` for segment `segment_id` (one row per segment with a non-empty
// recap, its tokens in `tsv`), keeping the "segment_recaps" keyword
// statistics exact. Nothing is written when the row already holds `recap`.
Status SyncRecapIndex(PgConn& conn, std::string_view segment_id, std::string_view recap);

// The index tokens of each row's search_text, to compute before the writer
// lock is taken.
std::vector<IndexedText> IndexTurnTexts(std::span<const TurnWrite> rows);

// The rows of `writes` the caller must keep (AppendTurns' and ClaimTurn's
// const writes), copied once before the retried write transaction, to be
// stored in place by InsertTurnsIn and returned. RecordTurn moves its own.
std::vector<TurnRow> CopyTurnRows(std::span<const TurnWrite> writes);
// Inside the caller's write transaction (which holds the writer lock):
// appends validated `rows` of one (owner, session) with the session's next
// seqs, setting each row's seq and id in place (a retried attempt stores the
// same rows again), and keeps the "turns" keyword statistics. Row i's search
// text is writes[i].search_text (their `row` is not read) and its tokens
// texts[i], from IndexTurnTexts(writes).
Status InsertTurnsIn(PgConn& conn, std::span<TurnRow> rows, std::span<const TurnWrite> writes,
                     std::span<const IndexedText> texts);

}  // namespace mnemo::storage::internal::pg

// SQL pieces over the `segments` table shared by the segment and the recap
// half of the SQLite backend: the columns and their reader.
#pragma once

#include "storage/episodic.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

// The columns ReadSegment expects, in order, from `segments` (unqualified:
// a query that joins other tables gives them no column of these names).
inline constexpr const char* kSegmentColumns =
    "id, owner, session_id, status, first_seq, last_seq, turn_count, started_at, last_turn_at, "
    "closed_at, centroid, recap, recap_source, recap_attempts";
inline constexpr int kSegmentColumnCount = 14;

// The segment in kSegmentColumns starting at column 0.
SegmentRow ReadSegment(const Statement& s);

}  // namespace mnemo::storage::internal

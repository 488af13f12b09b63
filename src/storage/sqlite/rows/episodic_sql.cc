#include "storage/sqlite/rows/episodic_sql.h"

#include <string>

#include "storage/sqlite/rows/entry_sql.h"

namespace mnemo::storage::internal {

SegmentRow ReadSegment(const Statement& s) {
  return SegmentRow{.id = std::string(s.ColumnText(0)),
                    .owner = std::string(s.ColumnText(1)),
                    .session_id = std::string(s.ColumnText(2)),
                    .status = std::string(s.ColumnText(3)),
                    .first_seq = s.ColumnInt(4),
                    .last_seq = s.ColumnInt(5),
                    .turn_count = s.ColumnInt(6),
                    .started_at = s.ColumnInt(7),
                    .last_turn_at = s.ColumnInt(8),
                    .closed_at = s.ColumnInt(9),
                    .centroid = DecodeVector(s.ColumnBlob(10)),
                    .recap = std::string(s.ColumnText(11)),
                    .recap_source = std::string(s.ColumnText(12)),
                    .recap_attempts = s.ColumnInt(13)};
}

}  // namespace mnemo::storage::internal

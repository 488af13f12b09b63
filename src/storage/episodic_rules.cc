#include "storage/episodic_rules.h"

namespace mnemo::storage::internal {

Status ValidateTurnWrites(std::span<const TurnWrite> rows) {
  for (const TurnWrite& w : rows) {
    const TurnRow& r = w.row;
    if (r.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
    if (r.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
    if (r.owner != rows[0].row.owner || r.session_id != rows[0].row.session_id) {
      return InvalidArgument("one append holds the rows of one owner and session", "session_id");
    }
    if (r.role != "user" && r.role != "assistant") {
      return InvalidArgument("role must be user or assistant", "role");
    }
  }
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

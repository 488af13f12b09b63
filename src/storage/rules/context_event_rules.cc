#include "storage/rules/context_event_rules.h"

namespace mnemo::storage::internal {

Status ValidateContextEvent(const ContextEventRow& row) {
  if (row.owner.empty()) return InvalidArgument("owner must not be empty", "owner");
  if (row.session_id.empty()) return InvalidArgument("session_id must not be empty", "session_id");
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

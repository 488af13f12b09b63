// Backend-independent rules of the episodic contract (backend.h), shared by
// every backend.
#pragma once

#include <span>

#include "mnemo/status.h"
#include "storage/episodic.h"

namespace mnemo::storage::internal {

// An append must name one (owner, session): non-empty, and the same for
// every row; roles are "user" or "assistant" (kInvalidArgument otherwise).
Status ValidateTurnWrites(std::span<const TurnWrite> rows);

}  // namespace mnemo::storage::internal

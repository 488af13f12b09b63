// Backend-independent rules of the context-event part of the storage
// contract (context_event_store.h), shared by every backend so that they cannot drift.
#pragma once

#include "mnemo/status.h"
#include "storage/context_events.h"

namespace mnemo::storage::internal {

// An event needs an owner and a session_id (kInvalidArgument otherwise).
Status ValidateContextEvent(const ContextEventRow& row);

}  // namespace mnemo::storage::internal

// Who reads what under the access control of spec 10: one answer for every
// service. While ACL is off everyone acts as an admin.
#pragma once

#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo {

// Whether `who` reads and manages every principal's data.
inline bool IsAdmin(const Principal& who, bool acl_enabled) {
  return !acl_enabled || who.role == Role::kAdmin;
}

// Whose entries `who` reads: everyone's for an admin, else its own (and the
// public ones).
inline storage::ReadScope ReadScopeFor(const Principal& who, bool acl_enabled) {
  return {.all = IsAdmin(who, acl_enabled), .principal = who.name};
}

}  // namespace mnemo

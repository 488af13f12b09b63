// Who reads what under the access control of spec 10: one answer for every
// service. While ACL is off everyone acts as an admin.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

// Whether `who` may correct or delete what `owner` owns (a facet, an event,
// a triple): an admin anything, a user its own.
inline bool MayChange(const Principal& who, bool acl_enabled, std::string_view owner) {
  return IsAdmin(who, acl_enabled) || owner == who.name;
}

// The owner whose item `who` addresses: `requested` for an admin that
// names one, else `who` itself (a user naming another is ignored, as
// memory.forget and memory.session_forget do).
inline std::string OwnerAddressed(const Principal& who, bool acl_enabled,
                                  const std::optional<std::string>& requested) {
  return requested && IsAdmin(who, acl_enabled) ? *requested : who.name;
}

}  // namespace mnemo

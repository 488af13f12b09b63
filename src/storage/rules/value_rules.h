// The rules of the checked values (storage/values.h): one function per
// field, each the one statement of its limits (mnemo/limits.h). They sit in
// storage, the lowest layer that takes the values, so that every layer that
// parses one (core's services, the stores' own tests) states it the same way.
// Messages say what was wrong and what is allowed; the Status field names the
// parameter.
#pragma once

#include <cstddef>
#include <string_view>

#include "mnemo/status.h"

namespace mnemo {

// 1-kMaxKeyBytes bytes, valid UTF-8, no control characters, not blank.
Status ValidateKey(std::string_view key, std::string_view field = "key");
// A session id: not blank, and a valid key (kInvalidArgument "session_id").
// The one check of every method that names a session.
Status ValidateSessionId(std::string_view session_id);
// core, daily, conversation, or [a-z0-9_-]{1,kMaxCategoryBytes}.
Status ValidateCategory(std::string_view category, std::string_view field = "category");
// 1-kMaxNamespaceBytes bytes of [A-Za-z0-9_.:*-] (e.g. global, skill-git,
// tool-send_email).
Status ValidateNamespace(std::string_view ns, std::string_view field = "namespace");
// A search query: not blank, and ValidateQueryLength (field "query").
Status ValidateQuery(std::string_view query);
// At most kMaxContentBytes, the message naming the size and the limit.
Status ValidateQueryLength(std::string_view query);
// At most `max_bytes` (a limit of mnemo/limits.h): kInvalidArgument naming
// `field`, the size and the limit otherwise. Checks nothing else.
Status ValidateSize(std::string_view value, std::string_view field, size_t max_bytes);
// A turn id of memory.turn_complete: 1 to kMaxTurnIdBytes bytes of UTF-8
// (kInvalidArgument "turn_id" naming its length and the limit otherwise).
Status ValidateTurnId(std::string_view turn_id);
// A principal's name (PrincipalId, values.h): 1-kMaxPrincipalBytes of UTF-8,
// no control character (so one line), not blank.
Status ValidatePrincipal(std::string_view name, std::string_view field = "principal");
// Whether `s` holds an ASCII control character (below 0x20, or 0x7f).
bool HasControlCharacter(std::string_view s);

}  // namespace mnemo

// RFC3339 rendering and parsing of TimeMs (UTC).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mnemo/types.h"

namespace mnemo::internal {

// "2026-11-29T10:00:00.123Z" (milliseconds always present).
std::string FormatRfc3339(TimeMs ms);

// Accepts "YYYY-MM-DDTHH:MM:SS[.fff...](Z|±HH:MM)"; `t` or ` ` as separator.
// Refuses what is not a real instant (RFC 3339 §5.7): a day past its month's
// end (2026-02-30, 2025-02-29), an offset beyond ±23:59, a field out of range.
std::optional<TimeMs> ParseRfc3339(std::string_view s);

}  // namespace mnemo::internal

// The JSON form of a context event (spec 50): what memory.context_append
// takes and what the store keeps byte for byte. One parser serves the wire
// and the events read back from storage.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mnemo/context_window_types.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo {

// {"input", "response", "tool_results": [{"name", "output", "success",
// "clean_output"?}], "timestamp"?} where every member is optional,
// "timestamp" is RFC3339 text or milliseconds since the epoch, and other
// members are allowed (kept in the stored text, ignored here). Texts must
// be valid UTF-8 of at most 1 MiB each; a tool result needs a name; the
// event needs an input, a response or a tool result. kInvalidArgument names
// the member ("event.tool_results[1].name").
Result<ContextEvent> ContextEventFromJson(const nlohmann::json& j);
// The same from JSON text (kInvalidArgument naming "event" when it is not JSON).
Result<ContextEvent> ParseContextEvent(std::string_view json_text);

// The canonical JSON of `e` (tool_results always present, timestamp as
// RFC3339 when set).
nlohmann::json ContextEventToJson(const ContextEvent& e);

}  // namespace mnemo

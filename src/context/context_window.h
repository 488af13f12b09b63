// The context window (spec 50, "Context window and documents"): how an event
// of a harness's working context is rendered and what of it takes part in
// computation, and which events a window of a given budget holds. Pure
// functions; the engine stores the events and scores them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "context/tool_registry.h"
#include "mnemo/context_window_types.h"
#include "mnemo/types.h"

namespace mnemo::context {

// The one rendering of an event, used for the window's budget and for the
// documents pruned events become: "user: <input>", "assistant: <response>"
// and one "[tool] <name>: <output>" line per tool result (the raw output),
// each present when non-empty, joined by "\n".
std::string RenderEvent(const ContextEvent& event);

// What an event contributes to computation (spec 50): the input, the
// response and each tool result as a turn's tool call takes part
// (ComputeTurnText: nothing for a no_memory tool, a non-blank clean_output,
// the registered cleaner's output, else the raw output), joined by "\n".
std::string EventComputationText(const ToolRegistry& tools, const ContextEvent& event);

// An event offered to SelectWindow: its rendered size and its relevance.
struct WindowItem {
  int64_t chars = 0;  // code points of the rendered event
  double score = 0;   // relevance to the query; 0 = none
};

struct WindowPick {
  size_t index = 0;  // into the items
  bool is_protected = false;
  int64_t chars = 0;  // taken: the item's, or the budget when truncated
  bool truncated = false;
};

// The events of a window of `budget` code points over `items` (in seq
// order), returned in seq order:
// 1. the last `protected_count` items, newest first, while each fits what
//    is left of the budget; the first one that does not fit ends this step.
//    The newest item is always taken, truncated to the budget when it alone
//    is larger;
// 2. then the older items (before the protected ones) with a score > 0, by
//    score descending, then newest first, each when it fits what is left.
// The picks' chars never sum to more than `budget` (for budget >= 0).
std::vector<WindowPick> SelectWindow(std::span<const WindowItem> items, size_t protected_count,
                                     int64_t budget);

}  // namespace mnemo::context

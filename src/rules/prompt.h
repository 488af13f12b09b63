// The pinned block of spec 30 (`rules_for_prompt`): which rules go into the
// system prompt and their exact, byte-stable rendering.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mnemo/types.h"

namespace mnemo::rules {

// Critical rules above this count are all still pinned, with a warning.
inline constexpr size_t kCriticalWarnThreshold = 100;

struct PromptSelection {
  // Critical rules and the `high_cap` most recently updated high rules, in
  // rendering order (tool ascending with "*" last, priority descending, rule
  // text, id).
  std::vector<ToolRule> rules;
  size_t critical = 0;
  size_t high_dropped = 0;  // high rules left out by the cap
};

// Normal rules are never pinned; every critical rule is, whatever `high_cap`.
// Of the high rules, the `high_cap` most recently updated (updated_at
// descending, then id ascending) join them; `high_cap` <= 0 keeps none. The
// result does not depend on the order of `rules`. Logging the warning when
// `critical` exceeds kCriticalWarnThreshold is the caller's job.
PromptSelection SelectForPrompt(std::vector<ToolRule> rules, int64_t high_cap);

// The markdown block of spec 30 for `rules` (already selected and ordered by
// SelectForPrompt); "" when empty. One "### `tool`" group per run of equal
// tool names, "*" headed "### `*` (any tool)". Rule text and tool names have
// their whitespace collapsed (a stored newline cannot forge a heading) and a
// backtick in a tool name becomes '. `acl`: the preamble names memory_search
// (memory_recall does not exist under ACL).
std::string RenderPromptBlock(const std::vector<ToolRule>& rules, bool acl);

}  // namespace mnemo::rules

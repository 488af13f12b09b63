// The names of the public enums (mnemo/types.h) as they appear on the wire,
// in storage and in exports, and their parsers: stated once, here, for the
// engine, its backends and every transport.
#pragma once

#include <string_view>

#include "mnemo/status.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

std::string_view VisibilityName(Visibility v);  // "private" | "public"
std::string_view PriorityName(RulePriority p);  // "critical" | "high" | "normal"
std::string_view SourceName(RuleSource s);      // "user_explicit" | "post_turn" | "programmatic"

// kInvalidArgument naming `field` and the allowed values.
Result<Visibility> ParseVisibility(std::string_view name, std::string_view field = "visibility");
Result<RulePriority> ParsePriority(std::string_view name, std::string_view field = "priority");
Result<RuleSource> ParseSource(std::string_view name, std::string_view field = "source");

}  // namespace mnemo

#pragma GCC visibility pop

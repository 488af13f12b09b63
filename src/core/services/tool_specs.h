// Tool declarations (spec 50) between the public ToolSpec, the registry's
// compiled context::ToolSpec and the entry that persists a registration in
// namespace `tool_registry`. Private to src/core.
#pragma once

#include <string>
#include <string_view>

#include "context/tool_registry.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::internal {

// Whose entries hold the persisted registrations (they belong to the
// workspace, not to a principal).
inline constexpr std::string_view kToolRegistryOwner = "mnemo";

// Validates and compiles a declaration: the name normalised and checked like
// a tool-rule tool name ("*" is refused), the cleaner parsed. Errors are
// kInvalidArgument and name the tool and, for a cleaner, the failing step:
// `tool "files_read": cleaner step 1 (json_field): ...`.
Result<context::ToolSpec> CompileToolSpec(const ToolSpec& spec);

// The public view of a registry spec.
ToolInfo ToolInfoOf(const context::ToolSpec& spec, context::ToolSource source);

// The persisted form: a JSON object {name, plugin, description, no_memory,
// cleaner (the steps' array)}. Decoding is strict (kInvalidArgument).
std::string EncodeStoredTool(const context::ToolSpec& spec);
Result<ToolSpec> DecodeStoredTool(std::string_view json_text);

}  // namespace mnemo::internal

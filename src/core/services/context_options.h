// What Engine::Open builds mnemo::Context (mnemo/context.h) with: its
// options from the configuration and the tool registry's hook; and the
// sources of the documents a prune archives, which erasure reads too.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "context/tool_registry.h"
#include "mnemo/config.h"
#include "mnemo/status.h"

namespace mnemo::internal {

// The tool registry, brought up to date with what other processes
// registered (whose no_memory and cleaners decide what of an event is
// indexed).
using ToolRegistryFn = std::function<Result<const context::ToolRegistry*>()>;

// Built by ContextOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ContextOptions {
  bool enabled{};             // memory.enabled
  int64_t max_event_bytes{};  // server.max_body_bytes: an event's JSON
  ToolRegistryFn registry;
};

ContextOptions ContextOptionsOf(const Config& config, ToolRegistryFn registry);

}  // namespace mnemo::internal

namespace mnemo {

// The source of a context-prune archive document of `session_id` starts
// with ContextArchiveSourcePrefix ("context:<session>#seq"), followed by
// "<first>-<last>"; IsContextArchiveOf tells it from another session's
// whose id merely starts the same.
std::string ContextArchiveSourcePrefix(std::string_view session_id);
bool IsContextArchiveOf(std::string_view source, std::string_view session_id);

}  // namespace mnemo

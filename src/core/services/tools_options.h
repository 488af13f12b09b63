// What Engine::Open builds mnemo::Tools (mnemo/tools.h) with: its options
// from the configuration.
#pragma once

#include <cstdint>
#include <vector>

#include "mnemo/config.h"

namespace mnemo::internal {

// Built by ToolsOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ToolsOptions {
  bool enabled{};                    // memory.enabled: a principal's calls
  bool acl_enabled{};                // memory.acl_enabled: registering needs the admin role
  int64_t max_body_bytes{};          // server.max_body_bytes: a cleaner's JSON limits
  std::vector<ToolConfig> declared;  // [[tools]]
};

ToolsOptions ToolsOptionsOf(const Config& config);

}  // namespace mnemo::internal

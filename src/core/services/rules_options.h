// What Engine::Open builds mnemo::Rules (mnemo/rules.h) with: its options
// from the configuration and the hook that embeds rule texts that changed.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "mnemo/config.h"
#include "rules/tool_match.h"
#include "storage/entry_store.h"

namespace mnemo::internal {

// Embeds `texts` and stores their vectors under `labels`; a failure is not
// fatal (the rules stay without a vector, as entries do).
using EmbedFn =
    std::function<void(std::span<const storage::Label> labels, std::span<const std::string> texts)>;

// Built by RulesOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct RulesOptions {
  bool enabled{};                     // memory.enabled
  bool acl_enabled{};                 // memory.acl_enabled
  int64_t prompt_cap{};               // rules.prompt_cap: high rules pinned per block
  std::vector<rules::Alias> aliases;  // the built-in table with [[rules.aliases]]
  bool capture_enabled{};             // learning.tool_memory_capture_enabled
  std::string secrets;                // security.secrets
  EmbedFn embed;                      // null: rules get no vector
};

RulesOptions RulesOptionsOf(const Config& config, EmbedFn embed);

}  // namespace mnemo::internal

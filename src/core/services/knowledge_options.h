// What Engine::Open builds mnemo::Knowledge (mnemo/knowledge.h) with: its
// options from the configuration.
#pragma once

#include <string>

#include "mnemo/config.h"

namespace mnemo::internal {

// Built by KnowledgeOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct KnowledgeOptions {
  bool enabled{};       // memory.enabled
  bool acl_enabled{};   // memory.acl_enabled: each principal reads its own triples
  std::string secrets;  // security.secrets
};

KnowledgeOptions KnowledgeOptionsOf(const Config& config);

}  // namespace mnemo::internal

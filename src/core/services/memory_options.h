// What Engine::Open builds mnemo::Memory (mnemo/memory.h) with: its options
// from the configuration.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/search/vectors_service.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"
#include "storage/stores.h"

namespace mnemo {

// Built by MemoryOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct MemoryOptions {
  // [memory] also holds memory.enabled, which every call checks first.
  bool acl_enabled{};              // memory.acl_enabled
  std::string secrets;             // security.secrets
  Config::Memory memory;           // [memory]: enabled, hygiene's ages and switches
  std::string backend;             // what stats report
  std::string embedding_provider;  // embedding.provider, as configured
  int schema_version{};
};

MemoryOptions MemoryOptionsOf(const Config& config, const storage::Stores& stores);

}  // namespace mnemo

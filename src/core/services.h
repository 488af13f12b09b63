// The services behind an Engine (docs/architecture.md, "The front door"):
// the internal ones, by reference, over which the public services of
// include/mnemo that are not yet services themselves (Memory) is
// built. Private to src/core: Engine::Open builds it,
// those public services read it; nothing outside src/core sees it.
#pragma once

#include "core/search/recall_service.h"
#include "core/search/search_service.h"
#include "core/services/memory_service.h"
#include "mnemo/config.h"
#include "mnemo/services_fwd.h"
#include "mnemo/status.h"

namespace mnemo::internal {

// Hidden at its declarations in include/mnemo, and so here.
struct __attribute__((visibility("hidden"))) Services {
  const Config& config;
  MemoryService& memory;
  SearchService& search;
  RecallService& recall;

  // kDisabled when memory.enabled = false. Checked once per call, by the
  // public service's method (include/mnemo) before the internal service
  // runs; the internal services do not check it.
  Status CheckEnabled() const;
};

}  // namespace mnemo::internal

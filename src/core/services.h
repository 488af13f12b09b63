// The services behind an Engine (docs/architecture.md, "Services"): what the
// transports' method table calls, so that an RPC method needs no method of
// the public facade. Private to the library: src/core builds it, src/transport
// reads it through Engine::services().
#pragma once

#include "core/admin_service.h"
#include "core/archivist_service.h"
#include "core/context_window_service.h"
#include "core/documents_service.h"
#include "core/graph_service.h"
#include "core/memory_service.h"
#include "core/recall_service.h"
#include "core/rules_service.h"
#include "core/search_service.h"
#include "core/tools_service.h"
#include "mnemo/config.h"
#include "mnemo/status.h"

namespace mnemo::internal {

// Hidden at its declaration in mnemo/engine.h, and so here.
struct __attribute__((visibility("hidden"))) Services {
  const Config& config;
  MemoryService& memory;
  SearchService& search;
  ToolsService& tools;
  RulesService& rules;
  GraphService& graph;
  DocumentsService& documents;
  ContextWindowService& context_window;
  ArchivistService& archivist;
  RecallService& recall;
  AdminService& admin;

  // kDisabled when memory.enabled = false. Checked once per call, before
  // the service: by each facade method and by the method table for every
  // method that reads or writes memory. The services do not check it.
  Status CheckEnabled() const;
};

}  // namespace mnemo::internal

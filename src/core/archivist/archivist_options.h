// What Engine::Open builds mnemo::Archivist (mnemo/archivist.h) with: its
// options from the configuration.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "archivist/archive/archive_writer.h"
#include "base/background_worker.h"
#include "context/tool_registry.h"
#include "core/archivist/recap_vectors.h"
#include "core/search/vectors_service.h"
#include "llm/chat_client.h"
#include "mnemo/archivist.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/rules.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"
#include "storage/document_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"

namespace mnemo {

// Built by ArchivistOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ArchivistOptions {
  bool memory_enabled{};         // memory.enabled: idle segments stay open while off
  bool acl_enabled{};            // memory.acl_enabled: each principal reads its own
  std::string secrets;           // security.secrets
  bool redact_episodic{};        // security.redact_episodic
  Config::Learning learning;     // [learning]
  Config::Search search;         // [search]: how recaps are fused for recall
  int64_t recap_token_budget{};  // llm.recap_token_budget
  // The segment drift check's floor: learning.min_cosine_similarity, or its
  // default for the configured embedder (spec 15).
  double min_cosine{};
  std::string workspace;     // MEMORY.md and SKILL.md live here
  std::string archive_root;  // <workspace>/memory_tree/content/episodic
  int64_t max_body_bytes{};  // server.max_body_bytes: a tool call's arguments
};

ArchivistOptions ArchivistOptionsOf(const Config& config, const std::string& workspace);

}  // namespace mnemo

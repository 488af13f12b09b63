// What Engine::Open builds mnemo::Admin (mnemo/admin.h) with: its options
// from the configuration; and what the administration's files share
// (src/core/admin/admin*.cc).
#pragma once

#include <chrono>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "context/tool_registry.h"
#include "core/archivist/archivist_options.h"
#include "core/formats/line_reader.h"
#include "core/search/vectors_service.h"
#include "mnemo/admin.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"
#include "storage/stores.h"

namespace mnemo {

namespace internal {

// Built by AdminOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct AdminOptions {
  bool enabled{};                  // memory.enabled
  bool acl_enabled{};              // memory.acl_enabled
  std::string embedding_provider;  // embedding.provider
  bool audit_enabled{};            // security.audit.enabled
  std::string secrets;             // security.secrets: what an import may bring
  int64_t max_body_bytes{};        // server.max_body_bytes: one import line at most
  std::string workspace;           // absolute
  std::string memory_path;         // memory.path (the markdown store; "" default)
  std::string audit_path;          // security.audit.path, from the workspace when relative
};

AdminOptions AdminOptionsOf(const Config& config, const std::string& workspace);

}  // namespace internal

// How long memory.health's database check may read (a 1M-entry store takes
// longer; the answer then says the check did not finish).
inline constexpr std::chrono::milliseconds kHealthIntegrityBudget{2000};

// The write that restores an imported entry as given (id, times, counters,
// flags); `now` stands in for a missing updated_at (admin_import_v1.cc).
storage::EntryWrite WriteOfEntry(const Entry& e, TimeMs now);

}  // namespace mnemo

// The tools service (spec 50, "Tool registry"): the registry of tools whose
// output is cleaned or kept out of computation, filled from mnemo.toml's
// [[tools]], from memory.tool_register (persisted as entries of namespace
// `tool_registry`, shared by every process on the store) and from C++. It
// owns the registry and what it last read of the persisted registrations,
// and takes only the entry store, the clock, the logger and its options.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "context/tool_registry.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo {

// Built by ToolsOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ToolsOptions {
  bool acl_enabled{};                // memory.acl_enabled: registering needs the admin role
  int64_t max_body_bytes{};          // server.max_body_bytes: a cleaner's JSON limits
  std::vector<ToolConfig> declared;  // [[tools]]
};

ToolsOptions ToolsOptionsOf(const Config& config);

class ToolsService {
 public:
  // Compiles the declared tools (kInvalidArgument naming the tool) and loads
  // the persisted registrations.
  static Result<std::unique_ptr<ToolsService>> Open(storage::EntryStore& entries,
                                                    std::shared_ptr<Clock> clock,
                                                    std::shared_ptr<Logger> logger,
                                                    ToolsOptions options);

  // The registry with the persisted registrations reloaded when another
  // process changed them (one counter read when nothing changed).
  Result<const context::ToolRegistry*> Current();
  // The registry as last loaded, without reading the store (for rendering
  // what a search found).
  const context::ToolRegistry& registry() const { return registry_; }

  // Tools::Register: persisted for a principal (admin role under ACL;
  // the caller checks that memory is enabled), in this process only for
  // `who` null (which may carry a C++ cleaner). Returns what is in force.
  Result<ToolInfo> Register(const Principal* who, const ToolSpec& spec);
  // Tools::List: every tool in force, by name.
  Result<std::vector<ToolInfo>> List();

 private:
  ToolsService(storage::EntryStore& entries, std::shared_ptr<Clock> clock,
               std::shared_ptr<Logger> logger, ToolsOptions options);
  Status Refresh();

  storage::EntryStore& entries_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const ToolsOptions options_;
  context::ToolRegistry registry_;

  // The persisted registrations last loaded (key -> entry content), to
  // recompile only on a change, and EntryStore::Generation(kToolRegistry)
  // when they were read (-1 before the first read).
  std::mutex stored_mu_;
  std::map<std::string, std::string> stored_seen_;
  int64_t stored_generation_ = -1;
};

}  // namespace mnemo

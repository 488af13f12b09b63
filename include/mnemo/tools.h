// mnemo::Tools — the tool registry (spec 50): the tools whose output is
// cleaned or kept out of computation. Sources, a later one hiding an earlier
// one of the same name: [[tools]] in mnemo.toml < Register(who, ...)
// (memory.tool_register: persisted in the reserved namespace
// `tool_registry`, shared by every process of the workspace) <
// Register(spec) (this Engine only; may carry a C++ cleaner).
//
// The tools service itself: made by Engine::Open over the engine's entry
// store and handed out by Engine::tools(); it lives as long as its Engine and
// owns the registry and what it last read of the persisted registrations.
// The calls of a principal answer kDisabled while memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage, src/context); no caller can make one.
// Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace storage {
class EntryStore;
}  // namespace storage
namespace context {
class ToolRegistry;
}  // namespace context
namespace internal {
class AuditLog;       // src/core/audit_log.h: null when [security.audit] is off
struct ToolsOptions;  // src/core/services/tools_options.h
}  // namespace internal
class RecallService;
#pragma GCC visibility pop
class Admin;
class Archivist;

class Tools {
 public:
  // Made by Engine::Open (Open below): the entry store and the options are
  // the engine's.
  ~Tools();
  Tools(const Tools&) = delete;
  Tools& operator=(const Tools&) = delete;

  // Invalid names or cleaner specs are kInvalidArgument naming the failing
  // step. A change applies to later turns; `mnemo reindex` applies it to
  // what is already stored. Persisting needs the admin role under ACL, and
  // a spec with `cleaner_fn` cannot be persisted (kInvalidArgument).
  Result<ToolInfo> Register(const Principal& who, const ToolSpec& spec);
  Result<ToolInfo> Register(const ToolSpec& spec);
  // Every tool in force, by name.
  Result<std::vector<ToolInfo>> List(const Principal& who);

 private:
  // The engine opens it and hands its registry to the context window; the
  // Archivist, recall and admin read the registry.
  friend class Engine;
  friend class Admin;
  friend class Archivist;
  friend class RecallService;

  [[gnu::visibility("hidden")]] Tools(storage::EntryStore& entries, internal::AuditLog* audit,
                                      std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                                      internal::ToolsOptions options);
  // Compiles the declared tools (kInvalidArgument naming the tool) and loads
  // the persisted registrations.
  [[gnu::visibility("hidden")]] static Result<std::unique_ptr<Tools>> Open(
      storage::EntryStore& entries, internal::AuditLog* audit, std::shared_ptr<Clock> clock,
      std::shared_ptr<Logger> logger, internal::ToolsOptions options);
  // The registry with the persisted registrations reloaded when another
  // process changed them (one counter read when nothing changed).
  Result<const context::ToolRegistry*> Current();
  // The registry as last loaded, without reading the store (for rendering
  // what a search found).
  const context::ToolRegistry& registry() const;
  // Persisted for a principal (admin role under ACL), in this process only
  // for `who` null (which may carry a C++ cleaner). Returns what is in force.
  Result<ToolInfo> RegisterFor(const Principal* who, const ToolSpec& spec);
  Status Refresh();

  storage::EntryStore& entries_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::unique_ptr<const internal::ToolsOptions> options_;
  const std::unique_ptr<context::ToolRegistry> registry_;
  // The persisted registrations last loaded (key -> entry content), to
  // recompile only on a change, and EntryStore::Generation(kToolRegistry)
  // when they were read (-1 before the first read).
  std::mutex stored_mu_;
  std::map<std::string, std::string> stored_seen_;
  int64_t stored_generation_ = -1;
};

}  // namespace mnemo

#pragma GCC visibility pop

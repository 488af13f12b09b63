// mnemo::Tools — the tool registry (spec 50): the tools whose output is
// cleaned or kept out of computation. Sources, a later one hiding an earlier
// one of the same name: [[tools]] in mnemo.toml < Register(who, ...)
// (memory.tool_register: persisted in the reserved namespace
// `tool_registry`, shared by every process of the workspace) <
// Register(spec) (this Engine only; may carry a C++ cleaner).
//
// Made by Engine::Open and handed out by Engine::tools(); it lives as long
// as its Engine. The calls of a principal answer kDisabled while
// memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <vector>

#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

class Tools {
 public:
  // Made by Engine::Open only.
  explicit Tools(const internal::Services& services) : services_(services) {}
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
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop

// mnemo::Engine — the public entry point of libmnemo: it opens a workspace,
// owns its services and hands them out. The services are the API
// (engine.memory().Store(...), engine.rules().Put(...), ...): each checks its
// requests against include/mnemo/limits.h and whether memory is enabled, so
// a C++ caller and the transports obey the same rules.
//
// Thread-safety: one Engine serves many threads at once; every member function
// of it and of its services may be called concurrently. Errors are returned
// as Status/Result, never thrown.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mnemo/admin.h"
#include "mnemo/archivist.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/context.h"
#include "mnemo/documents.h"
#include "mnemo/knowledge.h"
#include "mnemo/logger.h"
#include "mnemo/memory.h"
#include "mnemo/rules.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

struct EngineOptions {
  // Workspace folder (spec 00). Created with mode 0700 when missing.
  // Empty: resolved by ResolveWorkspace("").
  std::string workspace;
  Config config;
  std::shared_ptr<Clock> clock;  // null: SystemClock()
  // Where warnings of background work go (mnemo/logger.h). Null: standard
  // error at MNEMO_LOG's level (Open fails when MNEMO_LOG is not a level).
  std::shared_ptr<Logger> logger;
};

// --workspace DIR, else $MNEMO_WORKSPACE, else
// ${XDG_DATA_HOME:-$HOME/.local/share}/mnemo.
std::string ResolveWorkspace(std::string_view flag);

class Engine {
 public:
  // Opens (and creates, migrating forward if needed) the workspace's storage.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const Config& config() const;
  // The engine's logger, for its transports to report through.
  Logger& logger() const;
  // Absolute path of the workspace folder.
  const std::string& workspace() const;

  // The services (one of each per engine, living as long as it).
  Memory& memory();        // entries: the memory tools (spec 10, 20)
  Rules& rules();          // tool-scoped rules (spec 30)
  Archivist& archivist();  // turns, episodic memory, events (spec 40)
  Knowledge& knowledge();  // the profile and the graph (spec 40, 50)
  Documents& documents();  // documents (spec 50)
  Context& context();      // the context window and block (spec 50)
  Tools& tools();          // the tool registry (spec 50)
  Admin& admin();          // backup, reindex, erasure, hygiene, health

  // src/core/engine_impl.h. Hidden although Engine is exported: the
  // engine's state is no part of libmnemo's interface.
  struct __attribute__((visibility("hidden"))) Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mnemo

#pragma GCC visibility pop

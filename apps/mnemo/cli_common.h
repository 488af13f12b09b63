// What every CLI command shares: the global flags, opening the engine with
// the configuration of spec 15, the principal, exit codes and calling a
// method of the table.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "mnemo/status.h"

namespace mnemo::app {

// Exit codes (spec 10): 0 ok, 1 user error, 2 internal error.
inline constexpr int kExitOk = 0;
inline constexpr int kExitUser = 1;
inline constexpr int kExitInternal = 2;

struct GlobalOptions {
  std::string workspace;  // --workspace
  std::string config;     // --config
  std::string principal;  // --principal
  bool json = false;      // --json
};

struct Session {
  std::unique_ptr<Engine> engine;
  Principal principal;  // ProcessPrincipal(config, --principal), mnemo/config.h
};

// Resolves the workspace, loads the config (--config, else
// <workspace>/mnemo.toml when present, then MNEMO_* variables, then
// `overrides`) and opens the engine.
Result<Session> OpenSession(const GlobalOptions& g,
                            const std::map<std::string, std::string>& overrides = {});

// A server fault (kInternal, kCorruption) -> 2, anything else -> 1
// (user-fixable: bad input, missing entry, bad config, unusable workspace).
int ExitCodeFor(const Status& status);

// Prints "mnemo: <message>" on stderr and returns ExitCodeFor(status).
int Fail(const Status& status);

// A progress bar on stderr for long operations ("importing [#####-----] 50%
// 500/1000"), or an empty function when stderr is not a terminal, so scripts
// and logs stay quiet (spec 60).
ProgressFn TerminalProgress(std::string label);

// Renders a method's result for humans; null: the method's text rendering.
using HumanRenderer =
    std::function<std::string(const nlohmann::json& params, const nlohmann::json& result)>;

// Runs one method of the table (the CLI and JSON-RPC share one schema):
// --json prints the result JSON, otherwise `human` (or the method's text).
int RunMethod(const GlobalOptions& g, std::string_view method, const nlohmann::json& params,
              const HumanRenderer& human = nullptr);

// For the long-running commands (serve, mcp), before any thread starts:
// glibc malloc keeps one arena per thread up to 8 per core, and under a
// daemon's mixed load the memory they hold only grew (soak, 10 min at
// 20 calls/s: anonymous memory +5.6 MB/min; with one arena per core, flat).
// One arena per core, unless MALLOC_ARENA_MAX says otherwise. A process
// setting, so the command's, not the library's.
void LimitMallocArenas();

}  // namespace mnemo::app

// CLI subcommands. Each Add...Command registers its subcommand on `app`; when
// the subcommand is chosen, parsing sets `action` to the code that runs it
// (after parsing has finished, so errors in any flag stop everything first).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "cli_common.h"

namespace mnemo::app {

using Action = std::function<int()>;

void AddMemoryCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddServeCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddRpcCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddMcpCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddDataCommands(CLI::App& app, GlobalOptions& g, Action& action);  // export, import
void AddRulesCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddSessionsCommands(CLI::App& app, GlobalOptions& g, Action& action);  // sessions, profile
void AddBenchCommand(CLI::App& app, GlobalOptions& g, Action& action);
void AddWordVectorsCommand(CLI::App& app, Action& action);  // wordvectors build|info

}  // namespace mnemo::app

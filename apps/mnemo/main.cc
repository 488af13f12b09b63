// The mnemo binary: `mnemo [--workspace DIR] [--config FILE] [--principal P]
// [--json] <command>` (spec 60). Exit codes: 0 ok, 1 user error, 2 internal.
#include <iostream>

#include <CLI/CLI.hpp>

#include "bench_cmd.h"
#include "cli_reference.h"
#include "commands.h"
#include "mnemo/config.h"
#include "transport/rpc/method_reference.h"

namespace mnemo::app {
namespace {

void AddVersionCommand(CLI::App& app, Action& action) {
  app.add_subcommand("version", "Print the version")->callback([&action] {
    action = [] {
      std::cout << "mnemo " << MNEMO_VERSION << "\n";
      return kExitOk;
    };
  });
}

// `mnemo docs config|methods|schema|man`: the generated references (docs/,
// and mnemo(1) for the package).
void AddDocsCommand(CLI::App& app, Action& action) {
  CLI::App* docs = app.add_subcommand("docs", "Print a generated reference (docs/*.md)");
  docs->require_subcommand(1);
  docs->add_subcommand("config", "Configuration keys (docs/config.md)")->callback([&action] {
    action = [] {
      std::cout << ConfigReferenceMarkdown();
      return kExitOk;
    };
  });
  docs->add_subcommand("methods", "JSON-RPC methods and tools (docs/methods.md)")
      ->callback([&action] {
        action = [] {
          std::cout << transport::MethodReferenceMarkdown(transport::DefaultMethodTable());
          return kExitOk;
        };
      });
  docs->add_subcommand("schema", "Methods and tools as JSON Schema (docs/schema.json)")
      ->callback([&action] {
        action = [] {
          std::cout << transport::MethodSchemaDocument(transport::DefaultMethodTable());
          return kExitOk;
        };
      });
  docs->add_subcommand("man", "The manual page mnemo(1), in roff")->callback([&app, &action] {
    action = [&app] {
      std::cout << ManPage(app, MNEMO_VERSION);
      return kExitOk;
    };
  });
}

// `mnemo completion bash|zsh|fish`: the script for the shell, generated from
// the command tree.
void AddCompletionCommand(CLI::App& app, Action& action) {
  auto shell = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "completion", "Print the shell completion script (bash: source <(mnemo completion bash))");
  cmd->add_option("shell", *shell, "bash, zsh or fish")
      ->required()
      ->check(CLI::IsMember(CompletionShells()));
  cmd->callback([&app, &action, shell] {
    action = [&app, shell] {
      std::cout << CompletionScript(app, *shell);
      return kExitOk;
    };
  });
}

}  // namespace

void AddBenchCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  auto args = std::make_shared<BenchArgs>();
  CLI::App* bench = app.add_subcommand("bench", "Run the dataset benchmark (spec 20)");
  bench->add_option("--dataset", args->dataset, "Folder with memories.jsonl and queries.jsonl")
      ->required();
  bench->add_option("--limit", args->limit, "Memories to load (0 = all)");
  bench->add_option("--queries", args->queries, "Queries to run (0 = all)");
  bench->add_option("--backend", args->backend, "Storage backend (default sqlite)");
  bench->add_option("--mode", args->mode, "keyword, hybrid, vector or all (default)");
  bench->add_option(
      "--postgres-url", args->postgres_url,
      "Server of --backend postgres (default $MNEMO_POSTGRES_URL); each run uses "
      "a schema mnemo_bench_<pid>_<run> of its own (with --workspace, one named after it, "
      "which --reuse opens again)");
  bench->add_flag("--reuse", args->reuse,
                  "With --workspace: query what an earlier run left there instead of importing "
                  "(times the open)");
  bench->add_option("--ef-search", args->ef_search, "index.ef_search of the runs (0 = default)");
  bench->callback([&g, &action, args] {
    action = [&g, args] {
      args->workspace = g.workspace;
      return RunBenchCommand(*args);
    };
  });
}

int Main(int argc, char** argv) {
  CLI::App app{"mnemo: a local-first memory engine for AI agents", "mnemo"};
  app.fallthrough();
  app.require_subcommand(1);
  GlobalOptions g;
  app.add_option("--workspace", g.workspace,
                 "Workspace folder (default $MNEMO_WORKSPACE, else ~/.local/share/mnemo)");
  app.add_option("--config", g.config, "Config file (default <workspace>/mnemo.toml)");
  app.add_option("--principal", g.principal, "Acting principal (default from the config)");
  app.add_flag("--json", g.json, "Print results as JSON");
  Action action;
  AddServeCommand(app, g, action);
  AddRpcCommand(app, g, action);
  AddMcpCommand(app, g, action);
  AddMemoryCommand(app, g, action);
  AddRulesCommand(app, g, action);
  AddSessionsCommands(app, g, action);
  AddDataCommands(app, g, action);
  AddBenchCommand(app, g, action);
  AddWordVectorsCommand(app, action);
  AddVersionCommand(app, action);
  AddDocsCommand(app, action);
  AddCompletionCommand(app, action);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUser;
  }
  try {
    int code = action ? action() : kExitOk;
    // A result nobody received is not a success (a closed pipe, a full disk).
    if (!std::cout.flush()) {
      std::cerr << "mnemo: cannot write the output to stdout\n";
      return kExitInternal;
    }
    return code;
  } catch (const std::exception& e) {
    std::cerr << "mnemo: internal error: " << e.what() << "\n";
    return kExitInternal;
  }
}

}  // namespace mnemo::app

int main(int argc, char** argv) {
  try {
    return mnemo::app::Main(argc, argv);
  } catch (...) {
    return mnemo::app::kExitInternal;
  }
}

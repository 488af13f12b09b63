#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "cli_common.h"

#include <filesystem>
#include <iostream>

#include "core/validation.h"
#include "transport/rpc/jsonrpc.h"
#include "transport/rpc/method_table.h"

namespace mnemo::app {

Result<Session> OpenSession(const GlobalOptions& g,
                            const std::map<std::string, std::string>& overrides) {
  std::string workspace = ResolveWorkspace(g.workspace);
  ConfigSources sources;
  if (!g.config.empty()) {
    sources.file = g.config;
  } else {
    sources.file = (std::filesystem::path(workspace) / "mnemo.toml").string();
    sources.file_optional = true;
  }
  sources.env = MnemoEnvironment();
  sources.overrides = overrides;
  Result<Config> config = LoadConfig(sources);
  if (!config.ok()) {
    return Status(config.status().code() == StatusCode::kInternal ? StatusCode::kInternal
                                                                  : StatusCode::kInvalidArgument,
                  "configuration: " + config.status().message(), config.status().field());
  }
  if (!g.principal.empty()) {
    MNEMO_RETURN_IF_ERROR(ValidatePrincipal(g.principal, "--principal"));
  }
  Session s;
  // --principal P acts with the role the configuration grants P (spec 10).
  s.principal = ProcessPrincipal(*config, g.principal);
  MNEMO_ASSIGN_OR_RETURN(
      s.engine,
      Engine::Open(EngineOptions{.workspace = workspace, .config = std::move(config).value()}));
  return s;
}

void LimitMallocArenas() {
  if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  mallopt(M_ARENA_MAX, static_cast<int>(cores));
}

int ExitCodeFor(const Status& status) {
  if (status.ok()) return kExitOk;
  return IsServerFault(status.code()) ? kExitInternal : kExitUser;
}

int Fail(const Status& status) {
  std::cerr << "mnemo: " << status.message() << "\n";
  return ExitCodeFor(status);
}

int RunMethod(const GlobalOptions& g, std::string_view method, const nlohmann::json& params,
              const HumanRenderer& human) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  transport::Dispatcher dispatcher(*session->engine);
  nlohmann::json validated;
  Result<nlohmann::json> result = dispatcher.Call(method, params, session->principal, &validated);
  if (!result.ok()) return Fail(result.status());
  if (g.json) {
    std::cout << transport::DumpJson(*result, 2) << "\n";
  } else if (human) {
    std::cout << human(validated, *result) << "\n";
  } else {
    const transport::MethodSpec* spec = dispatcher.Table().Find(method);
    std::cout << transport::RenderText(*spec, validated, *result) << "\n";
  }
  return kExitOk;
}

ProgressFn TerminalProgress(std::string label) {
  if (!isatty(STDERR_FILENO)) return {};
  return [label = std::move(label)](int64_t done, int64_t total) {
    constexpr int kWidth = 30;
    std::string line = "\r" + label + " ";
    if (total > 0) {
      const int64_t filled = std::min<int64_t>(kWidth, done * kWidth / total);
      line += "[" + std::string(static_cast<size_t>(filled), '#') +
              std::string(static_cast<size_t>(kWidth - filled), '-') + "] " +
              std::to_string(done * 100 / total) + "% " + std::to_string(done) + "/" +
              std::to_string(total);
    } else {
      line += std::to_string(done);
    }
    std::cerr << line << std::flush;
  };
}

}  // namespace mnemo::app

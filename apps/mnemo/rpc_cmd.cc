// `mnemo rpc --stdio` (JSON-RPC, one message per line),
// `mnemo rpc METHOD [JSON]` (one call; prints the result) and `mnemo mcp`
// (the MCP server on stdin/stdout).
#include <iostream>

#include "base/json_limits.h"
#include "commands.h"
#include "transport/mcp/mcp.h"
#include "transport/rpc/jsonrpc.h"
#include "transport/stdio.h"

namespace mnemo::app {
namespace {

struct RpcFlags {
  bool stdio = false;
  std::string method;
  std::string params;
};

size_t MaxLineBytes(const Session& session) {
  return static_cast<size_t>(session.engine->config().server.max_body_bytes);
}

int RunStdio(const GlobalOptions& g) {
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  std::ios::sync_with_stdio(false);  // lines are read a byte at a time
  transport::Dispatcher dispatcher(*session->engine);
  return transport::RunStdioLoop(dispatcher, session->principal, std::cin, std::cout,
                                 MaxLineBytes(*session));
}

int RunMcp(const GlobalOptions& g) {
  LimitMallocArenas();
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  std::ios::sync_with_stdio(false);
  transport::McpServer server(*session->engine);
  return transport::RunMcpStdioLoop(server, session->principal, std::cin, std::cout,
                                    MaxLineBytes(*session));
}

int RunOne(const GlobalOptions& g, const RpcFlags& f) {
  nlohmann::json params = nlohmann::json::object();
  if (!f.params.empty()) {
    // A command line is bounded by the system (ARG_MAX); its depth is not.
    if (Status s = internal::CheckJsonLimits(f.params, "params", /*max_bytes=*/-1); !s.ok()) {
      std::cerr << "mnemo: " << s.message() << "\n";
      return kExitUser;
    }
    internal::JsonTextError error;
    params = internal::ParseStrictJson(f.params, error);
    if (error.problem != internal::JsonTextProblem::kNone) {
      std::cerr << "mnemo: the params argument: " << error.message
                << "; pass an object such as '{\"key\":\"k\"}'\n";
      return kExitUser;
    }
  }
  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  transport::Dispatcher dispatcher(*session->engine);
  Result<nlohmann::json> r = dispatcher.Call(f.method, params, session->principal);
  if (!r.ok()) {
    std::cerr << "mnemo: error " << transport::JsonRpcErrorCode(r.status().code()) << ": "
              << r.status().message() << "\n";
    return ExitCodeFor(r.status());
  }
  std::cout << transport::DumpJson(*r, 2) << "\n";
  return kExitOk;
}

}  // namespace

void AddRpcCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* rpc = app.add_subcommand("rpc", "Call JSON-RPC methods (memory.methods lists them)");
  auto f = std::make_shared<RpcFlags>();
  rpc->add_flag("--stdio", f->stdio, "Serve JSON-RPC on stdin/stdout, one message per line");
  rpc->add_option("method", f->method, "Method name, e.g. memory.search");
  rpc->add_option("params", f->params, "Params as a JSON object");
  rpc->callback([&g, &action, f] {
    if (f->stdio == !f->method.empty()) {
      throw CLI::ValidationError("rpc", "give either --stdio or a METHOD (see mnemo rpc --help)");
    }
    action = [&g, f] { return f->stdio ? RunStdio(g) : RunOne(g, *f); };
  });
}

void AddMcpCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* mcp = app.add_subcommand(
      "mcp", "Serve MCP (Model Context Protocol) on stdin/stdout for MCP clients");
  mcp->callback([&g, &action] { action = [&g] { return RunMcp(g); }; });
}

}  // namespace mnemo::app

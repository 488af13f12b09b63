#include "transport_client.h"

#include <gtest/gtest.h>

#include <utility>

#include "process.h"
#include "rpc_client.h"
#include "transport/rpc/method_table.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

json Request(int id, const std::string& method, const json& params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

std::vector<std::string> Args(const std::string& workspace, const std::string& principal,
                              std::vector<std::string> command) {
  std::vector<std::string> args = {"--workspace", workspace};
  if (!principal.empty()) args.insert(args.end(), {"--principal", principal});
  args.insert(args.end(), command.begin(), command.end());
  return args;
}

class Http : public TransportClient {
 public:
  Http(int port, const std::string& token) : rpc_(port, token) {}
  bool Offers(const std::string&) const override { return true; }
  bool ReportsCodes() const override { return true; }

 protected:
  json DoCall(const std::string& method, const json& params) override {
    return rpc_.Call(method, params);
  }

 private:
  RpcClient rpc_;
};

// A child answering one JSON line per JSON line.
class LineTransport : public TransportClient {
 protected:
  explicit LineTransport(const std::vector<std::string>& args) : child_(args) {}

  json Exchange(const json& message) {
    std::optional<std::string> line = child_.Ask(message.dump());
    EXPECT_TRUE(line) << "no answer to " << message.dump() << "; stderr: " << child_.Stderr();
    if (!line) return nullptr;
    json answer = json::parse(*line, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(answer.is_discarded()) << *line;
    return answer.is_discarded() ? json() : answer;
  }

  int next_id_ = 1;
  LineChild child_;
};

class Stdio : public LineTransport {
 public:
  Stdio(const std::string& workspace, const std::string& principal)
      : LineTransport(Args(workspace, principal, {"rpc", "--stdio"})) {}
  bool Offers(const std::string&) const override { return true; }
  bool ReportsCodes() const override { return true; }

 protected:
  json DoCall(const std::string& method, const json& params) override {
    return Exchange(Request(next_id_++, method, params));
  }
};

class Mcp : public LineTransport {
 public:
  Mcp(const std::string& workspace, const std::string& principal)
      : LineTransport(Args(workspace, principal, {"mcp"})) {
    json init = Exchange(Request(next_id_++, "initialize",
                                 {{"protocolVersion", "2025-11-25"},
                                  {"capabilities", json::object()},
                                  {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}));
    EXPECT_TRUE(init.contains("result")) << init.dump();
    child_.Send(json{{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}.dump());
    json list = Exchange(Request(next_id_++, "tools/list", json::object()));
    for (const json& tool : list["result"]["tools"]) tools_.insert(tool["name"].get<std::string>());
    EXPECT_FALSE(tools_.empty()) << list.dump();
  }

  bool Offers(const std::string& method) const override { return !ToolOf(method).empty(); }
  bool ReportsCodes() const override { return false; }

 protected:
  json DoCall(const std::string& method, const json& params) override {
    const std::string tool = ToolOf(method);
    if (tool.empty()) {
      ADD_FAILURE() << method << " is not an MCP tool: guard the check with Offers()";
      return nullptr;
    }
    json answer =
        Exchange(Request(next_id_++, "tools/call", {{"name", tool}, {"arguments", params}}));
    if (!answer.contains("result")) return answer;  // a protocol error
    const json& r = answer["result"];
    const std::string text = r["content"][0].value("text", "");
    if (r.value("isError", false)) return {{"error", {{"message", text}}}, {"mcp", r}};
    // A result that is not an object travels as {"result": ...} (mcp.cc).
    const transport::MethodSpec* spec = transport::DefaultMethodTable().Find(method);
    json data = r["structuredContent"];
    if (spec->result_schema.value("type", json()) != "object") data = data["result"];
    return {{"result", std::move(data)}, {"mcp", r}};
  }

 private:
  // The method's tool when tools/list has it, else "".
  std::string ToolOf(const std::string& method) const {
    const transport::MethodSpec* spec = transport::DefaultMethodTable().Find(method);
    if (spec == nullptr || tools_.count(spec->tool_name) == 0) return {};
    return spec->tool_name;
  }

  std::set<std::string> tools_;
};

}  // namespace

std::string TransportName(Transport t) {
  switch (t) {
    case Transport::kHttp: return "http";
    case Transport::kStdio: return "stdio";
    case Transport::kMcp: return "mcp";
  }
  return "?";
}

json TransportClient::Call(const std::string& method, const json& params) {
  called_.insert(method);
  return DoCall(method, params);
}

json TransportClient::Result(const std::string& method, const json& params) {
  json r = Call(method, params);
  EXPECT_TRUE(r.contains("result")) << method << ": " << r.dump();
  return r.contains("result") ? r["result"] : json();
}

int TransportClient::ErrorCode(const std::string& method, const json& params) {
  json r = Call(method, params);
  if (!r.contains("error")) return 0;
  return r["error"].value("code", -1);
}

std::unique_ptr<TransportClient> HttpTransportClient(int port, const std::string& token) {
  return std::make_unique<Http>(port, token);
}

std::unique_ptr<TransportClient> StdioTransportClient(const std::string& workspace,
                                                      const std::string& principal) {
  return std::make_unique<Stdio>(workspace, principal);
}

std::unique_ptr<TransportClient> McpTransportClient(const std::string& workspace,
                                                    const std::string& principal) {
  return std::make_unique<Mcp>(workspace, principal);
}

std::unique_ptr<TransportClient> MakeTransportClient(Transport t, int http_port,
                                                     const std::string& workspace,
                                                     const std::string& principal) {
  switch (t) {
    case Transport::kHttp: return HttpTransportClient(http_port, principal + "-secret-token");
    case Transport::kStdio: return StdioTransportClient(workspace, principal);
    case Transport::kMcp: return McpTransportClient(workspace, principal);
  }
  return nullptr;
}

}  // namespace mnemo::e2e

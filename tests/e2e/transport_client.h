// One principal's client of the real binary over one of three transports, so
// one end-to-end test runs over each (issue 16): HTTP JSON-RPC to a daemon
// with a bearer token, `mnemo --principal P rpc --stdio`, and
// `mnemo --principal P mcp` (tools/call).
#pragma once

#include <memory>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace mnemo::e2e {

enum class Transport { kHttp, kStdio, kMcp };

// "http", "stdio", "mcp".
std::string TransportName(Transport t);

class TransportClient {
 public:
  virtual ~TransportClient() = default;

  // The answer in JSON-RPC shape: {"result": ...} or {"error": {"message",
  // "code" (absent over MCP: a tool error is text)}}. Over MCP it also holds
  // the tool's whole answer under "mcp" (its text included), so a marker
  // check on the answer sees everything the caller was sent. Records
  // `method` in MethodsCalled().
  nlohmann::json Call(const std::string& method, const nlohmann::json& params);
  // The result, failing the test on an error.
  nlohmann::json Result(const std::string& method, const nlohmann::json& params);
  // The error code; 0 on success, -1 for an error without a code (MCP).
  int ErrorCode(const std::string& method, const nlohmann::json& params);

  // Whether the transport offers `method` (MCP: only the methods whose tool
  // is in tools/list).
  virtual bool Offers(const std::string& method) const = 0;
  // Whether errors carry JSON-RPC codes.
  virtual bool ReportsCodes() const = 0;
  const std::set<std::string>& MethodsCalled() const { return called_; }

 protected:
  virtual nlohmann::json DoCall(const std::string& method, const nlohmann::json& params) = 0;

 private:
  std::set<std::string> called_;
};

// HTTP POST /rpc to a daemon on `port` with `token` (none when empty).
std::unique_ptr<TransportClient> HttpTransportClient(int port, const std::string& token);
// `mnemo --workspace W --principal P rpc --stdio` (or `... mcp`), started
// now and kept running until the client is destroyed; an empty principal
// passes no --principal.
std::unique_ptr<TransportClient> StdioTransportClient(const std::string& workspace,
                                                      const std::string& principal);
std::unique_ptr<TransportClient> McpTransportClient(const std::string& workspace,
                                                    const std::string& principal);
// One of the three for `principal` (HTTP: its token `<principal>-secret-token`).
std::unique_ptr<TransportClient> MakeTransportClient(Transport t, int http_port,
                                                     const std::string& workspace,
                                                     const std::string& principal);

}  // namespace mnemo::e2e

// MCP end to end (spec 60, issue 8): `mnemo mcp` over stdio with malformed
// input in between valid requests, and /mcp on `mnemo serve` (streamable
// HTTP): sessions, tokens, versions, notifications. The official client SDK
// drives both in tests/mcp (CTest `mcp_sdk`).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

std::string Line(const json& message) { return message.dump() + "\n"; }

json Request(int id, const std::string& method, const json& params) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}};
}

json Initialize(int id = 1) {
  return Request(id, "initialize",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", json::object()},
                  {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}});
}

std::vector<json> Answers(const std::string& out) {
  std::vector<json> answers;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "stdout holds a non-JSON line: " << line;
    answers.push_back(j);
  }
  return answers;
}

TEST(McpStdioE2e, MalformedInputLeavesTheServerAnswering) {
  testing::TempDir dir;
  std::string input = Line(Initialize());
  input += Line({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  input += "this is not JSON\n";
  input += Line({{"jsonrpc", "1.0"}, {"id", 2}, {"method", "ping"}});
  input += std::string(5 * 1024 * 1024, 'x') + "\n";  // past server.max_body_bytes (4 MiB)
  input += Line(Request(3, "tools/call",
                        {{"name", "memory_store"},
                         {"arguments", {{"key", "k"}, {"value", "survived the garbage"}}}}));
  input += Line(Request(4, "tools/call", {{"name", "memory_get"}, {"arguments", {{"key", "k"}}}}));
  RunResult r = RunMnemo({"--workspace", dir.path(), "--principal", "alice", "mcp"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> a = Answers(r.out);
  ASSERT_EQ(a.size(), 6u) << r.out.substr(0, 2000);
  EXPECT_EQ(a[0]["result"]["serverInfo"]["name"], "mnemo");
  EXPECT_EQ(a[1]["error"]["code"], -32700);
  EXPECT_EQ(a[2]["error"]["code"], -32600);
  EXPECT_EQ(a[2]["id"], 2);
  EXPECT_EQ(a[3]["error"]["code"], -32600);
  EXPECT_NE(a[3]["error"]["message"].get<std::string>().find("longer than"), std::string::npos);
  EXPECT_EQ(a[4]["result"]["isError"], false) << a[4].dump();
  EXPECT_EQ(a[5]["result"]["structuredContent"]["content"], "survived the garbage");
  // --principal names the caller.
  EXPECT_EQ(a[5]["result"]["structuredContent"]["owner"], "alice");
}

// Issue 42, item 7: the MCP lifecycle. Before initialize is answered only
// initialize and ping are; tools/list (and everything else) is refused.
TEST(McpStdioE2e, RequestsBeforeInitializeAreRefused) {
  testing::TempDir dir;
  std::string input = Line(Request(1, "tools/list", json::object()));
  input += Line(Request(2, "tools/call",
                        {{"name", "memory_store"}, {"arguments", {{"key", "k"}, {"value", "v"}}}}));
  input += Line(Request(3, "resources/read", {{"uri", "mnemo://profile"}}));
  input += Line(Request(4, "ping", json::object()));
  input += Line(Initialize(5));
  input += Line({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}});
  input += Line(Request(6, "tools/list", json::object()));
  RunResult r = RunMnemo({"--workspace", dir.path(), "mcp"}, input);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> a = Answers(r.out);
  ASSERT_EQ(a.size(), 6u) << r.out.substr(0, 2000);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(a[i]["id"], i + 1);
    EXPECT_EQ(a[i]["error"]["code"], -32600) << a[i].dump();
    EXPECT_NE(a[i]["error"]["message"].get<std::string>().find("before initialize"),
              std::string::npos)
        << a[i].dump();
    EXPECT_FALSE(a[i].contains("result"));
  }
  EXPECT_TRUE(a[3]["result"].is_object()) << a[3].dump();
  EXPECT_EQ(a[4]["result"]["serverInfo"]["name"], "mnemo");
  EXPECT_FALSE(a[5]["result"]["tools"].empty()) << a[5].dump();
  // The refused tools/call stored nothing.
  RunResult get = RunMnemo({"--workspace", dir.path(), "memory", "get", "k"});
  EXPECT_NE(get.exit_code, 0) << get.out;
}

class McpHttpE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      std::ofstream toml(dir_.Sub("mnemo.toml"));
      toml << "[memory]\nacl_enabled = true\n\n";
      for (const char* who : {"alice", "bob", "root"}) {
        const char* role = std::string_view(who) == "root" ? "admin" : "user";
        toml << "[[security.tokens]]\nprincipal = \"" << who << "\"\nrole = \"" << role
             << "\"\nsha256 = \"" << internal::Sha256Hex(std::string(who) + "-token") << "\"\n";
      }
    }
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
  }

  httplib::Result Post(const json& message, const std::string& token,
                       const std::string& session = {}, const std::string& version = {}) {
    httplib::Headers h = {{"Accept", "application/json, text/event-stream"}};
    if (!token.empty()) h.emplace("Authorization", "Bearer " + token);
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    if (!version.empty()) h.emplace("MCP-Protocol-Version", version);
    return http_->Post("/mcp", h, message.dump(), "application/json");
  }

  // A new session of `token`'s principal.
  std::string Open(const std::string& token) {
    auto r = Post(Initialize(), token);
    EXPECT_TRUE(r);
    if (!r) return "";
    EXPECT_EQ(r->status, 200) << r->body;
    EXPECT_EQ(json::parse(r->body)["result"]["protocolVersion"], "2025-11-25");
    return r->get_header_value("Mcp-Session-Id");
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(McpHttpE2e, SessionsVersionsAndTokens) {
  auto none = Post(Initialize(), "");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);

  const std::string alice = Open("alice-token");
  ASSERT_EQ(alice.size(), 36u) << "a session id";
  // The notification is accepted without a body.
  auto note = Post({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}, "alice-token",
                   alice, "2025-11-25");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->status, 202);
  EXPECT_TRUE(note->body.empty());

  auto stored = Post(Request(2, "tools/call",
                             {{"name", "memory_store"},
                              {"arguments", {{"key", "k"}, {"value", "alice over http"}}}}),
                     "alice-token", alice, "2025-11-25");
  ASSERT_TRUE(stored);
  ASSERT_EQ(stored->status, 200) << stored->body;
  EXPECT_EQ(json::parse(stored->body)["result"]["isError"], false) << stored->body;

  // Every request after initialize names its session; an unknown one is 404
  // (the client initializes again), someone else's too.
  auto missing = Post(Request(3, "ping", json::object()), "alice-token");
  EXPECT_EQ(missing->status, 400);
  auto unknown = Post(Request(3, "ping", json::object()), "alice-token",
                      "00000000-0000-4000-8000-000000000000");
  EXPECT_EQ(unknown->status, 404);
  auto stolen = Post(Request(3, "ping", json::object()), "bob-token", alice);
  EXPECT_EQ(stolen->status, 404);

  // ACL as over JSON-RPC: bob's own session does not see alice's memory.
  const std::string bob = Open("bob-token");
  auto peek =
      Post(Request(4, "tools/call", {{"name", "memory_get"}, {"arguments", {{"key", "k"}}}}),
           "bob-token", bob);
  EXPECT_EQ(json::parse(peek->body)["result"]["isError"], true) << peek->body;
  EXPECT_EQ(peek->body.find("alice over http"), std::string::npos);

  auto old = Post(Request(5, "ping", json::object()), "alice-token", alice, "1999-01-01");
  EXPECT_EQ(old->status, 400);
  EXPECT_NE(old->body.find("unsupported MCP-Protocol-Version"), std::string::npos);

  auto garbage =
      http_->Post("/mcp", {{"Authorization", "Bearer alice-token"}}, "{nope", "application/json");
  EXPECT_EQ(garbage->status, 400);
  EXPECT_EQ(json::parse(garbage->body)["error"]["code"], -32700);

  auto get = http_->Get("/mcp", {{"Authorization", "Bearer alice-token"}});
  EXPECT_EQ(get->status, 405);

  // MCP requests are counted in /metrics by MCP method and outcome (an
  // admin's view when tokens are configured).
  auto metrics = http_->Get("/metrics", {{"Authorization", "Bearer root-token"}});
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find(R"(method="mcp/tools/call",outcome="ok"} 1)"), std::string::npos)
      << metrics->body;
  EXPECT_NE(metrics->body.find(R"(method="mcp/tools/call",outcome="tool_error"} 1)"),
            std::string::npos);
  EXPECT_NE(metrics->body.find(R"(method="mcp/initialize",outcome="ok"} 2)"), std::string::npos);

  auto end =
      http_->Delete("/mcp", {{"Authorization", "Bearer alice-token"}, {"Mcp-Session-Id", alice}});
  EXPECT_EQ(end->status, 204);
  auto after = Post(Request(6, "ping", json::object()), "alice-token", alice);
  EXPECT_EQ(after->status, 404);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
}

}  // namespace
}  // namespace mnemo::e2e

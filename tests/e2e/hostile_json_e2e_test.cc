// Issue 17, item 1, through the real daemon: JSON that enters as a string
// (a context event's event_json, a tool call's arguments) gets a request
// body's depth limit on the way in, and JSON already stored too deep (by a
// version that did not check) is read back without recursing over it. A
// daemon that overflows its stack dies: the next call gets no answer and the
// test fails instead of the test runner.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sqlite3.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

// Depth 80 000 overflowed the daemon's stack in memory.context_window
// (60 000 did not), so it is the depth the attack used.
constexpr int kAttackDepth = 80000;

std::string DeepArray(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// {"input": "hello", "x": [[[...]]]}: a valid event with a deep extra member.
std::string DeepEvent(int depth) { return R"({"input":"hello","x":)" + DeepArray(depth) + "}"; }

class HostileJsonE2e : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  void Start() {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    rpc_ = std::make_unique<RpcClient>(daemon_->port());
  }

  void Stop() {
    rpc_.reset();
    EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
    daemon_.reset();
  }

  // Runs `sql` on the stopped daemon's database (what an older version
  // could have written).
  void Exec(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_.path() + "/mnemo.db").c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error != nullptr ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }

  json Window(const std::string& session) {
    return rpc_->CallQuietly("memory.context_window",
                             {{"session_id", session}, {"query", "hello"}, {"budget_chars", 1000}});
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<RpcClient> rpc_;
};

TEST_F(HostileJsonE2e, ContextAppendRefusesADeepEventAndTheDaemonLives) {
  json r = rpc_->CallQuietly("memory.context_append",
                             {{"session_id", "s"}, {"event_json", DeepEvent(kAttackDepth)}});
  ASSERT_TRUE(r.contains("error")) << r.dump().substr(0, 200);
  EXPECT_EQ(r["error"]["code"], -32602);
  const std::string message = r["error"]["message"];
  EXPECT_NE(message.find("event_json nests deeper than 64 levels"), std::string::npos) << message;

  // Before the check this window recursed over the stored event and the
  // daemon died with SIGSEGV (no answer here).
  json w = Window("s");
  ASSERT_TRUE(w.contains("result")) << "no answer: the daemon died\n" << daemon_->Stderr();
  EXPECT_EQ(w["result"]["total_events"], 0);

  // Depth 64 is what a request body may nest: accepted and returned as sent.
  json ok = rpc_->CallQuietly("memory.context_append",
                              {{"session_id", "s"}, {"event_json", DeepEvent(63)}});
  ASSERT_TRUE(ok.contains("result")) << ok.dump().substr(0, 300);
  w = Window("s");
  ASSERT_TRUE(w.contains("result")) << daemon_->Stderr();
  ASSERT_EQ(w["result"]["events"].size(), 1u);
  EXPECT_EQ(w["result"]["events"][0]["event"]["x"].dump(), DeepArray(63));
}

TEST_F(HostileJsonE2e, TurnCompleteRefusesDeepToolArguments) {
  json r = rpc_->CallQuietly(
      "memory.turn_complete",
      {{"session_id", "s"},
       {"user_message", "run it"},
       {"tool_calls", {{{"name", "shell"}, {"arguments", DeepArray(kAttackDepth)}}}}});
  ASSERT_TRUE(r.contains("error")) << r.dump().substr(0, 200);
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_EQ(r["error"]["data"]["field"], "tool_calls[0].arguments") << r.dump();
  EXPECT_TRUE(rpc_->CallQuietly("memory.stats", json::object()).contains("result"))
      << daemon_->Stderr();
}

TEST_F(HostileJsonE2e, JsonStoredTooDeepByAnOlderVersionIsReadWithoutACrash) {
  ASSERT_TRUE(rpc_->CallQuietly("memory.context_append",
                                {{"session_id", "old"}, {"event", {{"input", "hello"}}}})
                  .contains("result"));
  json put = rpc_->CallQuietly("memory.doc_put",
                               {{"content", "a runbook"}, {"meta", {{"team", "payments"}}}});
  ASSERT_TRUE(put.contains("result")) << put.dump();
  const std::string doc_id = put["result"]["id"];
  Stop();
  // What a version without the check stored for the same calls.
  Exec("UPDATE context_events SET event_json = '" + DeepEvent(kAttackDepth) + "'");
  Exec("UPDATE documents SET meta = '{\"x\":" + DeepArray(kAttackDepth) + "}'");
  Start();

  json w = Window("old");
  ASSERT_TRUE(w.contains("result")) << "no answer: the daemon died\n" << daemon_->Stderr();
  ASSERT_EQ(w["result"]["events"].size(), 1u);
  // Shown in its canonical form: the members mnemo reads, without the deep one.
  EXPECT_EQ(w["result"]["events"][0]["event"]["input"], "hello");
  EXPECT_FALSE(w["result"]["events"][0]["event"].contains("x"));

  json got = rpc_->CallQuietly("memory.doc_get", {{"id", doc_id}});
  ASSERT_TRUE(got.contains("result")) << "no answer: the daemon died\n" << daemon_->Stderr();
  EXPECT_EQ(got["result"]["meta"], json::object());
  EXPECT_EQ(got["result"]["content"], "a runbook");
}

// Issue 42, item 7: an object naming one key twice is refused on every
// request entry, naming the key (the last used to win, so a proxy reading the
// first and mnemo reading the last disagreed on the same request).
constexpr const char* kTwoKeys =
    R"({"jsonrpc":"2.0","id":1,"method":"memory.store",)"
    R"("params":{"key":"shown","value":"what the proxy checked","key":"hidden"}})";
constexpr const char* kTwoMethods =
    R"({"jsonrpc":"2.0","id":2,"method":"memory.stats","method":"memory.forget",)"
    R"("params":{"key":"shown"}})";

void ExpectDuplicateRefused(const std::string& answer, const std::string& key) {
  json a = json::parse(answer, nullptr, false);
  ASSERT_TRUE(a.is_object()) << answer;
  ASSERT_TRUE(a.contains("error")) << answer;
  EXPECT_EQ(a["error"]["code"], -32600) << answer;
  const std::string message = a["error"]["message"];
  EXPECT_NE(message.find("\"" + key + "\" appears twice"), std::string::npos) << message;
}

TEST_F(HostileJsonE2e, DuplicateKeysAreRefusedOverHttpRpcAndMcp) {
  httplib::Client http("127.0.0.1", daemon_->port());
  auto rpc = http.Post("/rpc", kTwoKeys, "application/json");
  ASSERT_TRUE(rpc);
  ExpectDuplicateRefused(rpc->body, "key");
  rpc = http.Post("/rpc", kTwoMethods, "application/json");
  ASSERT_TRUE(rpc);
  ExpectDuplicateRefused(rpc->body, "method");
  // Nothing was stored under either name.
  EXPECT_EQ(rpc_->Result("memory.stats", json::object())["entries"], 0);

  httplib::Headers accept = {{"Accept", "application/json, text/event-stream"}};
  auto mcp = http.Post("/mcp", accept,
                       R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)"
                       R"({"protocolVersion":"2025-11-25","protocolVersion":"2024-11-05",)"
                       R"("capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}})",
                       "application/json");
  ASSERT_TRUE(mcp);
  EXPECT_EQ(mcp->status, 400) << mcp->body;
  ExpectDuplicateRefused(mcp->body, "protocolVersion");
}

TEST_F(HostileJsonE2e, DuplicateKeysAreRefusedOverStdioRpcAndMcp) {
  RunResult rpc = RunMnemo({"--workspace", dir_.Sub("stdio"), "rpc", "--stdio"},
                           std::string(kTwoKeys) + "\n" + kTwoMethods + "\n");
  ASSERT_EQ(rpc.exit_code, 0) << rpc.err;
  std::istringstream lines(rpc.out);
  std::string first, second;
  ASSERT_TRUE(std::getline(lines, first)) << rpc.out;
  ASSERT_TRUE(std::getline(lines, second)) << rpc.out;
  ExpectDuplicateRefused(first, "key");
  ExpectDuplicateRefused(second, "method");

  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":)"
      R"("2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}})";
  const std::string call =
      R"({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_store",)"
      R"("arguments":{"key":"a","value":"v","key":"b"}}})";
  RunResult mcp = RunMnemo({"--workspace", dir_.Sub("stdio"), "mcp"}, init + "\n" + call + "\n");
  ASSERT_EQ(mcp.exit_code, 0) << mcp.err;
  std::istringstream answers(mcp.out);
  std::string initialized, refused;
  ASSERT_TRUE(std::getline(answers, initialized)) << mcp.out;
  ASSERT_TRUE(std::getline(answers, refused)) << mcp.out;
  ExpectDuplicateRefused(refused, "key");
  // The CLI's one-shot form too.
  RunResult one = RunMnemo({"--workspace", dir_.Sub("stdio"), "rpc", "memory.store",
                            R"({"key":"a","value":"v","key":"b"})"});
  EXPECT_NE(one.exit_code, 0);
  EXPECT_NE(one.err.find("\"key\" appears twice"), std::string::npos) << one.err;
}

}  // namespace
}  // namespace mnemo::e2e

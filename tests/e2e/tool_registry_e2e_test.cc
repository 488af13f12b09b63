// Spec 50 end to end through the real daemon and CLI: a no_memory tool, a
// cleaned tool, and a cleaner change applied by `mnemo reindex` — what is
// found changes, what is stored never does.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

constexpr char kPasswd[] =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "sshd:x:105:65534::/run/sshd:/usr/sbin/nologin\n";
constexpr char kFiles[] = R"({"path":"/srv/app","content":"main.py, utils.py, deploy.py"})";

class ToolRegistryE2e : public ::testing::Test {
 protected:
  void SetUp() override { Start(); }

  void Start() {
    http_.reset();
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    http_->set_read_timeout(20, 0);
  }

  void Stop() {
    http_.reset();
    EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
    daemon_.reset();
  }

  void WriteConfig(const std::string& toml) { std::ofstream(dir_.Sub("mnemo.toml")) << toml; }

  json Call(const std::string& method, const json& params) {
    auto r = http_->Post(
        "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
        "application/json");
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    return json::parse(r->body, nullptr, false);
  }

  json Result(const std::string& method, const json& params) {
    json r = Call(method, params);
    EXPECT_TRUE(r.contains("result")) << method << ": " << r.dump();
    return r.contains("result") ? r["result"] : json();
  }

  void Turn(const std::string& tool, const std::string& output, const std::string& answer) {
    Result("memory.turn_complete",
           {{"session_id", "s1"},
            {"user_message", "please look"},
            {"assistant_response", answer},
            {"tool_calls", {{{"name", tool}, {"arguments", json::object()}, {"output", output}}}},
            {"sync", true}});
  }

  // The rows that match `query` by their own indexed text: their snippet
  // highlights a match (rows ranked through a matching neighbour do not).
  json Search(const std::string& query) {
    json own = json::array();
    const json hits = Result("memory.episodic_search", {{"query", query}})["results"];
    for (const json& h : hits) {
      if (h["snippet"].get<std::string>().find("**") != std::string::npos) own.push_back(h);
    }
    return own;
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(ToolRegistryE2e, NoMemoryOutputIsStoredRawButTakesNoPartInSearch) {
  json reg = Result("memory.tool_register", {{"name", "cmd_run"}, {"no_memory", true}});
  EXPECT_EQ(reg["no_memory"], true);
  EXPECT_EQ(reg["source"], "registered");
  Turn("cmd_run", kPasswd, "The first line is root, uid 0, the superuser.");
  EXPECT_TRUE(Search("nologin").empty()) << Search("nologin").dump();
  EXPECT_TRUE(Search("sshd").empty());
  json found = Search("superuser");
  ASSERT_EQ(found.size(), 1u) << found.dump();
  EXPECT_EQ(found[0]["role"], "assistant");
  json rows = Result("memory.session_turns", {{"session_id", "s1"}})["turns"];
  ASSERT_EQ(rows.size(), 2u);
  json calls = json::parse(rows[1]["tool_calls_json"].get<std::string>());
  EXPECT_EQ(calls[0]["output"], kPasswd);
  // The registration outlives the daemon.
  Stop();
  Start();
  json tools = Result("memory.tool_list", json::object())["tools"];
  ASSERT_EQ(tools.size(), 1u) << tools.dump();
  EXPECT_EQ(tools[0]["name"], "cmd_run");
  EXPECT_EQ(tools[0]["no_memory"], true);
}

TEST_F(ToolRegistryE2e, CleanedOutputIsFoundAndStoredAsReceived) {
  json reg = Result("memory.tool_register",
                    {{"name", "files_read"}, {"cleaner", {{{"json_field", "content"}}}}});
  EXPECT_EQ(reg["cleaner"], json::parse(R"([{"json_field":"content"}])"));
  Turn("files_read", kFiles, "Three python files.");
  json found = Search("deploy.py");
  ASSERT_EQ(found.size(), 1u) << found.dump();
  EXPECT_EQ(found[0]["role"], "assistant");
  // The JSON envelope takes no part: neither its keys nor the path.
  EXPECT_TRUE(Search("path").empty());
  EXPECT_TRUE(Search("srv").empty());
  json calls = json::parse(found[0]["tool_calls_json"].get<std::string>());
  EXPECT_EQ(calls[0]["output"], kFiles);
}

TEST_F(ToolRegistryE2e, BadCleanerIsRejectedNamingTheStep) {
  json r = Call(
      "memory.tool_register",
      {{"name", "grep"}, {"cleaner", {{{"strip_ansi", true}}, {{"regex_remove", "(unclosed"}}}}});
  ASSERT_TRUE(r.contains("error")) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("step 2 (regex_remove)"),
            std::string::npos)
      << r.dump();
  EXPECT_TRUE(Result("memory.tool_list", json::object())["tools"].empty());
}

TEST_F(ToolRegistryE2e, ACleanerChangeAndReindexChangeWhatIsFoundNotWhatIsStored) {
  Stop();
  WriteConfig("[[tools]]\nname = \"files_read\"\ncleaner = [{json_field = \"content\"}]\n");
  Start();
  Turn("files_read", kFiles, "Three python files.");
  EXPECT_EQ(Search("deploy.py").size(), 1u);
  EXPECT_TRUE(Search("srv").empty());
  const json before = Result("memory.session_turns", {{"session_id", "s1"}});
  Stop();

  WriteConfig("[[tools]]\nname = \"files_read\"\ncleaner = '[{\"json_field\": \"path\"}]'\n");
  RunResult reindex = RunMnemo({"--workspace", dir_.path(), "--json", "reindex"});
  ASSERT_EQ(reindex.exit_code, 0) << reindex.err;
  json report = json::parse(reindex.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << reindex.out;
  EXPECT_EQ(report["turns_reindexed"], 1) << reindex.out;
  EXPECT_EQ(report["cleaner_failures"], 0);

  Start();
  EXPECT_TRUE(Search("deploy.py").empty()) << Search("deploy.py").dump();
  EXPECT_EQ(Search("srv").size(), 1u);
  EXPECT_EQ(Search("python").size(), 1u);  // the answer still takes part
  EXPECT_EQ(Result("memory.session_turns", {{"session_id", "s1"}}), before);
}

}  // namespace
}  // namespace mnemo::e2e

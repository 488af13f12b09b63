// Spec 30 end to end: the real daemon over HTTP and the real CLI. The safety
// case: an edict said in one session is pinned in every later one.
#include <gtest/gtest.h>
#include <httplib.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

// One HTTP client of a daemon: a "session" of some harness.
class Client {
 public:
  explicit Client(int port) : http_("127.0.0.1", port) { http_.set_read_timeout(20, 0); }

  json Call(const std::string& method, const json& params) {
    auto r = http_.Post(
        "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
        "application/json");
    EXPECT_TRUE(r) << "no response";
    if (!r) return nullptr;
    EXPECT_EQ(r->status, 200) << r->body;
    return json::parse(r->body, nullptr, false);
  }

 private:
  httplib::Client http_;
};

json Turn(const std::string& message, const json& tool_calls) {
  return {{"session_id", "session-1"},
          {"user_message", message},
          {"assistant_response", "Understood."},
          {"tool_calls", tool_calls},
          {"timestamp", "2026-11-29T10:00:00Z"}};
}

json SendEmailCall() {
  return json::array({{{"name", "send_email"},
                       {"arguments", {{"to", "bob@example.com"}}},
                       {"success", true},
                       {"output", "sent"},
                       {"duration_ms", 120}}});
}

class RulesE2e : public ::testing::Test {
 protected:
  std::unique_ptr<Daemon> Start(const std::map<std::string, std::string>& env = {}) {
    auto d = std::make_unique<Daemon>(dir_.path(), env);
    EXPECT_TRUE(d->started()) << d->Stderr();
    return d;
  }

  // Steps 1-3 of the safety case of spec 30 for `message`; returns the
  // rendered block a later session gets.
  void SafetyCase(const std::string& message, const std::string& bullet) {
    {
      auto daemon = Start();
      ASSERT_TRUE(daemon->started());
      Client session1(daemon->port());
      json r = session1.Call("memory.turn_complete", Turn(message, SendEmailCall()));
      ASSERT_TRUE(r.contains("result")) << r.dump();
      ASSERT_EQ(r["result"]["new_rules"].size(), 1u) << r.dump();
      EXPECT_EQ(r["result"]["new_rules"][0]["tool_name"], "send_email");

      // Exactly one critical user edict in tool-send_email, address intact.
      json list = session1.Call("memory.tool_rule_list", {{"tool_name", "send_email"}});
      ASSERT_EQ(list["result"].size(), 1u) << list.dump();
      const json& rule = list["result"][0];
      EXPECT_EQ(rule["priority"], "critical");
      EXPECT_EQ(rule["source"], "user_explicit");
      EXPECT_EQ(rule["tags"], json::array({"user-edict"}));
      EXPECT_NE(rule["rule"].get<std::string>().find("sarah@example.com"), std::string::npos);
      EXPECT_EQ(daemon->Stop(SIGTERM), 0);
    }
    // A new session, in a new daemon process on the same workspace.
    auto daemon = Start();
    ASSERT_TRUE(daemon->started());
    Client session2(daemon->port());
    json p = session2.Call("memory.tool_rules_for_prompt", json::object());
    ASSERT_TRUE(p.contains("result")) << p.dump();
    const std::string rendered = p["result"]["rendered"];
    EXPECT_TRUE(rendered.starts_with("## Tool-scoped rules\n\n")) << rendered;
    EXPECT_NE(rendered.find("### `send_email`\n" + bullet + "\n"), std::string::npos) << rendered;
    ASSERT_EQ(p["result"]["rules"].size(), 1u);
    EXPECT_EQ(p["result"]["rules"][0]["priority"], "critical");
    // Said again: still one rule.
    json again = session2.Call("memory.turn_complete", Turn(message, SendEmailCall()));
    EXPECT_TRUE(again["result"]["new_rules"].empty()) << again.dump();
    EXPECT_EQ(again["result"]["refreshed_rules"].size(), 1u) << again.dump();
    EXPECT_EQ(
        session2.Call("memory.tool_rule_list", {{"tool_name", "send_email"}})["result"].size(), 1u);
  }

  testing::TempDir dir_;
};

TEST_F(RulesE2e, SafetyCaseInEnglish) {
  SafetyCase("Never email Sarah at sarah@example.com.",
             "- **[critical]** Never email Sarah at sarah@example.com.");
}

TEST_F(RulesE2e, SafetyCaseInChineseMapsThroughTheMailAlias) {
  SafetyCase("永远不要给 sarah@example.com 的 Sarah 发邮件。",
             "- **[critical]** 永远不要给 sarah@example.com 的 Sarah 发邮件。");
}

TEST_F(RulesE2e, RepeatedFailuresBecomeANormalRuleFoundByRecall) {
  auto daemon = Start();
  ASSERT_TRUE(daemon->started());
  Client c(daemon->port());
  json failing = json::array();
  for (int i = 0; i < 2; ++i) {
    failing.push_back({{"name", "shell"},
                       {"arguments", "{\"cmd\": \"make\"}"},
                       {"success", false},
                       {"output", "error: connection refused by build server"}});
  }
  json r = c.Call("memory.turn_complete", Turn("Build the project please.", failing));
  ASSERT_EQ(r["result"]["new_rules"].size(), 1u) << r.dump();
  EXPECT_EQ(r["result"]["new_rules"][0]["rule"],
            "Tool failed 2 times in one turn (shell: failed (connection_error)). Consider an "
            "alternative approach before retrying.");
  EXPECT_EQ(r["result"]["new_rules"][0]["priority"], "normal");
  // Normal rules stay out of the prompt but are recalled in tool-shell.
  json p = c.Call("memory.tool_rules_for_prompt", json::object());
  EXPECT_EQ(p["result"]["rendered"], "");
  json recall = c.Call("memory.recall", {{"query", "shell failed"}, {"namespace", "tool-shell"}});
  ASSERT_EQ(recall["result"]["results"].size(), 1u) << recall.dump();
  EXPECT_EQ(recall["result"]["results"][0]["source"], "tool_rule");
  // The call statistics of the tool.
  json stats = c.Call("memory.get", {{"key", "tool/shell"}, {"namespace", "tool_effectiveness"}});
  json counts = json::parse(stats["result"]["content"].get<std::string>());
  EXPECT_EQ(counts["total_calls"], 2);
  EXPECT_EQ(counts["failures"], 2);
  EXPECT_EQ(counts["recent_error_classes"], json::array({"connection_error"}));
}

TEST_F(RulesE2e, BadInputNamesTheFieldAndChangesNothing) {
  auto daemon = Start();
  ASSERT_TRUE(daemon->started());
  Client c(daemon->port());
  json r = c.Call("memory.tool_rule_put", {{"tool_name", "   "}, {"rule", "x"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("tool_name"), std::string::npos);
  r = c.Call("memory.tool_rule_put", {{"tool_name", "shell"}, {"rule", ""}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("rule"), std::string::npos);
  r = c.Call("memory.tool_rule_put",
             {{"tool_name", "shell"}, {"rule", "x"}, {"priority", "urgent"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("critical, high, normal"),
            std::string::npos);
  r = c.Call("memory.turn_complete",
             Turn("Never use sudo.", json::array({{{"name", "bad tool"}}})));
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("tool_calls[0].name"), std::string::npos);
  r = c.Call("memory.turn_complete", Turn("Never use sudo.", json::array({{{"success", false}}})));
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("tool_calls[0].name"), std::string::npos);
  r = c.Call("memory.turn_complete", {{"session_id", " "}, {"user_message", "Never use sudo."}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  // None of the refused calls stored a rule.
  EXPECT_EQ(c.Call("memory.tool_rules_json", json::object())["result"], json::array());
}

TEST_F(RulesE2e, CaptureSwitchedOffByTheEnvironment) {
  auto daemon = Start({{"MNEMO_LEARNING_TOOL_MEMORY_CAPTURE_ENABLED", "0"}});
  ASSERT_TRUE(daemon->started());
  Client c(daemon->port());
  json r = c.Call("memory.turn_complete",
                  Turn("Never email Sarah at sarah@example.com.", SendEmailCall()));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_TRUE(r["result"]["new_rules"].empty());
  EXPECT_EQ(r["result"]["rules_captured"], false);
  EXPECT_EQ(c.Call("memory.tool_rules_json", json::object())["result"], json::array());
}

// Spec 30: [[rules.aliases]] in mnemo.toml extends the built-in table, and
// an edict that names no tool of its turn reaches a tool the engine knows.
TEST_F(RulesE2e, ConfiguredAliasesAndKnownToolsChooseTheTool) {
  {
    std::ofstream toml(dir_.Sub("mnemo.toml"));
    toml << "[[rules.aliases]]\nwords = [\"ticket\", \"工单\"]\ntool_contains = [\"jira\"]\n";
  }
  auto daemon = Start();
  ASSERT_TRUE(daemon->started()) << daemon->Stderr();
  Client c(daemon->port());
  ASSERT_TRUE(c.Call("memory.tool_register", {{"name", "jira_close"}}).contains("result"));
  ASSERT_TRUE(c.Call("memory.tool_register", {{"name", "send_email"}}).contains("result"));
  json r = c.Call("memory.turn_complete",
                  Turn("Never close tickets on Fridays. 不要关闭别人的工单。 Never email Mark, and "
                       "never share my phone number.",
                       json::array({{{"name", "web_search"}, {"success", true}},
                                    {{"name", "read_file"}, {"success", true}}})));
  ASSERT_TRUE(r.contains("result")) << r.dump();
  std::vector<std::pair<std::string, std::string>> got;
  for (const json& rule : r["result"]["new_rules"]) {
    EXPECT_EQ(rule["priority"], "critical");
    got.emplace_back(rule["tool_name"], rule["rule"]);
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, std::string>>{
                     {"jira_close", "Never close tickets on Fridays."},
                     {"jira_close", "不要关闭别人的工单。"},
                     {"send_email", "Never email Mark"},
                     {"*", "never share my phone number."}}));
  EXPECT_EQ(daemon->Stop(SIGTERM), 0);

  // With aliases_replace_builtin the email row is gone: the edict is unscoped.
  {
    std::ofstream toml(dir_.Sub("mnemo.toml"));
    toml << "[rules]\naliases_replace_builtin = true\n\n[[rules.aliases]]\nwords = [\"ticket\"]\n"
            "tool_contains = [\"jira\"]\n";
  }
  daemon = Start();
  ASSERT_TRUE(daemon->started()) << daemon->Stderr();
  Client again(daemon->port());
  r = again.Call(
      "memory.turn_complete",
      Turn("Never email Bob.", json::array({{{"name", "web_search"}, {"success", true}},
                                            {{"name", "read_file"}, {"success", true}}})));
  ASSERT_EQ(r["result"]["new_rules"].size(), 1u) << r.dump();
  EXPECT_EQ(r["result"]["new_rules"][0]["tool_name"], "*");
}

// Spec 60's tool table with issue 21's change: an OpenAI-style harness pins
// a rule through the tool_rule_put tool (and the daemon's prompt block shows
// it); listing rules stays an MCP tool.
TEST_F(RulesE2e, AnLlmPinsARuleThroughToolRulePutAndListingStaysMcp) {
  auto daemon = Start();
  ASSERT_TRUE(daemon->started());
  Client c(daemon->port());
  json tools = c.Call("memory.tools_schema", json::object())["result"];
  std::vector<std::string> names;
  for (const json& t : tools) names.push_back(t["function"]["name"]);
  EXPECT_NE(std::find(names.begin(), names.end(), "memory_store"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "tool_rule_put"), names.end());
  EXPECT_EQ(std::find(names.begin(), names.end(), "tool_rule_list"), names.end());
  json call = c.Call("memory.tool_call",
                     {{"name", "tool_rule_put"},
                      {"arguments", R"({"tool_name": "send_email", "rule": "Never email Sarah.",
                                        "priority": "critical"})"}})["result"];
  EXPECT_EQ(call["is_error"], false) << call.dump();
  json block = c.Call("memory.tool_rules_for_prompt", {{"tools", {"send_email"}}})["result"];
  EXPECT_NE(block["rendered"].get<std::string>().find("Never email Sarah."), std::string::npos)
      << block.dump();
}

TEST(RulesCli, PutListPromptDelete) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  auto mnemo = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--workspace", ws});
    return RunMnemo(args);
  };
  RunResult r = mnemo({"--json", "rules", "put", "Shell", "Prefer rg over grep.", "--priority",
                       "high", "--tags", "speed,search"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json put = json::parse(r.out);
  EXPECT_EQ(put["tool_name"], "shell");
  EXPECT_EQ(put["tags"], json::array({"speed", "search"}));
  r = mnemo(
      {"rules", "put", "shell", "Don't run shell commands with sudo.", "--priority", "critical"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = mnemo({"rules", "prompt"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("### `shell`\n- **[critical]** Don't run shell commands with sudo.\n- "
                       "**[high]** Prefer rg over grep.\n"),
            std::string::npos)
      << r.out;
  r = mnemo({"rules", "list", "shell"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Prefer rg over grep."), std::string::npos) << r.out;
  r = mnemo({"rules", "delete", "shell", put["id"].get<std::string>()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = mnemo({"--json", "rules", "list", "shell"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).size(), 1u) << r.out;
  r = mnemo({"rules", "put", "", "x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("tool_name"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mnemo::e2e

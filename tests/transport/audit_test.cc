// The audit log through the method table (spec 10, "Audit"): one line per
// operation with principal, method, address and outcome — ok, not_found,
// denied, invalid, error, and redacted for secrets taken out of a turn —
// and never any content.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "rpc_fixture.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

class AuditTest : public RpcTest {
 protected:
  void SetUp() override {
    Config config;
    config.memory.acl_enabled = true;
    config.security.audit.enabled = true;
    Open(config);
    who_ = Principal{.name = "alice", .role = Role::kUser};
  }

  std::vector<json> Lines() {
    std::vector<json> out;
    std::ifstream in(dir_.File("audit.log"));
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  std::string Text() {
    std::ifstream in(dir_.File("audit.log"));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
};

TEST_F(AuditTest, EachOutcomeIsOneLineWithTheAddressAndNoContent) {
  Ok("memory.store", {{"key", "trip"},
                      {"value", "the pelican flies to Lisbon"},
                      {"category", "daily"},
                      {"namespace", "travel"}});
  Ok("memory.get", {{"key", "trip"}, {"namespace", "travel"}});
  Err("memory.get", {{"key", "nothing-here"}});
  Ok("memory.forget", {{"key", "nothing-here"}});
  Err("memory.store", {{"value", "no key given"}});
  Err("memory.hygiene_run", json::object());  // a user is not an admin
  Ok("memory.search", {{"query", "pelican Lisbon"}});
  Ok("memory.turn_complete", {{"session_id", "s1"},
                              {"user_message", "my key is sk-live-4eC39HqLyjWDarjtT1zdp7dc ok"},
                              {"assistant_response", "noted"}});

  std::vector<json> lines = Lines();
  ASSERT_EQ(lines.size(), 9u) << Text();
  std::vector<std::string> outcomes;
  for (const json& l : lines) {
    EXPECT_EQ(l.at("principal"), "alice");
    EXPECT_TRUE(l.at("time").is_string());
    EXPECT_TRUE(l.at("duration_ms").is_number());
    outcomes.push_back(l.at("method").get<std::string>() + " " +
                       l.at("outcome").get<std::string>());
  }
  EXPECT_EQ(outcomes,
            (std::vector<std::string>{"memory.store ok", "memory.get ok", "memory.get not_found",
                                      "memory.forget not_found", "memory.store invalid",
                                      "memory.hygiene_run denied", "memory.search ok",
                                      "memory.turn_complete ok", "memory.turn_complete redacted"}));
  EXPECT_EQ(lines[0].at("namespace"), "travel");
  EXPECT_EQ(lines[0].at("key"), "trip");
  EXPECT_EQ(lines[0].at("category"), "daily");
  EXPECT_EQ(lines[8].at("count"), 1);
  // Content, queries, messages and secrets never reach the log.
  const std::string text = Text();
  for (const char* never : {"pelican", "Lisbon", "no key given", "sk-live", "noted"}) {
    EXPECT_EQ(text.find(never), std::string::npos) << never;
  }
}

// A tool call is the one operation it runs: the service's line, not a
// second one for memory.tool_call. What reaches no service (an unknown
// tool, a method about the table) is the table's line.
TEST_F(AuditTest, AToolCallIsOneLineUnderTheMethodItRan) {
  Ok("memory.tool_call",
     {{"name", "memory_store"}, {"arguments", {{"key", "trip"}, {"value", "pelican"}}}});
  Ok("memory.tool_call", {{"name", "no_such_tool"}, {"arguments", json::object()}});
  Ok("memory.methods", json::object());
  std::vector<std::string> methods;
  for (const json& l : Lines())
    methods.push_back(l.at("method").get<std::string>() + " " + l.at("outcome").get<std::string>());
  EXPECT_EQ(methods, (std::vector<std::string>{"memory.store ok", "memory.tool_call ok",
                                               "memory.methods ok"}))
      << Text();
  EXPECT_EQ(Text().find("pelican"), std::string::npos);
}

TEST_F(AuditTest, NothingIsWrittenWhenAuditIsOff) {
  Open(Config{});
  Ok("memory.store", {{"key", "k"}, {"value", "v"}});
  std::ifstream in(dir_.File("audit.log"));
  std::string first;
  std::getline(in, first);
  // The log of SetUp's engine exists but gets nothing from this one.
  EXPECT_TRUE(first.empty()) << first;
}

}  // namespace
}  // namespace mnemo::transport

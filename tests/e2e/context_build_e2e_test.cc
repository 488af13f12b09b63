// memory.context_build (spec 50, "Context block") through the real daemon:
// every preset stays within its budget, the same memory and request give the
// same bytes, and each layer reaches its section.
#include <gtest/gtest.h>
#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"
#include "text/utf8.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

class ContextBuildE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    http_->set_read_timeout(20, 0);
  }

  json Call(const std::string& method, const json& params) {
    auto r = http_->Post(
        "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
        "application/json");
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    return json::parse(r->body, nullptr, false);
  }

  // Enough memory in every layer to overflow the smallest budgets.
  void Fill() {
    for (int i = 0; i < 40; ++i) {
      const std::string n = std::to_string(i);
      json r = Call("memory.store", {{"key", "deploy-note-" + n},
                                     {"content", "Deploy note " + n +
                                                     ": the billing service deploys with "
                                                     "deploy.py from the release branch, "
                                                     "after the database migration step " +
                                                     n + " has finished and been checked."}});
      ASSERT_TRUE(r.contains("result")) << r.dump();
    }
    Call("memory.profile_put",
         {{"facet_type", "preference"}, {"key", "deploy day"}, {"value", "Tuesday"}});
    for (int i = 0; i < 6; ++i) {
      const std::string n = std::to_string(i);
      json r = Call("memory.turn_complete",
                    {{"session_id", "ops"},
                     {"user_message", "How do we deploy the billing service, step " + n + "?"},
                     {"assistant_response", "Run deploy.py after the migration, step " + n + "."},
                     {"sync", true}});
      ASSERT_TRUE(r.contains("result")) << r.dump();
    }
    ASSERT_TRUE(
        Call("memory.session_end", {{"session_id", "ops"}, {"sync", true}}).contains("result"));
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(ContextBuildE2e, EveryPresetStaysWithinItsBudgetAndRepeatsItselfExactly) {
  Fill();
  for (const auto& [preset, budget] : std::vector<std::pair<std::string, int64_t>>{
           {"minimal", 2000}, {"balanced", 8000}, {"extended", 16000}, {"maximum", 32000}}) {
    const json params = {{"query", "how do we deploy billing"}, {"preset", preset}};
    json first = Call("memory.context_build", params);
    ASSERT_TRUE(first.contains("result")) << first.dump();
    const json& block = first["result"];
    const std::string text = block["text"];
    EXPECT_EQ(block["budget_chars"], budget) << preset;
    EXPECT_LE(static_cast<int64_t>(text::CountCodePoints(text)), budget) << preset;
    EXPECT_EQ(block["used_chars"], static_cast<int64_t>(text::CountCodePoints(text)));
    EXPECT_NE(text.find("## Relevant memories\n- deploy-note-"), std::string::npos) << text;
    json again = Call("memory.context_build", params);
    EXPECT_EQ(again["result"]["text"], text) << preset;
  }
  // The minimal preset is full: 40 notes of ~150 characters cannot all fit
  // (what is left is less than one more turn line, recaps and documents that
  // only repeat turns in the block being left out).
  json minimal = Call("memory.context_build", {{"query", "deploy billing"}, {"preset", "minimal"}});
  EXPECT_GT(minimal["result"]["used_chars"].get<int64_t>(), 1400) << minimal.dump();
}

TEST_F(ContextBuildE2e, EachLayerReachesItsSection) {
  Fill();
  json r =
      Call("memory.context_build",
           {{"query", "deploy billing migration"}, {"session_id", "ops"}, {"preset", "maximum"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  const std::string text = r["result"]["text"];
  EXPECT_NE(text.find("## About the user\n- preference deploy day: Tuesday\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("## Relevant turns\n- "), std::string::npos) << text;
  // Turns are quoted whole with their number, role and date (issue 18),
  // neighbours in one run.
  EXPECT_NE(text.find("#0 user: How do we deploy the billing service, step 0? #1 assistant: "),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("- (ops, 20"), std::string::npos) << text;
  // The session's extractive recap and its segment document only repeat
  // turns that are in the block: they are left out rather than said twice.
  EXPECT_EQ(text.find("## Earlier in this conversation\n- "), std::string::npos) << text;
  EXPECT_EQ(text.find("[agent://session/ops/segment/"), std::string::npos) << text;
  // A tight explicit budget still holds.
  r = Call("memory.context_build", {{"query", "deploy"}, {"budget_chars", 120}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_LE(text::CountCodePoints(r["result"]["text"].get<std::string>()), 120u);
}

TEST_F(ContextBuildE2e, BadRequestsNameTheParameter) {
  json r = Call("memory.context_build", {{"query", "x"}, {"preset", "huge"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("preset"), std::string::npos);
  r = Call("memory.context_build", {{"query", "  "}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("query"), std::string::npos);
  r = Call("memory.context_build", {{"query", "x"}, {"budget_chars", 0}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("budget_chars"), std::string::npos);
}

}  // namespace
}  // namespace mnemo::e2e

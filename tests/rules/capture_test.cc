#include "rules/capture.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/types.h"
#include "rules/edicts.h"
#include "rules/rule_store.h"
#include "rules/tool_rule.h"
#include "rules/tool_stats.h"
#include "storage/memory/memory_backend.h"
#include "storage/test_values.h"

namespace mnemo::rules {
namespace {

constexpr TimeMs kStart = 1795946400000;

class FakeClock final : public Clock {
 public:
  TimeMs NowMs() const override { return now_; }
  void Advance(TimeMs ms) { now_ += ms; }

 private:
  TimeMs now_ = kStart;
};

ToolCall Ok(std::string name, int64_t duration_ms = 0) {
  return ToolCall{
      .name = std::move(name), .success = true, .output = "ok", .duration_ms = duration_ms};
}

ToolCall Failed(std::string name, std::string output, int64_t duration_ms = 0) {
  return ToolCall{.name = std::move(name),
                  .success = false,
                  .output = std::move(output),
                  .duration_ms = duration_ms};
}

Turn TurnOf(std::vector<ToolCall> calls, std::string user_message = "Please list the files.") {
  return Turn{
      .session_id = "s1", .user_message = std::move(user_message), .tool_calls = std::move(calls)};
}

std::string FailureText(const std::string& tool, int n, const std::string& cls) {
  return "Tool failed " + std::to_string(n) + " times in one turn (" + tool + ": failed (" + cls +
         ")). Consider an alternative approach before retrying.";
}

class CaptureTest : public ::testing::Test {
 protected:
  std::vector<RulePutOutcome> Capture(const Turn& turn) {
    Result<std::vector<RulePutOutcome>> r = CaptureRules(store_, "local", turn, BuiltinAliases());
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<RulePutOutcome>{};
  }

  std::vector<ToolRule> All() {
    Result<std::vector<ToolRule>> r = store_.ListAll({});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<ToolRule>{};
  }

  FakeClock clock_;
  std::unique_ptr<storage::internal::MemoryBackend> backend_ =
      std::make_unique<storage::internal::MemoryBackend>();
  RuleStore store_{backend_->entries(), clock_};
};

TEST(Capture, TurnToolsAreNormalisedDistinctInRunOrder) {
  Turn turn = TurnOf({Ok(" Shell "), Ok("send_email"), Failed("SHELL", "x"), Ok("browser")});
  EXPECT_EQ(TurnTools(turn), (std::vector<std::string>{"shell", "send_email", "browser"}));
  EXPECT_TRUE(TurnTools(TurnOf({})).empty());
}

TEST(Capture, FailureRuleTextIsTheSpecSentence) {
  EXPECT_EQ(FailureRuleText("shell", 2, "timeout"),
            "Tool failed 2 times in one turn (shell: failed (timeout)). Consider an alternative "
            "approach before retrying.");
}

TEST_F(CaptureTest, OneFailureMakesNoRule) {
  std::vector<RulePutOutcome> out =
      Capture(TurnOf({Failed("shell", "command timed out"), Ok("shell"), Failed("browser", "x")}));
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(All().empty());
  EXPECT_TRUE(RepeatedFailures(TurnOf({Failed("shell", "x")})).empty());
}

TEST_F(CaptureTest, TwoFailuresMakeOneNormalRule) {
  std::vector<RulePutOutcome> out = Capture(TurnOf(
      {Failed("shell", "command timed out"), Ok("shell"), Failed("shell", "permission denied")}));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].created);
  const ToolRule& r = out[0].rule;
  EXPECT_EQ(r.tool_name, "shell");
  EXPECT_EQ(r.priority, RulePriority::kNormal);
  EXPECT_EQ(r.source, RuleSource::kPostTurn);
  EXPECT_EQ(r.tags, std::vector<std::string>{"repeated-failure"});
  EXPECT_EQ(r.rule,
            "Tool failed 2 times in one turn (shell: failed (timeout)). Consider an alternative "
            "approach before retrying.");

  std::vector<ToolRule> all = All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, r.id);
  EXPECT_EQ(all[0].rule, r.rule);
}

TEST_F(CaptureTest, TheNextTurnRefreshesTheSameFailureRule) {
  std::vector<RulePutOutcome> first =
      Capture(TurnOf({Failed("shell", "command timed out"), Failed("shell", "timed out again")}));
  ASSERT_EQ(first.size(), 1u);
  clock_.Advance(60'000);
  std::vector<RulePutOutcome> second =
      Capture(TurnOf({Failed("Shell", "ls: cannot access 'x': No such file or directory"),
                      Failed("shell", "command timed out"), Failed("shell ", "exit 1")}));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_FALSE(second[0].created);
  EXPECT_TRUE(second[0].refreshed);
  EXPECT_EQ(second[0].rule.id, first[0].rule.id);
  EXPECT_EQ(second[0].rule.rule, FailureText("shell", 3, "not_found"));
  EXPECT_EQ(second[0].rule.created_at, kStart);
  EXPECT_EQ(second[0].rule.updated_at, kStart + 60'000);

  std::vector<ToolRule> all = All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].rule, FailureText("shell", 3, "not_found"));
}

TEST_F(CaptureTest, EachToolCountsOnItsOwn) {
  std::vector<RulePutOutcome> out =
      Capture(TurnOf({Failed("browser", "HTTP 404 not found"),
                      Failed("shell", "connection refused"), Failed("send_email", "boom"),
                      Failed("shell", "timed out"), Failed("browser", "ECONNRESET")}));
  ASSERT_EQ(out.size(), 2u);
  // Tool order: the order the tools first ran.
  EXPECT_EQ(out[0].rule.tool_name, "browser");
  EXPECT_EQ(out[0].rule.rule, FailureText("browser", 2, "not_found"));
  EXPECT_EQ(out[1].rule.tool_name, "shell");
  EXPECT_EQ(out[1].rule.rule, FailureText("shell", 2, "connection_error"));
}

TEST_F(CaptureTest, FailureClassesAreMapped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"Error: command timed out after 30s", "timeout"},
      {"DEADLINE EXCEEDED", "timeout"},
      {"open(/tmp/x): No such file or directory", "not_found"},
      {"HTTP 404", "not_found"},
      {"EACCES: permission denied", "permission_denied"},
      {"403 Forbidden", "permission_denied"},
      {"connect: Connection refused", "connection_error"},
      {"getaddrinfo failed for example.invalid", "connection_error"},
      {"JSON parse error at line 1", "parse_error"},
      {"Unexpected token < in JSON", "parse_error"},
      {"unknown tool: frobnicate", "unknown_tool"},
      {"tool not found", "unknown_tool"},
      {"exit status 1", "error"},
      {"", "error"},
  };
  for (const auto& [output, cls] : cases) {
    EXPECT_EQ(ClassifyFailure(output), cls) << output;
    std::vector<FailureDraft> drafts =
        RepeatedFailures(TurnOf({Failed("shell", output), Failed("shell", "timed out")}));
    ASSERT_EQ(drafts.size(), 1u) << output;
    EXPECT_EQ(drafts[0].tool, "shell");
    EXPECT_EQ(drafts[0].body, FailureText("shell", 2, cls)) << output;
  }
}

TEST_F(CaptureTest, EdictsBecomeCriticalRulesBeforeFailures) {
  std::vector<RulePutOutcome> out =
      Capture(TurnOf({Ok("send_email"), Failed("shell", "timed out"), Failed("shell", "x")},
                     "Never email Sarah at sarah@example.com. Thanks!"));
  ASSERT_EQ(out.size(), 2u);
  const ToolRule& edict = out[0].rule;
  EXPECT_EQ(edict.tool_name, "send_email");
  EXPECT_EQ(edict.rule, "Never email Sarah at sarah@example.com.");
  EXPECT_EQ(edict.priority, RulePriority::kCritical);
  EXPECT_EQ(edict.source, RuleSource::kUserExplicit);
  EXPECT_EQ(edict.tags, std::vector<std::string>{"user-edict"});
  EXPECT_EQ(out[1].rule.tool_name, "shell");
  EXPECT_EQ(out[1].rule.priority, RulePriority::kNormal);

  // Said again: the same rule, refreshed.
  clock_.Advance(1000);
  std::vector<RulePutOutcome> again =
      Capture(TurnOf({Ok("send_email")}, "never email sarah at sarah@example.com"));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_FALSE(again[0].created);
  EXPECT_TRUE(again[0].refreshed);
  EXPECT_EQ(again[0].rule.id, edict.id);
  EXPECT_EQ(All().size(), 2u);
}

TEST(Capture, IdenticalInputGivesIdenticalRules) {
  const Turn turn =
      TurnOf({Ok("send_email"), Failed("shell", "timed out"), Failed("browser", "404"),
              Failed("shell", "denied"), Failed("browser", "malformed response")},
             "Don't run shell commands with sudo. Never email Sarah. Also never "
             "open pop-ups in the browser.");
  std::vector<std::vector<std::string>> captured;
  std::vector<std::vector<std::string>> listed;
  for (int run = 0; run < 2; ++run) {
    FakeClock clock;
    auto backend = std::make_unique<storage::internal::MemoryBackend>();
    RuleStore store(backend->entries(), clock);
    Result<std::vector<RulePutOutcome>> out = CaptureRules(store, "local", turn, BuiltinAliases());
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    std::vector<std::string> c;
    for (const RulePutOutcome& o : *out) {
      c.push_back(o.rule.tool_name + "|" + std::string(PriorityName(o.rule.priority)) + "|" +
                  o.rule.rule);
    }
    captured.push_back(std::move(c));
    Result<std::vector<ToolRule>> all = store.ListAll({});
    ASSERT_TRUE(all.ok());
    std::vector<std::string> l;
    for (const ToolRule& r : *all) {
      l.push_back(r.tool_name + "|" + std::string(PriorityName(r.priority)) + "|" + r.rule);
    }
    listed.push_back(std::move(l));
  }
  ASSERT_EQ(captured[0].size(), 5u);  // three edicts, two failure rules
  EXPECT_EQ(captured[0], captured[1]);
  EXPECT_EQ(listed[0], listed[1]);
  EXPECT_EQ(listed[0].size(), 5u);
}

// The statistics entry of `tool`, parsed.
nlohmann::json StatsOf(storage::internal::MemoryBackend& backend, const std::string& owner,
                       const std::string& tool) {
  Result<std::optional<Entry>> e = backend.entries().FindExact(
      owner, TestNamespace("tool_effectiveness"), TestKey("tool/" + tool));
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  if (!e.ok() || !e->has_value()) return nullptr;
  return nlohmann::json::parse((*e)->content, nullptr, /*allow_exceptions=*/false);
}

TEST(ToolStats, RecordToolStatsCountsEveryCall) {
  auto backend = std::make_unique<storage::internal::MemoryBackend>();
  ASSERT_TRUE(
      RecordToolStats(backend->entries(), kStart, "local",
                      TurnOf({Ok("shell", 100), Failed("Shell", "command timed out", 300),
                              Ok("send_email", 40), Failed("shell", "permission denied", 200)}))
          .ok());
  nlohmann::json shell = StatsOf(*backend, "local", "shell");
  ASSERT_TRUE(shell.is_object()) << shell.dump();
  EXPECT_EQ(shell["tool"], "shell");
  EXPECT_EQ(shell["total_calls"], 3);
  EXPECT_EQ(shell["successes"], 1);
  EXPECT_EQ(shell["failures"], 2);
  EXPECT_DOUBLE_EQ(shell["mean_duration_ms"].get<double>(), 200.0);
  EXPECT_EQ(shell["recent_error_classes"], (nlohmann::json{"permission_denied", "timeout"}));

  nlohmann::json mail = StatsOf(*backend, "local", "send_email");
  ASSERT_TRUE(mail.is_object());
  EXPECT_EQ(mail["total_calls"], 1);
  EXPECT_EQ(mail["successes"], 1);
  EXPECT_EQ(mail["failures"], 0);
  EXPECT_DOUBLE_EQ(mail["mean_duration_ms"].get<double>(), 40.0);
  EXPECT_EQ(mail["recent_error_classes"], nlohmann::json::array());

  // The next turn adds to the same entry; classes stay distinct, at most 5,
  // the most recent first.
  ASSERT_TRUE(
      RecordToolStats(
          backend->entries(), kStart + 1000, "local",
          TurnOf({Failed("shell", "timed out", 0), Failed("shell", "connection refused", 10),
                  Failed("shell", "parse error", 20), Failed("shell", "unknown tool", 30),
                  Failed("shell", "no such file", 40)}))
          .ok());
  shell = StatsOf(*backend, "local", "shell");
  ASSERT_TRUE(shell.is_object());
  EXPECT_EQ(shell["total_calls"], 8);
  EXPECT_EQ(shell["successes"], 1);
  EXPECT_EQ(shell["failures"], 7);
  EXPECT_DOUBLE_EQ(shell["mean_duration_ms"].get<double>(), 700.0 / 8.0);
  EXPECT_EQ(
      shell["recent_error_classes"],
      (nlohmann::json{"not_found", "unknown_tool", "parse_error", "connection_error", "timeout"}));

  // Per owner, and never a rule.
  EXPECT_TRUE(StatsOf(*backend, "alice", "shell").is_null());
  FakeClock clock;
  RuleStore store(backend->entries(), clock);
  Result<std::vector<ToolRule>> rules = store.ListAll({});
  ASSERT_TRUE(rules.ok());
  EXPECT_TRUE(rules->empty());
}

TEST(ToolStats, DecodeIsLenient) {
  ToolStats s = DecodeToolStats(R"({"total_calls":"x","failures":3,"recent_error_classes":[1,
      "timeout","a","b","c","d","e"]})",
                                "shell");
  EXPECT_EQ(s.tool, "shell");
  EXPECT_EQ(s.total_calls, 0);
  EXPECT_EQ(s.failures, 3);
  EXPECT_EQ(s.recent_error_classes, (std::vector<std::string>{"timeout", "a", "b", "c", "d"}));
  EXPECT_EQ(DecodeToolStats("not json", "shell").total_calls, 0);
}

}  // namespace
}  // namespace mnemo::rules

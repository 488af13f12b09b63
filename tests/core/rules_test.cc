// Tool-scoped rules through the engine (spec 30): validation, capture in
// TurnComplete, the pinned block, ACL and configuration.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/config.h"
#include "mnemo/engine.h"
#include "mnemo/limits.h"
#include "mnemo/types.h"
#include "test_util.h"

namespace mnemo {
namespace {

using testing::ManualClock;
using testing::TempDir;

constexpr char kSarah[] = "Never email Sarah at sarah@example.com.";

size_t Count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = haystack.find(needle); pos != std::string::npos;
       pos = haystack.find(needle, pos + needle.size())) {
    ++n;
  }
  return n;
}

bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

class EngineRules : public ::testing::Test {
 protected:
  void SetUp() override { Reopen(Config{}); }

  void Reopen(Config config) {
    engine_.reset();
    config.memory.backend = "sqlite";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config, .clock = clock_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  ToolRule PutRule(const ToolRulePut& put, const Principal& who = {}) {
    Result<ToolRule> r = engine_->rules().Put(who, put);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    clock_->Advance(1000);
    return r.ok() ? *r : ToolRule{};
  }

  Status PutError(const ToolRulePut& put) { return engine_->rules().Put(me_, put).status(); }

  TurnResult Complete(const Turn& turn, const Principal& who = {}) {
    Result<TurnResult> r = engine_->archivist().TurnComplete(who, turn);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    clock_->Advance(1000);
    return r.ok() ? *r : TurnResult{};
  }

  static Turn SarahTurn() {
    return Turn{.session_id = "session-1",
                .user_message = kSarah,
                .assistant_response = "Understood.",
                .tool_calls = {ToolCall{.name = "send_email",
                                        .arguments_json = R"({"to":"bob@example.com"})",
                                        .success = true,
                                        .output = "sent",
                                        .duration_ms = 120}}};
  }

  std::vector<ToolRule> ListAll(const Principal& who = {}) {
    Result<std::vector<ToolRule>> r = engine_->rules().List(who, std::nullopt);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<ToolRule>{};
  }

  std::string Rendered(const std::vector<std::string>& tools = {}, const Principal& who = {}) {
    Result<PromptRules> r = engine_->rules().ForPrompt(who, tools);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->rendered : std::string();
  }

  // The statistics entry of `tool` (JSON text), "" when there is none.
  std::string StatsOf(const std::string& tool) {
    Result<Entry> e =
        engine_->memory().Get(me_, {.key = "tool/" + tool, .ns = "tool_effectiveness"});
    return e.ok() ? e->content : std::string();
  }

  TempDir dir_;
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>();
  Principal me_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineRules, PutToolRuleRejectsBlankFields) {
  Status no_tool = PutError({.tool_name = "  ", .rule = "Never run sudo."});
  EXPECT_EQ(no_tool.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_tool.field(), "tool_name");
  EXPECT_TRUE(Contains(no_tool.message(), "blank")) << no_tool.message();

  Status no_rule = PutError({.tool_name = "shell", .rule = " \n\t "});
  EXPECT_EQ(no_rule.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(no_rule.field(), "rule");

  Status bad_tool = PutError({.tool_name = "send email", .rule = "x"});
  EXPECT_EQ(bad_tool.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_tool.field(), "tool_name");
  EXPECT_TRUE(ListAll().empty());
}

TEST_F(EngineRules, PutToolRuleRejectsReservedTagsBadIdsAndSecrets) {
  Status tag = PutError({.tool_name = "shell", .rule = "x", .tags = {"ok", "source:x"}});
  EXPECT_EQ(tag.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(tag.field(), "tags");

  for (const std::string& id : {std::string("not valid!"), std::string("a/b"), std::string(65, 'a'),
                                std::string("caf\xC3\xA9")}) {
    Status bad_id = PutError({.tool_name = "shell", .rule = "x", .id = id});
    EXPECT_EQ(bad_id.code(), StatusCode::kInvalidArgument) << id;
    EXPECT_EQ(bad_id.field(), "id") << id;
  }

  Status secret =
      PutError({.tool_name = "shell",
                .rule = "Always pass --key sk-proj1234abcd5678efgh9012ijkl to the cli"});
  EXPECT_EQ(secret.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(secret.field(), "rule");
  EXPECT_TRUE(Contains(secret.message(), "secret")) << secret.message();
  EXPECT_TRUE(ListAll().empty());
}

TEST_F(EngineRules, PutGetListDeleteRoundTrip) {
  ToolRule put = PutRule({.tool_name = "  Send_Email ",
                          .rule = kSarah,
                          .priority = RulePriority::kCritical,
                          .source = RuleSource::kUserExplicit,
                          .tags = {"safety"}});
  EXPECT_EQ(put.tool_name, "send_email");
  EXPECT_EQ(put.owner, "local");
  EXPECT_FALSE(put.id.empty());

  Result<std::optional<ToolRule>> got = engine_->rules().Get(me_, "SEND_EMAIL", put.id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->rule, kSarah);
  EXPECT_EQ((*got)->priority, RulePriority::kCritical);
  EXPECT_EQ((*got)->tags, std::vector<std::string>{"safety"});

  // A blank id is a new rule (or, as here, a refreshed equal one).
  ToolRule same = PutRule({.tool_name = "send_email",
                           .rule = "never email sarah at "
                                   "sarah@example.com",
                           .id = "  "});
  EXPECT_EQ(same.id, put.id);
  EXPECT_EQ(same.priority, RulePriority::kCritical);

  Result<std::vector<ToolRule>> listed = engine_->rules().List(me_, "send_email");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);

  Result<bool> del = engine_->rules().Delete(me_, "send_email", put.id);
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(*del);
  del = engine_->rules().Delete(me_, "send_email", put.id);
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(*del);
  got = engine_->rules().Get(me_, "send_email", put.id);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());

  EXPECT_EQ(engine_->rules().Get(me_, " ", put.id).status().field(), "tool_name");
  EXPECT_EQ(engine_->rules().Delete(me_, "shell", "bad id").status().field(), "id");
}

TEST_F(EngineRules, TurnCompleteCapturesTheSafetyEdictOnce) {
  TurnResult first = Complete(SarahTurn());
  EXPECT_TRUE(first.rules_captured);
  ASSERT_EQ(first.new_rules.size(), 1u);
  EXPECT_TRUE(first.refreshed_rules.empty());
  const ToolRule& rule = first.new_rules[0];
  EXPECT_EQ(rule.tool_name, "send_email");
  EXPECT_EQ(rule.priority, RulePriority::kCritical);
  EXPECT_EQ(rule.source, RuleSource::kUserExplicit);
  EXPECT_EQ(rule.tags, std::vector<std::string>{"user-edict"});
  EXPECT_EQ(rule.rule, kSarah);

  TurnResult again = Complete(SarahTurn());
  EXPECT_TRUE(again.rules_captured);
  EXPECT_TRUE(again.new_rules.empty());
  ASSERT_EQ(again.refreshed_rules.size(), 1u);
  EXPECT_EQ(again.refreshed_rules[0].id, rule.id);
  EXPECT_GT(again.refreshed_rules[0].updated_at, rule.updated_at);

  Result<std::vector<ToolRule>> listed = engine_->rules().List(me_, "send_email");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);

  const std::string block = Rendered();
  EXPECT_TRUE(block.starts_with("## Tool-scoped rules\n")) << block;
  EXPECT_TRUE(Contains(block,
                       "### `send_email`\n- **[critical]** Never email Sarah at "
                       "sarah@example.com.\n"))
      << block;
  EXPECT_TRUE(Contains(block, "memory_recall")) << block;
  EXPECT_FALSE(Contains(block, "memory_search")) << block;
}

TEST_F(EngineRules, TurnCompleteMapsAChineseEdictThroughTheAlias) {
  Turn turn = SarahTurn();
  turn.user_message = "永远不要给 sarah@example.com 的 Sarah 发邮件。";
  turn.tool_calls.insert(turn.tool_calls.begin(), ToolCall{.name = "shell"});
  TurnResult r = Complete(turn);
  ASSERT_EQ(r.new_rules.size(), 1u);
  EXPECT_EQ(r.new_rules[0].tool_name, "send_email");
  EXPECT_TRUE(Contains(r.new_rules[0].rule, "sarah@example.com"));
}

// Spec 30, tool step 2: an edict that names no tool of its turn lands on a
// tool the engine knows through the alias table: registered, with
// statistics or with rules.
TEST_F(EngineRules, AnEdictReachesEveryToolTheEngineKnows) {
  auto edict_in_search_turn = [&](const std::string& message) {
    TurnResult r = Complete(Turn{.session_id = "s",
                                 .user_message = message,
                                 .tool_calls = {ToolCall{.name = "web_search", .success = true}}});
    EXPECT_EQ(r.new_rules.size(), 1u) << message;
    return r.new_rules.empty() ? std::string() : r.new_rules[0].tool_name;
  };
  // Known to nobody yet: the only tool of the turn.
  EXPECT_EQ(edict_in_search_turn("Never email Mark."), "web_search");
  // Registered.
  ASSERT_TRUE(engine_->tools().Register(me_, ToolSpec{.name = "send_email"}).ok());
  EXPECT_EQ(edict_in_search_turn("Never email Mark again."), "send_email");
  // With statistics only (it ran in an earlier turn).
  Complete(Turn{.session_id = "s", .tool_calls = {ToolCall{.name = "run_bash", .success = true}}});
  EXPECT_EQ(edict_in_search_turn("Never use sudo in the terminal."), "run_bash");
  // With rules only.
  PutRule({.tool_name = "slack_post", .rule = "Keep it short."});
  EXPECT_EQ(edict_in_search_turn("Never DM the CEO."), "slack_post");
  // An edict without an alias word stays with the only tool of the turn.
  EXPECT_EQ(edict_in_search_turn("Never share my phone number."), "web_search");
}

TEST_F(EngineRules, ConfiguredAliasesExtendTheBuiltinTable) {
  Config config;
  config.rules.aliases = {{.words = {"ticket", "工单"}, .tool_contains = {"jira"}}};
  Reopen(config);
  const Turn turn{.session_id = "s",
                  .user_message = "Never close tickets. Never email Mark.",
                  .tool_calls = {ToolCall{.name = "search", .success = true},
                                 ToolCall{.name = "jira_close", .success = true},
                                 ToolCall{.name = "outboxmail", .success = true}}};
  TurnResult r = Complete(turn);
  ASSERT_EQ(r.new_rules.size(), 2u);
  EXPECT_EQ(r.new_rules[0].tool_name, "jira_close");
  EXPECT_EQ(r.new_rules[1].tool_name, "outboxmail");  // the built-in email row

  config.rules.aliases_replace_builtin = true;
  Reopen(config);
  Turn again = turn;
  again.user_message = "不要关闭工单。Never e-mail Bob.";
  r = Complete(again);
  ASSERT_EQ(r.new_rules.size(), 2u);
  EXPECT_EQ(r.new_rules[0].tool_name, "jira_close");
  EXPECT_EQ(r.new_rules[1].tool_name, "*");  // no email row any more
}

// Spec 30, body: redaction of a secret inside an edict keeps the
// punctuation after it.
TEST_F(EngineRules, RedactedEdictKeepsItsPunctuation) {
  Turn turn = SarahTurn();
  turn.user_message =
      "Never paste password=hunter2abc. Don't email token: ghp_" + std::string(36, 'a') + "1!";
  TurnResult r = Complete(turn);
  ASSERT_EQ(r.new_rules.size(), 2u);
  EXPECT_EQ(r.new_rules[0].rule, "Never paste password=[REDACTED].");
  EXPECT_EQ(r.new_rules[1].rule, "Don't email token: [REDACTED]!");
}

// security.secrets = "allow" keeps a secret in an edict's rule, while the
// stored rows are still redacted (security.redact_episodic): the turn's
// message moves into the redacted rows, so the rules must keep the original.
TEST_F(EngineRules, AllowedSecretStaysInTheRuleButNotInTheRows) {
  Config allow;
  allow.security.secrets = "allow";
  Reopen(allow);
  Turn turn = SarahTurn();
  turn.user_message = "Never paste password=hunter2abc.";
  TurnResult r = Complete(turn);
  ASSERT_EQ(r.new_rules.size(), 1u);
  EXPECT_EQ(r.new_rules[0].rule, "Never paste password=hunter2abc.");
  EXPECT_EQ(r.redactions, 1);
  ASSERT_TRUE(r.user_row.has_value());
  EXPECT_EQ(r.user_row->content, "Never paste password=[REDACTED].");
}

// Without security.redact_episodic the rows keep the message as given; it
// moves into the user row (issue 45) and the rules read it there: redacted
// for the rule, and kept when secrets are allowed.
TEST_F(EngineRules, UnredactedRowsGiveTheRulesTheMessageTheyStored) {
  for (const char* secrets : {"reject", "allow"}) {
    Config config;
    config.security.redact_episodic = false;
    config.security.secrets = secrets;
    Reopen(config);
    Turn turn = SarahTurn();
    turn.session_id = std::string("unredacted-") + secrets;
    turn.user_message = "Never paste password=hunter2abc.";
    TurnResult r = Complete(turn);
    ASSERT_EQ(r.new_rules.size(), 1u) << secrets;
    EXPECT_EQ(r.new_rules[0].rule, std::string(secrets) == "allow"
                                       ? "Never paste password=hunter2abc."
                                       : "Never paste password=[REDACTED].");
    EXPECT_EQ(r.redactions, 0);
    ASSERT_TRUE(r.user_row.has_value());
    EXPECT_EQ(r.user_row->content, "Never paste password=hunter2abc.");
  }
}

TEST_F(EngineRules, RepeatedFailuresBecomeANormalRuleOutOfThePrompt) {
  Turn turn{.session_id = "s",
            .user_message = "List my files.",
            .tool_calls = {ToolCall{.name = "shell", .success = false, .output = "timed out"},
                           ToolCall{.name = "shell", .success = false, .output = "timed out"}}};
  TurnResult r = Complete(turn);
  ASSERT_EQ(r.new_rules.size(), 1u);
  EXPECT_EQ(r.new_rules[0].priority, RulePriority::kNormal);
  EXPECT_EQ(r.new_rules[0].source, RuleSource::kPostTurn);
  EXPECT_EQ(Rendered(), "");

  turn.tool_calls.push_back(turn.tool_calls[0]);
  TurnResult again = Complete(turn);
  EXPECT_TRUE(again.new_rules.empty());
  ASSERT_EQ(again.refreshed_rules.size(), 1u);
  EXPECT_EQ(again.refreshed_rules[0].id, r.new_rules[0].id);
  EXPECT_TRUE(Contains(again.refreshed_rules[0].rule, "failed 3 times"));
}

TEST_F(EngineRules, CaptureSwitchedOffInConfigStillCountsStatistics) {
  Config off;
  off.learning.tool_memory_capture_enabled = false;
  Reopen(off);
  Turn turn = SarahTurn();
  turn.tool_calls.push_back(ToolCall{.name = "shell", .success = false, .output = "timed out"});
  turn.tool_calls.push_back(ToolCall{.name = "shell", .success = false, .output = "timed out"});
  TurnResult r = Complete(turn);
  EXPECT_FALSE(r.rules_captured);
  EXPECT_TRUE(r.new_rules.empty());
  EXPECT_TRUE(r.refreshed_rules.empty());
  EXPECT_TRUE(ListAll().empty());
  EXPECT_EQ(Rendered(), "");

  const std::string shell = StatsOf("shell");
  EXPECT_TRUE(Contains(shell, "\"total_calls\":2")) << shell;
  EXPECT_TRUE(Contains(shell, "\"failures\":2")) << shell;
  EXPECT_TRUE(Contains(StatsOf("send_email"), "\"successes\":1")) << StatsOf("send_email");
}

TEST_F(EngineRules, CaptureFollowsTheEnvironmentVariable) {
  constexpr char kVar[] = "MNEMO_LEARNING_TOOL_MEMORY_CAPTURE_ENABLED";
  Result<Config> off = LoadConfig({.env = {{kVar, "0"}}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_FALSE(off->learning.tool_memory_capture_enabled);
  Reopen(*off);
  TurnResult r = Complete(SarahTurn());
  EXPECT_FALSE(r.rules_captured);
  EXPECT_TRUE(ListAll().empty());
  EXPECT_TRUE(Contains(StatsOf("send_email"), "\"total_calls\":1"));

  // =1 wins over a file that switches capture off.
  const std::string file = dir_.Sub("mnemo.toml");
  { std::ofstream(file) << "[learning]\ntool_memory_capture_enabled = false\n"; }
  Result<Config> from_file = LoadConfig({.file = file});
  ASSERT_TRUE(from_file.ok()) << from_file.status().ToString();
  EXPECT_FALSE(from_file->learning.tool_memory_capture_enabled);
  Result<Config> on = LoadConfig({.file = file, .env = {{kVar, "1"}}});
  ASSERT_TRUE(on.ok()) << on.status().ToString();
  EXPECT_TRUE(on->learning.tool_memory_capture_enabled);
  Reopen(*on);
  r = Complete(SarahTurn());
  EXPECT_TRUE(r.rules_captured);
  EXPECT_EQ(r.new_rules.size(), 1u);

  Result<Config> bad = LoadConfig({.env = {{kVar, "maybe"}}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Contains(bad.status().message(), kVar)) << bad.status().message();
  EXPECT_TRUE(Contains(bad.status().message(), "maybe")) << bad.status().message();
}

TEST_F(EngineRules, NormalRulesAreRecalledInTheirNamespaceOnly) {
  ToolRule rule = PutRule({.tool_name = "shell", .rule = "Prefer ripgrep over grep for code."});
  ASSERT_TRUE(
      engine_->memory().Store(me_, {.key = "tip", .content = "ripgrep is installed here"}).ok());

  Result<RecallResponse> recall =
      engine_->memory().Recall(me_, {.query = "ripgrep grep", .ns = "tool-shell"});
  ASSERT_TRUE(recall.ok()) << recall.status().ToString();
  ASSERT_FALSE(recall->results.empty());
  const RecallHit& hit = recall->results[0];
  EXPECT_EQ(hit.source, "tool_rule");
  EXPECT_EQ(hit.ns, "tool-shell");
  EXPECT_EQ(hit.key, "rule/" + rule.id);
  EXPECT_EQ(hit.content, rule.rule);

  Result<SearchResponse> search = engine_->memory().Search(me_, {.query = "ripgrep"});
  ASSERT_TRUE(search.ok()) << search.status().ToString();
  ASSERT_EQ(search->results.size(), 1u);
  EXPECT_EQ(search->results[0].key, "tip");
  EXPECT_EQ(search->results[0].ns, "global");

  // A plain entry's recall hit says so.
  Result<RecallResponse> plain = engine_->memory().Recall(me_, {.query = "ripgrep installed"});
  ASSERT_TRUE(plain.ok());
  ASSERT_FALSE(plain->results.empty());
  EXPECT_EQ(plain->results[0].source, "entry");
}

TEST_F(EngineRules, PromptForSomeToolsKeepsUnscopedRules) {
  PutRule({.tool_name = "send_email", .rule = kSarah, .priority = RulePriority::kCritical});
  PutRule({.tool_name = "shell",
           .rule = "Don't run shell commands with sudo.",
           .priority = RulePriority::kCritical});
  PutRule({.tool_name = "shell", .rule = "Prefer rg over grep.", .priority = RulePriority::kHigh});
  PutRule({.tool_name = "shell", .rule = "Quote paths."});  // normal: never pinned
  PutRule(
      {.tool_name = "*", .rule = "Ask before spending money.", .priority = RulePriority::kHigh});

  Result<PromptRules> some = engine_->rules().ForPrompt(me_, {" Shell "});
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  EXPECT_EQ(some->rules.size(), 3u);
  EXPECT_FALSE(Contains(some->rendered, "send_email")) << some->rendered;
  EXPECT_FALSE(Contains(some->rendered, "Quote paths")) << some->rendered;
  EXPECT_TRUE(Contains(some->rendered,
                       "### `shell`\n- **[critical]** Don't run shell commands with sudo.\n- "
                       "**[high]** Prefer rg over grep.\n\n### `*` (any tool)\n- **[high]** Ask "
                       "before spending money.\n"))
      << some->rendered;

  const std::string all = Rendered();
  EXPECT_TRUE(Contains(all, "### `send_email`")) << all;
  EXPECT_LT(all.find("### `send_email`"), all.find("### `shell`"));
  EXPECT_LT(all.find("### `shell`"), all.find("### `*` (any tool)"));

  EXPECT_EQ(engine_->rules().ForPrompt(me_, {"ok", "bad name"}).status().field(), "tools[1]");
}

TEST_F(EngineRules, PromptCapLimitsHighRulesNotCriticalOnes) {
  Config capped;
  capped.rules.prompt_cap = 2;
  Reopen(capped);
  PutRule({.tool_name = "shell", .rule = "High one.", .priority = RulePriority::kHigh});
  PutRule({.tool_name = "shell", .rule = "High two.", .priority = RulePriority::kHigh});
  PutRule({.tool_name = "shell", .rule = "High three.", .priority = RulePriority::kHigh});
  PutRule({.tool_name = "shell", .rule = "Critical one.", .priority = RulePriority::kCritical});
  PutRule({.tool_name = "browser", .rule = "Critical two.", .priority = RulePriority::kCritical});
  PutRule({.tool_name = "browser", .rule = "Critical three.", .priority = RulePriority::kCritical});

  Result<PromptRules> p = engine_->rules().ForPrompt(me_, {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(Count(p->rendered, "**[high]**"), 2u) << p->rendered;
  EXPECT_EQ(Count(p->rendered, "**[critical]**"), 3u) << p->rendered;
  EXPECT_FALSE(Contains(p->rendered, "High one.")) << p->rendered;  // the oldest high rule
  EXPECT_TRUE(Contains(p->rendered, "High two."));
  EXPECT_TRUE(Contains(p->rendered, "High three."));
  EXPECT_EQ(p->rules.size(), 5u);
}

TEST_F(EngineRules, UnderAclRulesArePerPrincipal) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  const Principal alice{"alice", Role::kUser};
  const Principal bob{"bob", Role::kUser};

  TurnResult r = Complete(SarahTurn(), alice);
  ASSERT_EQ(r.new_rules.size(), 1u);
  EXPECT_EQ(r.new_rules[0].owner, "alice");
  const std::string id = r.new_rules[0].id;

  EXPECT_EQ(ListAll(alice).size(), 1u);
  EXPECT_TRUE(ListAll(bob).empty());
  Result<std::vector<ToolRule>> bob_list = engine_->rules().List(bob, "send_email");
  ASSERT_TRUE(bob_list.ok());
  EXPECT_TRUE(bob_list->empty());
  EXPECT_EQ(Rendered({}, bob), "");
  Result<std::optional<ToolRule>> bob_get = engine_->rules().Get(bob, "send_email", id);
  ASSERT_TRUE(bob_get.ok());
  EXPECT_FALSE(bob_get->has_value());
  Result<bool> bob_delete = engine_->rules().Delete(bob, "send_email", id);
  ASSERT_TRUE(bob_delete.ok());
  EXPECT_FALSE(*bob_delete);

  const std::string block = Rendered({}, alice);
  EXPECT_TRUE(Contains(block,
                       "### `send_email`\n- **[critical]** Never email Sarah at "
                       "sarah@example.com.\n"))
      << block;
  EXPECT_TRUE(Contains(block, "memory_search")) << block;
  EXPECT_FALSE(Contains(block, "memory_recall")) << block;

  // Bob's own identical edict is his own rule, not a refresh of alice's.
  TurnResult bobs = Complete(SarahTurn(), bob);
  ASSERT_EQ(bobs.new_rules.size(), 1u);
  EXPECT_EQ(bobs.new_rules[0].owner, "bob");
  EXPECT_NE(bobs.new_rules[0].id, id);
  EXPECT_EQ(ListAll(alice).size(), 1u);
  EXPECT_EQ(ListAll(bob).size(), 1u);
}

TEST_F(EngineRules, TurnCompleteValidatesTheTurn) {
  Turn blank = SarahTurn();
  blank.session_id = "  ";
  Result<TurnResult> r = engine_->archivist().TurnComplete(me_, blank);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "session_id");

  Turn spaced = SarahTurn();
  spaced.tool_calls[0].name = "send email";
  r = engine_->archivist().TurnComplete(me_, spaced);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "tool_calls[0].name");

  Turn second = SarahTurn();
  second.tool_calls.push_back(ToolCall{.name = ""});
  r = engine_->archivist().TurnComplete(me_, second);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "tool_calls[1].name");

  // "*" is the unscoped rules' name, not a tool that can run.
  Turn star = SarahTurn();
  star.tool_calls[0].name = " * ";
  r = engine_->archivist().TurnComplete(me_, star);
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "tool_calls[0].name");

  Turn negative = SarahTurn();
  negative.tool_calls[0].duration_ms = -1;
  r = engine_->archivist().TurnComplete(me_, negative);
  EXPECT_EQ(r.status().field(), "tool_calls[0].duration_ms");

  Turn broken = SarahTurn();
  broken.user_message = "Never \xFF email.";
  r = engine_->archivist().TurnComplete(me_, broken);
  EXPECT_EQ(r.status().field(), "user_message");

  // Nothing was captured or counted by the rejected turns.
  EXPECT_TRUE(ListAll().empty());
  EXPECT_EQ(StatsOf("send_email"), "");
}

// The wire's 1 MiB limit of a turn's texts holds for C++ callers too: the
// service checks it, naming the field and the limit of mnemo/limits.h.
TEST_F(EngineRules, TurnCompleteRefusesTextsOverTheContentLimit) {
  const std::string limit = std::to_string(kMaxContentBytes);
  const std::string oversize(kMaxContentBytes + 1, 'a');

  Turn big = SarahTurn();
  big.user_message = oversize;
  Result<TurnResult> r = engine_->archivist().TurnComplete(me_, big);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().field(), "user_message");
  EXPECT_NE(r.status().message().find("user_message"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("at most " + limit + " bytes"), std::string::npos)
      << r.status().message();

  Turn answer = SarahTurn();
  answer.assistant_response = oversize;
  r = engine_->archivist().TurnComplete(me_, answer);
  EXPECT_EQ(r.status().field(), "assistant_response");

  Turn output = SarahTurn();
  output.tool_calls[0].output = oversize;
  r = engine_->archivist().TurnComplete(me_, output);
  EXPECT_EQ(r.status().field(), "tool_calls[0].output");

  Turn clean = SarahTurn();
  clean.tool_calls[0].clean_output = oversize;
  r = engine_->archivist().TurnComplete(me_, clean);
  EXPECT_EQ(r.status().field(), "tool_calls[0].clean_output");

  // The agent's id is a key: at most kMaxKeyBytes.
  Turn agent = SarahTurn();
  agent.agent_id = std::string(kMaxKeyBytes + 1, 'a');
  r = engine_->archivist().TurnComplete(me_, agent);
  EXPECT_EQ(r.status().field(), "agent_id");

  // At the limit the turn is stored.
  Turn full = SarahTurn();
  full.user_message = std::string(kMaxContentBytes, 'a');
  EXPECT_TRUE(engine_->archivist().TurnComplete(me_, full).ok());
}

}  // namespace
}  // namespace mnemo

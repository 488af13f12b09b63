#include "rules/tool_rule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo::rules {
namespace {

bool Contains(const std::string& haystack, std::string_view needle) {
  return haystack.find(needle) != std::string::npos;
}

// The entry a backend would store for `w` (what RuleFromEntry reads back).
Entry EntryOf(const storage::EntryWrite& w) {
  Entry e;
  e.id = w.id.value_or("");
  e.owner = w.owner;
  e.ns = w.ns;
  e.key = w.key;
  e.content = w.content;
  e.category = w.category;
  e.tags = w.tags.value_or(std::vector<std::string>{});
  e.created_at = w.now - 5000;
  e.updated_at = w.now;
  return e;
}

TEST(ToolName, NormalizeTrimsAndLowerCases) {
  EXPECT_EQ(NormalizeToolName("  Send_Email "), "send_email");
  EXPECT_EQ(NormalizeToolName("\tSHELL\n"), "shell");
  EXPECT_EQ(NormalizeToolName("*"), "*");
  EXPECT_EQ(NormalizeToolName("   "), "");
}

TEST(ToolName, BlankIsRejectedNamingTheField) {
  Status s = ValidateToolName(NormalizeToolName("   "));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.field(), "tool_name");
  EXPECT_TRUE(Contains(s.message(), "blank")) << s.message();
  EXPECT_TRUE(Contains(s.message(), "tool_name")) << s.message();

  Status other = ValidateToolName("", "tools[2]");
  EXPECT_EQ(other.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(other.field(), "tools[2]");
}

TEST(ToolName, BadCharactersAreRejectedNamingTheField) {
  for (const std::string& bad :
       {std::string("send email"), std::string("send`email"), std::string("send\nemail"),
        std::string("Send_Email"), std::string("ema\xC3\xAFl"), std::string(121, 'a')}) {
    Status s = ValidateToolName(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.field(), "tool_name") << bad;
    EXPECT_TRUE(Contains(s.message(), "tool_name")) << s.message();
    EXPECT_TRUE(Contains(s.message(), "invalid")) << s.message();
  }
}

TEST(ToolName, WildcardAndOrdinaryNamesAreAccepted) {
  EXPECT_TRUE(ValidateToolName("*").ok());
  EXPECT_TRUE(ValidateToolName("send_email").ok());
  EXPECT_TRUE(ValidateToolName("mcp:github/create-issue.v2").ok());
  EXPECT_TRUE(ValidateToolName(std::string(120, 'a')).ok());
  // "*" is the whole name, not a wildcard character.
  EXPECT_FALSE(ValidateToolName("send_*").ok());
  EXPECT_FALSE(ValidateToolName("**").ok());
}

TEST(ToolName, NamespaceMapping) {
  EXPECT_EQ(RuleNamespace("send_email"), "tool-send_email");
  EXPECT_EQ(RuleNamespace("*"), "tool-*");
  EXPECT_EQ(RuleKey("abc"), "rule/abc");
  EXPECT_EQ(ToolOfNamespace("tool-send_email"), std::optional<std::string>("send_email"));
  EXPECT_EQ(ToolOfNamespace("tool-*"), std::optional<std::string>("*"));
  EXPECT_EQ(ToolOfNamespace("tool-"), std::nullopt);
  EXPECT_EQ(ToolOfNamespace("tool_effectiveness"), std::nullopt);
  EXPECT_EQ(ToolOfNamespace("global"), std::nullopt);
}

TEST(RuleNames, PrioritiesAndSourcesParseBack) {
  for (RulePriority p : {RulePriority::kCritical, RulePriority::kHigh, RulePriority::kNormal}) {
    Result<RulePriority> parsed = ParsePriority(PriorityName(p));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, p);
  }
  for (RuleSource s :
       {RuleSource::kUserExplicit, RuleSource::kPostTurn, RuleSource::kProgrammatic}) {
    Result<RuleSource> parsed = ParseSource(SourceName(s));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_EQ(PriorityName(RulePriority::kCritical), "critical");
  EXPECT_EQ(SourceName(RuleSource::kUserExplicit), "user_explicit");
  EXPECT_EQ(SourceName(RuleSource::kPostTurn), "post_turn");

  Result<RulePriority> bad = ParsePriority("urgent");
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().field(), "priority");
  EXPECT_TRUE(Contains(bad.status().message(), "critical, high, normal"));
  Result<RuleSource> bad_source = ParseSource("Post_Turn", "params.source");
  EXPECT_EQ(bad_source.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad_source.status().field(), "params.source");
}

TEST(NormalizedBody, CaseWhitespaceAndTrailingPeriodDoNotMatter) {
  const std::string a = NormalizedBody("Never email Sarah.");
  EXPECT_EQ(a, NormalizedBody("  never   EMAIL\nsarah "));
  EXPECT_EQ(a, NormalizedBody("Never email Sarah!"));
  EXPECT_EQ(a, NormalizedBody("NEVER EMAIL SARAH . "));
  EXPECT_EQ(NormalizedBody("别用 sudo。"), NormalizedBody("别用 sudo"));
}

TEST(NormalizedBody, DifferentWordsDiffer) {
  EXPECT_NE(NormalizedBody("Never email Sarah."), NormalizedBody("Never email Bob."));
  EXPECT_NE(NormalizedBody("Never email Sarah."), NormalizedBody("Never email Sarah twice."));
  EXPECT_NE(NormalizedBody("Prefer rg over grep"), NormalizedBody("Prefer grep over rg"));
}

TEST(RuleEntry, RoundTripThroughAnEntry) {
  ToolRule rule{.id = "1b4e28ba-2fa1-4d2b-883f-0016d3cca427",
                .tool_name = "send_email",
                .rule = "Never email Sarah at sarah@example.com.",
                .priority = RulePriority::kCritical,
                .source = RuleSource::kUserExplicit,
                .tags = {"safety", "user-edict"},
                .owner = "alice"};
  storage::EntryWrite w = RuleToWrite(rule, 1795946400000);
  EXPECT_EQ(w.owner, "alice");
  EXPECT_EQ(w.ns, "tool-send_email");
  EXPECT_EQ(w.key, "rule/1b4e28ba-2fa1-4d2b-883f-0016d3cca427");
  EXPECT_EQ(w.content, rule.rule);
  EXPECT_EQ(w.category, "critical");
  EXPECT_EQ(w.now, 1795946400000);
  // The rule id lives in the key; the entry keeps its own id.
  EXPECT_EQ(w.id, std::nullopt);
  ASSERT_TRUE(w.tags.has_value());
  EXPECT_NE(std::find(w.tags->begin(), w.tags->end(), "source:user_explicit"), w.tags->end());

  std::optional<ToolRule> back = RuleFromEntry(EntryOf(w));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->id, rule.id);
  EXPECT_EQ(back->tool_name, "send_email");
  EXPECT_EQ(back->rule, rule.rule);
  EXPECT_EQ(back->priority, RulePriority::kCritical);
  EXPECT_EQ(back->source, RuleSource::kUserExplicit);
  EXPECT_EQ(back->tags, (std::vector<std::string>{"safety", "user-edict"}));
  EXPECT_EQ(back->owner, "alice");
  EXPECT_EQ(back->created_at, 1795946400000 - 5000);
  EXPECT_EQ(back->updated_at, 1795946400000);
}

TEST(RuleEntry, EveryPriorityAndSourceSurvives) {
  for (RulePriority p : {RulePriority::kCritical, RulePriority::kHigh, RulePriority::kNormal}) {
    for (RuleSource s :
         {RuleSource::kUserExplicit, RuleSource::kPostTurn, RuleSource::kProgrammatic}) {
      ToolRule rule{.id = "r1", .tool_name = "*", .rule = "x", .priority = p, .source = s};
      storage::EntryWrite w = RuleToWrite(rule, 10);
      EXPECT_EQ(w.ns, "tool-*");
      EXPECT_EQ(w.category, PriorityName(p));
      std::optional<ToolRule> back = RuleFromEntry(EntryOf(w));
      ASSERT_TRUE(back.has_value());
      EXPECT_EQ(back->tool_name, "*");
      EXPECT_EQ(back->priority, p);
      EXPECT_EQ(back->source, s);
      EXPECT_TRUE(back->tags.empty());
    }
  }
}

TEST(RuleEntry, NonRuleEntriesAreNotRules) {
  Entry plain;
  plain.ns = "global";
  plain.key = "rule/abc";
  EXPECT_EQ(RuleFromEntry(plain), std::nullopt);

  Entry note;
  note.ns = "tool-shell";
  note.key = "note";
  EXPECT_EQ(RuleFromEntry(note), std::nullopt);

  Entry no_id;
  no_id.ns = "tool-shell";
  no_id.key = "rule/";
  EXPECT_EQ(RuleFromEntry(no_id), std::nullopt);

  Entry no_tool;
  no_tool.ns = "tool-";
  no_tool.key = "rule/abc";
  EXPECT_EQ(RuleFromEntry(no_tool), std::nullopt);

  Entry stats;
  stats.ns = "tool_effectiveness";
  stats.key = "tool/shell";
  EXPECT_EQ(RuleFromEntry(stats), std::nullopt);

  Entry rule;
  rule.ns = "tool-shell";
  rule.key = "rule/abc";
  rule.category = "high";
  rule.tags = {"source:programmatic"};
  std::optional<ToolRule> r = RuleFromEntry(rule);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->id, "abc");
  EXPECT_EQ(r->priority, RulePriority::kHigh);

  // What RuleToWrite never writes is not a rule (no forged prompt lines).
  Entry no_source = rule;
  no_source.tags = {"safety"};
  EXPECT_EQ(RuleFromEntry(no_source), std::nullopt);
  Entry bad_priority = rule;
  bad_priority.category = "core";
  EXPECT_EQ(RuleFromEntry(bad_priority), std::nullopt);
  Entry bad_tool = rule;
  bad_tool.ns = "tool-Shell";
  EXPECT_EQ(RuleFromEntry(bad_tool), std::nullopt);
}

}  // namespace
}  // namespace mnemo::rules

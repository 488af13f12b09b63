#include "rules/rule_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <iterator>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "rules/tool_rule.h"
#include "storage/backend_factory.h"
#include "storage/temp_dir.h"

namespace mnemo::rules {
namespace {

constexpr TimeMs kStart = 1795946400000;

// A manual clock; with a step it also moves on by itself at every reading.
class FakeClock final : public Clock {
 public:
  TimeMs NowMs() const override { return now_.fetch_add(step_.load()); }
  void Advance(TimeMs ms) { now_ += ms; }
  void SetStep(TimeMs step) { step_ = step; }
  TimeMs Peek() const { return now_.load(); }

 private:
  mutable std::atomic<TimeMs> now_{kStart};
  std::atomic<TimeMs> step_{0};
};

bool IsUuidV4(const std::string& s) {
  static const std::regex kUuid(
      "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$");
  return std::regex_match(s, kUuid);
}

const storage::ReadScope kAll{.all = true, .principal = "local"};

class RuleStoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
    store_ = std::make_unique<RuleStore>(*stores_.entries, clock_);
  }

  RulePutOutcome Put(const ToolRulePut& put, const std::string& owner = "local") {
    Result<RulePutOutcome> r = store_->Put(owner, put);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : RulePutOutcome{};
  }

  std::vector<ToolRule> List(const std::string& tool) {
    Result<std::vector<ToolRule>> r = store_->List(kAll, tool);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<ToolRule>{};
  }

  static std::vector<std::string> Ids(const std::vector<ToolRule>& rules) {
    std::vector<std::string> ids;
    ids.reserve(rules.size());
    for (const ToolRule& r : rules) ids.push_back(r.id);
    return ids;
  }

  testing::TempDir dir_;
  FakeClock clock_;
  storage::Stores stores_;
  std::unique_ptr<RuleStore> store_;
};

TEST_P(RuleStoreTest, PutWithoutIdCreatesARuleWithAUuid) {
  RulePutOutcome o = Put({.tool_name = "send_email",
                          .rule = "Never email Sarah.",
                          .priority = RulePriority::kCritical,
                          .source = RuleSource::kUserExplicit,
                          .tags = {"safety"}});
  EXPECT_TRUE(o.created);
  EXPECT_FALSE(o.refreshed);
  EXPECT_TRUE(o.text_changed);
  EXPECT_GT(o.label, 0);
  EXPECT_TRUE(IsUuidV4(o.rule.id)) << o.rule.id;
  EXPECT_EQ(o.rule.tool_name, "send_email");
  EXPECT_EQ(o.rule.rule, "Never email Sarah.");
  EXPECT_EQ(o.rule.priority, RulePriority::kCritical);
  EXPECT_EQ(o.rule.source, RuleSource::kUserExplicit);
  EXPECT_EQ(o.rule.tags, std::vector<std::string>{"safety"});
  EXPECT_EQ(o.rule.owner, "local");
  EXPECT_EQ(o.rule.created_at, kStart);
  EXPECT_EQ(o.rule.updated_at, kStart);

  Result<std::optional<ToolRule>> got = store_->Get(kAll, "send_email", o.rule.id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_TRUE(got->has_value());
  EXPECT_EQ((*got)->rule, "Never email Sarah.");
  EXPECT_EQ((*got)->priority, RulePriority::kCritical);
  EXPECT_EQ((*got)->source, RuleSource::kUserExplicit);
  EXPECT_EQ((*got)->tags, std::vector<std::string>{"safety"});

  // The entry itself: namespace, key, id.
  Result<std::optional<Entry>> e = stores_.entries->FindExact(
      "local", TestNamespace("tool-send_email"), TestKey("rule/" + o.rule.id));
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE(e->has_value());
  EXPECT_FALSE((*e)->id.empty());
  EXPECT_EQ((*e)->content, o.rule.rule);
  EXPECT_EQ((*e)->category, "critical");
}

TEST_P(RuleStoreTest, TwoPutsWithoutIdGetDifferentIds) {
  RulePutOutcome a = Put({.tool_name = "shell", .rule = "Prefer rg over grep."});
  RulePutOutcome b = Put({.tool_name = "shell", .rule = "Never run sudo."});
  EXPECT_TRUE(a.created);
  EXPECT_TRUE(b.created);
  EXPECT_NE(a.rule.id, b.rule.id);
  EXPECT_EQ(a.rule.priority, RulePriority::kNormal);
  EXPECT_EQ(a.rule.source, RuleSource::kProgrammatic);
  EXPECT_EQ(List("shell").size(), 2u);
}

TEST_P(RuleStoreTest, PutWithANewIdCreatesThatId) {
  RulePutOutcome o = Put({.tool_name = "shell", .rule = "x", .id = "my-rule-1"});
  EXPECT_TRUE(o.created);
  EXPECT_EQ(o.rule.id, "my-rule-1");
}

// An id names one rule: it cannot be reused by another tool or owner.
// A rule is addressed by (owner, tool, id): the same id in another tool or of
// another owner is another rule, and neither learns of the other.
TEST_P(RuleStoreTest, AnIdIsScopedToItsToolAndOwner) {
  Put({.tool_name = "shell", .rule = "Never run sudo.", .id = "same-id"});
  Result<RulePutOutcome> tool =
      store_->Put("local", {.tool_name = "browser", .rule = "y", .id = "same-id"});
  ASSERT_TRUE(tool.ok()) << tool.status().ToString();
  EXPECT_TRUE(tool->created);
  Result<RulePutOutcome> owner =
      store_->Put("alice", {.tool_name = "shell", .rule = "z", .id = "same-id"});
  ASSERT_TRUE(owner.ok()) << owner.status().ToString();
  EXPECT_TRUE(owner->created);
  ASSERT_EQ(List("browser").size(), 1u);
  auto mine = store_->List(storage::ReadScope{.all = false, .principal = "local"}, "shell");
  ASSERT_TRUE(mine.ok());
  ASSERT_EQ(mine->size(), 1u);
  EXPECT_EQ((*mine)[0].rule, "Never run sudo.");
  EXPECT_EQ((*mine)[0].owner, "local");
}

TEST_P(RuleStoreTest, UpsertByIdKeepsCreatedAtAndReplacesTheRest) {
  RulePutOutcome first = Put({.tool_name = "shell",
                              .rule = "Prefer rg over grep.",
                              .priority = RulePriority::kNormal,
                              .source = RuleSource::kUserExplicit,
                              .tags = {"a", "b"}});
  clock_.Advance(60'000);
  RulePutOutcome second = Put({.tool_name = "shell",
                               .rule = "Prefer fd over find.",
                               .priority = RulePriority::kHigh,
                               .tags = {"c"},
                               .id = first.rule.id});
  EXPECT_FALSE(second.created);
  EXPECT_FALSE(second.refreshed);
  EXPECT_TRUE(second.text_changed);
  EXPECT_EQ(second.label, first.label);
  EXPECT_EQ(second.rule.id, first.rule.id);
  EXPECT_EQ(second.rule.rule, "Prefer fd over find.");
  EXPECT_EQ(second.rule.priority, RulePriority::kHigh);
  EXPECT_EQ(second.rule.tags, std::vector<std::string>{"c"});
  EXPECT_EQ(second.rule.source, RuleSource::kUserExplicit);  // absent: kept
  EXPECT_EQ(second.rule.created_at, kStart);
  EXPECT_EQ(second.rule.updated_at, kStart + 60'000);

  clock_.Advance(1000);
  // Absent priority and source are kept; an explicit source replaces.
  RulePutOutcome third = Put({.tool_name = "shell",
                              .rule = "Prefer fd over find.",
                              .source = RuleSource::kProgrammatic,
                              .id = first.rule.id});
  EXPECT_EQ(third.rule.priority, RulePriority::kHigh);
  EXPECT_EQ(third.rule.source, RuleSource::kProgrammatic);
  EXPECT_TRUE(third.rule.tags.empty());
  EXPECT_FALSE(third.text_changed);
  EXPECT_EQ(third.rule.updated_at, kStart + 61'000);

  std::vector<ToolRule> all = List("shell");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].created_at, kStart);
  EXPECT_EQ(all[0].updated_at, kStart + 61'000);
  EXPECT_EQ(all[0].rule, "Prefer fd over find.");
}

TEST_P(RuleStoreTest, SameBodyWithoutIdRefreshesInsteadOfDuplicating) {
  RulePutOutcome first =
      Put({.tool_name = "send_email", .rule = "Never email Sarah.", .tags = {"a", "shared"}});
  clock_.Advance(5000);
  RulePutOutcome again = Put({.tool_name = "send_email",
                              .rule = "  never   EMAIL\tsarah ",
                              .priority = RulePriority::kCritical,
                              .tags = {"shared", "b"}});
  EXPECT_FALSE(again.created);
  EXPECT_TRUE(again.refreshed);
  EXPECT_EQ(again.rule.id, first.rule.id);
  EXPECT_EQ(again.rule.priority, RulePriority::kCritical);  // normal + critical
  EXPECT_EQ(again.rule.tags, (std::vector<std::string>{"a", "shared", "b"}));
  EXPECT_EQ(again.rule.created_at, kStart);
  EXPECT_EQ(again.rule.updated_at, kStart + 5000);

  clock_.Advance(5000);
  RulePutOutcome lower = Put(
      {.tool_name = "send_email", .rule = "Never email Sarah", .priority = RulePriority::kNormal});
  EXPECT_TRUE(lower.refreshed);
  EXPECT_EQ(lower.rule.priority, RulePriority::kCritical);  // critical + normal stays
  EXPECT_EQ(lower.rule.updated_at, kStart + 10'000);

  std::vector<ToolRule> all = List("send_email");
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].id, first.rule.id);
  EXPECT_EQ(all[0].priority, RulePriority::kCritical);
  EXPECT_EQ(all[0].tags, (std::vector<std::string>{"a", "shared", "b"}));
}

// The no-duplicate check reads only the rules of the body's fingerprint and
// those stored without one (before fingerprints, or by another write path).
TEST_P(RuleStoreTest, SameBodyFindsRulesStoredWithoutAFingerprintAndAfterAnEdit) {
  storage::EntryWrite legacy = RuleToWrite({.id = "7b2a4c1e-0f3d-4a5b-9c6d-1e2f3a4b5c6d",
                                            .tool_name = "send_email",
                                            .rule = "Never email Sarah.",
                                            .source = RuleSource::kUserExplicit,
                                            .owner = "local"},
                                           kStart);
  legacy.fingerprint.reset();
  ASSERT_TRUE(stores_.entries->Upsert(legacy).ok());
  RulePutOutcome again = Put({.tool_name = "send_email", .rule = "never email sarah"});
  EXPECT_TRUE(again.refreshed);
  EXPECT_EQ(again.rule.id, "7b2a4c1e-0f3d-4a5b-9c6d-1e2f3a4b5c6d");

  // An edit by id moves the rule to its new body's fingerprint.
  RulePutOutcome edited = Put(
      {.tool_name = "send_email", .rule = "Never email Sarah after 6 pm.", .id = again.rule.id});
  EXPECT_FALSE(edited.created);
  RulePutOutcome same_as_edit =
      Put({.tool_name = "send_email", .rule = "never email sarah after 6 PM"});
  EXPECT_TRUE(same_as_edit.refreshed);
  EXPECT_EQ(same_as_edit.rule.id, again.rule.id);
  RulePutOutcome old_body = Put({.tool_name = "send_email", .rule = "Never email Sarah."});
  EXPECT_TRUE(old_body.created);
  EXPECT_EQ(List("send_email").size(), 2u);
}

TEST_P(RuleStoreTest, SameBodyInAnotherToolOrOwnerIsAnotherRule) {
  RulePutOutcome a = Put({.tool_name = "send_email", .rule = "Never email Sarah."});
  RulePutOutcome b = Put({.tool_name = "slack_dm", .rule = "Never email Sarah."});
  RulePutOutcome c = Put({.tool_name = "send_email", .rule = "Never email Sarah."}, "alice");
  RulePutOutcome d = Put({.tool_name = "send_email", .rule = "Never email Bob."});
  EXPECT_TRUE(a.created);
  EXPECT_TRUE(b.created);
  EXPECT_TRUE(c.created);
  EXPECT_TRUE(d.created);
  EXPECT_EQ(List("send_email").size(), 3u);  // two of local, one of alice
  Result<std::vector<ToolRule>> alice =
      store_->List({.all = false, .principal = "alice"}, "send_email");
  ASSERT_TRUE(alice.ok());
  ASSERT_EQ(alice->size(), 1u);
  EXPECT_EQ((*alice)[0].owner, "alice");
}

TEST_P(RuleStoreTest, ListOrderIsPriorityThenMostRecentThenId) {
  Put({.tool_name = "shell", .rule = "normal old", .id = "n-old"});
  clock_.Advance(1000);
  Put({.tool_name = "shell", .rule = "high old", .priority = RulePriority::kHigh, .id = "h-old"});
  clock_.Advance(1000);
  Put({.tool_name = "shell", .rule = "critical", .priority = RulePriority::kCritical, .id = "c"});
  clock_.Advance(1000);
  Put({.tool_name = "shell", .rule = "high new", .priority = RulePriority::kHigh, .id = "h-new"});
  // Two at the same instant: id ascending.
  Put({.tool_name = "shell", .rule = "normal b", .id = "n-b"});
  Put({.tool_name = "shell", .rule = "normal a", .id = "n-a"});
  EXPECT_EQ(Ids(List("shell")),
            (std::vector<std::string>{"c", "h-new", "h-old", "n-a", "n-b", "n-old"}));

  // Refreshing the old normal rule makes it the most recent normal one.
  clock_.Advance(1000);
  Put({.tool_name = "shell", .rule = "Normal Old."});
  EXPECT_EQ(Ids(List("shell")),
            (std::vector<std::string>{"c", "h-new", "h-old", "n-old", "n-a", "n-b"}));
}

TEST_P(RuleStoreTest, DeleteReportsWhetherItExisted) {
  RulePutOutcome o = Put({.tool_name = "shell", .rule = "Never run sudo."});
  Put({.tool_name = "shell", .rule = "Prefer rg."});

  Result<bool> wrong_tool = store_->Delete("local", false, "browser", o.rule.id);
  ASSERT_TRUE(wrong_tool.ok());
  EXPECT_FALSE(*wrong_tool);

  Result<bool> first = store_->Delete("local", false, "shell", o.rule.id);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(*first);
  Result<bool> second = store_->Delete("local", false, "shell", o.rule.id);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(*second);

  Result<std::optional<ToolRule>> got = store_->Get(kAll, "shell", o.rule.id);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  std::vector<ToolRule> left = List("shell");
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].rule, "Prefer rg.");
}

TEST_P(RuleStoreTest, DeleteOfAnotherOwnersRuleNeedsAnyOwner) {
  RulePutOutcome o = Put({.tool_name = "shell", .rule = "Never run sudo."}, "alice");
  Result<bool> bob = store_->Delete("bob", false, "shell", o.rule.id);
  ASSERT_TRUE(bob.ok());
  EXPECT_FALSE(*bob);
  EXPECT_EQ(List("shell").size(), 1u);
  Result<bool> admin = store_->Delete("admin", true, "shell", o.rule.id);
  ASSERT_TRUE(admin.ok());
  EXPECT_TRUE(*admin);
  EXPECT_TRUE(List("shell").empty());
}

TEST_P(RuleStoreTest, GetOfAMissingRuleIsNullopt) {
  Put({.tool_name = "shell", .rule = "Never run sudo.", .id = "present"});
  Result<std::optional<ToolRule>> missing = store_->Get(kAll, "shell", "absent");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  Result<std::optional<ToolRule>> other_tool = store_->Get(kAll, "browser", "present");
  ASSERT_TRUE(other_tool.ok());
  EXPECT_FALSE(other_tool->has_value());
  Result<std::optional<ToolRule>> present = store_->Get(kAll, "shell", "present");
  ASSERT_TRUE(present.ok());
  EXPECT_TRUE(present->has_value());
}

TEST_P(RuleStoreTest, GetRespectsTheScope) {
  RulePutOutcome o = Put({.tool_name = "shell", .rule = "Never run sudo."}, "alice");
  Result<std::optional<ToolRule>> bob =
      store_->Get({.all = false, .principal = "bob"}, "shell", o.rule.id);
  ASSERT_TRUE(bob.ok());
  EXPECT_FALSE(bob->has_value());
  Result<std::optional<ToolRule>> alice =
      store_->Get({.all = false, .principal = "alice"}, "shell", o.rule.id);
  ASSERT_TRUE(alice.ok());
  ASSERT_TRUE(alice->has_value());
  EXPECT_EQ((*alice)->owner, "alice");
}

TEST_P(RuleStoreTest, ListAllGroupsByToolInListOrder) {
  Put({.tool_name = "shell", .rule = "shell normal", .id = "s-n"});
  Put({.tool_name = "*", .rule = "any high", .priority = RulePriority::kHigh, .id = "a-h"});
  clock_.Advance(1000);
  Put({.tool_name = "send_email",
       .rule = "mail high",
       .priority = RulePriority::kHigh,
       .id = "m-h"});
  Put({.tool_name = "shell",
       .rule = "shell critical",
       .priority = RulePriority::kCritical,
       .id = "s-c"});
  clock_.Advance(1000);
  Put({.tool_name = "send_email",
       .rule = "mail critical",
       .priority = RulePriority::kCritical,
       .id = "m-c"});
  Put({.tool_name = "shell", .rule = "shell high", .priority = RulePriority::kHigh, .id = "s-h"});
  // Neither statistics nor stray entries of a rule namespace are rules.
  ASSERT_TRUE(stores_.entries
                  ->Upsert({.ns = std::string(kStatsNamespace),
                            .key = "tool/shell",
                            .content = "{}",
                            .now = kStart})
                  .ok());
  ASSERT_TRUE(
      stores_.entries->Upsert({.ns = "tool-shell", .key = "note", .content = "x", .now = kStart})
          .ok());
  ASSERT_TRUE(
      stores_.entries->Upsert({.ns = "global", .key = "rule/zzz", .content = "x", .now = kStart})
          .ok());

  Result<std::vector<ToolRule>> all = store_->ListAll(kAll);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(Ids(*all), (std::vector<std::string>{"a-h", "m-c", "m-h", "s-c", "s-h", "s-n"}));

  Result<std::vector<ToolRule>> high = store_->ListAll(kAll, RulePriority::kHigh);
  ASSERT_TRUE(high.ok());
  EXPECT_EQ(Ids(*high), (std::vector<std::string>{"a-h", "m-c", "m-h", "s-c", "s-h"}));
  Result<std::vector<ToolRule>> critical = store_->ListAll(kAll, RulePriority::kCritical);
  ASSERT_TRUE(critical.ok());
  EXPECT_EQ(Ids(*critical), (std::vector<std::string>{"m-c", "s-c"}));
}

TEST_P(RuleStoreTest, ListAllRespectsTheScope) {
  Put({.tool_name = "shell", .rule = "alice rule", .id = "a1"}, "alice");
  Put({.tool_name = "shell", .rule = "bob rule", .id = "b1"}, "bob");
  Result<std::vector<ToolRule>> bob = store_->ListAll({.all = false, .principal = "bob"});
  ASSERT_TRUE(bob.ok());
  EXPECT_EQ(Ids(*bob), std::vector<std::string>{"b1"});
  Result<std::vector<ToolRule>> all = store_->ListAll(kAll);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
}

TEST_P(RuleStoreTest, FailureRuleIsOnePerToolAndItsBodyIsReplaced) {
  RulePutOutcome user = Put({.tool_name = "shell", .rule = "Never run sudo."});
  Result<RulePutOutcome> first = store_->PutFailureRule("local", "shell", "failed 2 times");
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->created);
  EXPECT_FALSE(first->refreshed);
  EXPECT_TRUE(IsUuidV4(first->rule.id));
  EXPECT_EQ(first->rule.priority, RulePriority::kNormal);
  EXPECT_EQ(first->rule.source, RuleSource::kPostTurn);
  EXPECT_EQ(first->rule.tags, std::vector<std::string>{"repeated-failure"});

  clock_.Advance(1000);
  Result<RulePutOutcome> second = store_->PutFailureRule("local", "shell", "failed 3 times");
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->created);
  EXPECT_TRUE(second->refreshed);
  EXPECT_TRUE(second->text_changed);
  EXPECT_EQ(second->rule.id, first->rule.id);
  EXPECT_EQ(second->rule.rule, "failed 3 times");
  EXPECT_EQ(second->rule.created_at, kStart);
  EXPECT_EQ(second->rule.updated_at, kStart + 1000);

  std::vector<ToolRule> all = List("shell");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].rule, "failed 3 times");  // the more recent normal rule
  EXPECT_EQ(all[1].id, user.rule.id);
  EXPECT_EQ(all[1].rule, "Never run sudo.");

  // Another tool gets its own.
  Result<RulePutOutcome> other = store_->PutFailureRule("local", "browser", "failed 2 times");
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->created);
  EXPECT_NE(other->rule.id, first->rule.id);
}

TEST_P(RuleStoreTest, ConcurrentPutsNeitherDuplicateNorRegressCreatedAt) {
  constexpr int kThreads = 8;
  constexpr int kRounds = 50;
  clock_.SetStep(1);  // every reading is a new instant
  const TimeMs before = clock_.Peek();
  std::mutex mu;
  std::vector<RulePutOutcome> by_id;
  std::vector<RulePutOutcome> by_body;
  std::vector<std::string> errors;
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  std::latch start(kThreads);  // every thread races for the first put
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int i = 0; i < kRounds; ++i) {
        Result<RulePutOutcome> a =
            store_->Put("local", {.tool_name = "shell",
                                  .rule = "Upsert " + std::to_string(t) + "-" + std::to_string(i),
                                  .priority = RulePriority::kHigh,
                                  .id = "shared-id"});
        Result<RulePutOutcome> b =
            store_->Put("local", {.tool_name = "shell",
                                  .rule = i % 2 == 0 ? "Never run sudo." : "  NEVER run SUDO ",
                                  .tags = {"t" + std::to_string(t)}});
        std::lock_guard lock(mu);
        for (Result<RulePutOutcome>* r : {&a, &b}) {
          if (!r->ok()) errors.push_back(r->status().ToString());
        }
        if (a.ok()) by_id.push_back(*a);
        if (b.ok()) by_body.push_back(*b);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_TRUE(errors.empty()) << errors.front();

  std::vector<ToolRule> all = List("shell");
  ASSERT_EQ(all.size(), 2u);
  const ToolRule& upserted = all[0].id == "shared-id" ? all[0] : all[1];
  const ToolRule& refreshed = all[0].id == "shared-id" ? all[1] : all[0];
  ASSERT_EQ(upserted.id, "shared-id");

  for (const auto& [outcomes, stored] :
       {std::pair{&by_id, &upserted}, std::pair{&by_body, &refreshed}}) {
    ASSERT_EQ(outcomes->size(), static_cast<size_t>(kThreads * kRounds));
    int created = 0;
    TimeMs created_at = 0;
    for (const RulePutOutcome& o : *outcomes) {
      EXPECT_EQ(o.rule.id, stored->id);
      if (o.created) {
        ++created;
        created_at = o.rule.updated_at;  // the first put's time
      }
    }
    EXPECT_EQ(created, 1);
    EXPECT_GE(created_at, before);
    EXPECT_EQ(stored->created_at, created_at);
    for (const RulePutOutcome& o : *outcomes) EXPECT_EQ(o.rule.created_at, created_at);
  }
  // Every thread's tag was merged into the one refreshed rule.
  EXPECT_EQ(refreshed.tags.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(refreshed.priority, RulePriority::kNormal);
  EXPECT_EQ(upserted.priority, RulePriority::kHigh);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, RuleStoreTest,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

TEST(SortForList, OrderDoesNotDependOnInput) {
  auto rule = [](std::string id, RulePriority p, TimeMs updated, std::string owner = "local") {
    ToolRule r;
    r.id = std::move(id);
    r.priority = p;
    r.updated_at = updated;
    r.owner = std::move(owner);
    return r;
  };
  std::vector<ToolRule> rules = {
      rule("b", RulePriority::kNormal, 5),   rule("a", RulePriority::kNormal, 5),
      rule("z", RulePriority::kCritical, 1), rule("y", RulePriority::kHigh, 9),
      rule("x", RulePriority::kHigh, 10),    rule("a", RulePriority::kNormal, 5, "alice")};
  std::vector<std::vector<ToolRule>> inputs = {rules, {rules.rbegin(), rules.rend()}};
  for (std::vector<ToolRule>& in : inputs) {
    SortForList(in);
    std::vector<std::string> got;
    got.reserve(in.size());
    for (const ToolRule& r : in) got.push_back(r.id + "@" + r.owner);
    EXPECT_EQ(got, (std::vector<std::string>{"z@local", "x@local", "y@local", "a@alice", "a@local",
                                             "b@local"}));
  }
}

}  // namespace
}  // namespace mnemo::rules

// Hygiene through the Engine (spec 10), on both backends, with a clock the
// test moves: what is archived, deleted and kept; archived entries leave
// default search but stay readable; the start-up run when due; ACL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

constexpr TimeMs kDay = 24LL * 60 * 60 * 1000;

class HygieneTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Reopen(); }

  void Reopen(bool acl = false) {
    engine_.reset();
    Config config;
    config.memory.backend = GetParam();
    config.memory.acl_enabled = acl;
    config.embedding.provider = "none";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config, .clock = clock_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
    // The start-up run is queued on the background worker and reads the
    // clock when it runs: wait for it (a sync session end flushes that
    // worker) before a test moves the clock, or a slow machine runs it late.
    ASSERT_TRUE(engine_->archivist().SessionEnd(me_, "hygiene-test-barrier", /*sync=*/true).ok());
  }

  void Store(const std::string& key, const std::string& category,
             const std::string& ns = "global") {
    auto r = engine_->memory().Store(
        me_, {.key = key, .content = "pelican note " + key, .category = category, .ns = ns});
    ASSERT_TRUE(r.ok()) << key << ": " << r.status().ToString();
  }

  std::vector<std::string> Found(bool include_archived = false) {
    auto r =
        engine_->memory().Search(me_, {.query = "pelican", .include_archived = include_archived});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> keys;
    if (r.ok()) {
      for (const SearchHit& h : r->results) keys.push_back(h.key);
    }
    std::sort(keys.begin(), keys.end());
    return keys;
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_P(HygieneTest, ArchivesOldDailyAndCustomDeletesOldConversationKeepsTheRest) {
  Store("core-fact", "core");
  Store("daily-note", "daily");
  Store("custom-note", "project-note");
  Store("chat", "conversation");
  Store("useful-note", "daily");
  Store("useful-chat", "conversation");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(engine_->memory().MarkUseful(me_, {.key = "useful-note"}).ok());
    ASSERT_TRUE(engine_->memory().MarkUseful(me_, {.key = "useful-chat"}).ok());
  }
  ASSERT_TRUE(engine_->rules().Put(me_, {.tool_name = "shell", .rule = "Prefer rg."}).ok());

  // Within both limits (7 days for conversations, 30 for archiving): nothing.
  clock_->Advance(6 * kDay);
  auto early = engine_->admin().RunHygiene(me_);
  ASSERT_TRUE(early.ok()) << early.status().ToString();
  EXPECT_EQ(early->archived, 0);
  EXPECT_EQ(early->deleted, 0);

  clock_->Advance(2 * kDay);  // 8 days: conversations go
  auto week = engine_->admin().RunHygiene(me_);
  ASSERT_TRUE(week.ok());
  EXPECT_EQ(week->deleted, 1);
  EXPECT_EQ(week->archived, 0);
  EXPECT_EQ(week->exempt_useful, 1);  // useful-chat
  EXPECT_EQ(engine_->memory().Get(me_, {.key = "chat"}).status().code(), StatusCode::kNotFound);

  clock_->Advance(23 * kDay);  // 31 days: daily and custom are archived
  auto month = engine_->admin().RunHygiene(me_);
  ASSERT_TRUE(month.ok());
  EXPECT_EQ(month->archived, 2);
  EXPECT_EQ(month->deleted, 0);
  EXPECT_EQ(month->exempt_useful, 2);  // useful-note, useful-chat
  EXPECT_GE(month->scanned, 6);        // the rule and the statistics too
  EXPECT_EQ(month->ran_at, clock_->NowMs());

  // Archived: out of default search, in with include_archived, readable.
  EXPECT_THAT(Found(), ::testing::ElementsAre("core-fact", "useful-chat", "useful-note"));
  EXPECT_THAT(Found(true), ::testing::ElementsAre("core-fact", "custom-note", "daily-note",
                                                  "useful-chat", "useful-note"));
  auto daily = engine_->memory().Get(me_, {.key = "daily-note"});
  ASSERT_TRUE(daily.ok()) << daily.status().ToString();
  EXPECT_TRUE(daily->archived);
  // The tool rule (a system namespace) is untouched.
  auto rules = engine_->rules().List(me_, "shell");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->size(), 1u);

  // A second run changes nothing; a new write makes an entry live again.
  auto again = engine_->admin().RunHygiene(me_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->archived + again->deleted, 0);
  Store("daily-note", "daily");
  EXPECT_THAT(Found(), ::testing::Contains("daily-note"));
}

TEST_P(HygieneTest, RunsAtOpenWhenTwelveHoursPassedSinceTheLastRun) {
  Store("daily-note", "daily");
  clock_->Advance(31 * kDay);
  Reopen();         // the first run ever is due: it archives in the background
  engine_.reset();  // closing waits for background work
  if (GetParam() == "in_memory") GTEST_SKIP() << "nothing persists across engines";
  Reopen();
  EXPECT_TRUE(Found().empty());
  EXPECT_THAT(Found(true), ::testing::ElementsAre("daily-note"));

  // Not due again within 12 hours, due after.
  auto soon = engine_->admin().RunHygieneIfDue();
  ASSERT_TRUE(soon.ok()) << soon.status().ToString();
  EXPECT_FALSE(soon->has_value());
  clock_->Advance(12 * 60 * 60 * 1000);
  auto later = engine_->admin().RunHygieneIfDue();
  ASSERT_TRUE(later.ok());
  EXPECT_TRUE(later->has_value());
}

TEST_P(HygieneTest, UnderAclOnlyAnAdminRunsIt) {
  Reopen(/*acl=*/true);
  auto user = engine_->admin().RunHygiene({.name = "alice", .role = Role::kUser});
  ASSERT_FALSE(user.ok());
  EXPECT_EQ(user.status().code(), StatusCode::kPermissionDenied);
  EXPECT_TRUE(engine_->admin().RunHygiene({.name = "root", .role = Role::kAdmin}).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, HygieneTest,
                         ::testing::Values("in_memory", "sqlite", "markdown"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace mnemo

// Idempotent turns through the Engine (spec 40, memory.turn_complete
// `turn_id`): a retry returns the first call's result and stores nothing —
// no second pair of rows, rule, tool statistic, profile evidence or archive
// file — also when 50 retries race; without a turn_id every call is a turn.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

class TurnIdempotency : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Config config;
    config.memory.backend = GetParam();
    config.embedding.provider = "none";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config, .clock = clock_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  static Turn EdictTurn(std::string session, std::optional<std::string> turn_id) {
    Turn t{.session_id = std::move(session),
           .user_message = "Never email Sarah at sarah@example.com. I prefer window seats.",
           .assistant_response = "Understood.",
           .tool_calls = {{.name = "send_email", .success = true, .duration_ms = 12}}};
    t.turn_id = std::move(turn_id);
    return t;
  }

  size_t Rows(const std::string& session) {
    auto r = engine_->archivist().SessionTurns(me_, session);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->size() : 0;
  }

  int64_t ToolCalls(const std::string& tool) {
    auto e = engine_->memory().Get(me_, {.key = "tool/" + tool, .ns = "tool_effectiveness"});
    if (!e.ok()) return 0;
    const std::string marker = "\"total_calls\":";
    const size_t at = e->content.find(marker);
    return at == std::string::npos ? -1 : std::stoll(e->content.substr(at + marker.size()));
  }

  // The evidence count of the facet whose key names `thing` (0: none).
  int64_t Evidence(const std::string& thing) {
    auto facets = engine_->knowledge().Profile(me_);
    EXPECT_TRUE(facets.ok());
    std::string seen;
    for (const ProfileFacet& f : facets.ok() ? *facets : std::vector<ProfileFacet>{}) {
      if (f.key.find(thing) != std::string::npos || f.value.find(thing) != std::string::npos) {
        return f.evidence_count;
      }
      seen += " " + f.facet_type + "/" + f.key + "=" + f.value;
    }
    ADD_FAILURE() << "no facet names " << thing << "; facets:" << seen;
    return 0;
  }

  size_t ArchiveFiles(const std::string& session) {
    const std::filesystem::path dir =
        std::filesystem::path(engine_->workspace()) / "memory_tree/content/episodic" / session;
    if (!std::filesystem::exists(dir)) return 0;
    return static_cast<size_t>(std::distance(std::filesystem::directory_iterator(dir),
                                             std::filesystem::directory_iterator()));
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_P(TurnIdempotency, ARepeatReturnsTheFirstResultAndStoresNothing) {
  auto first = engine_->archivist().TurnComplete(me_, EdictTurn("s", "turn-1"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->new_rules.size(), 1u);
  EXPECT_FALSE(first->replayed);
  clock_->Advance(5000);
  Turn retry = EdictTurn("s", "turn-1");
  retry.sync = true;
  auto again = engine_->archivist().TurnComplete(me_, retry);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->replayed);
  ASSERT_TRUE(again->user_row && again->assistant_row);
  EXPECT_EQ(again->user_row->id, first->user_row->id);
  EXPECT_EQ(again->assistant_row->seq, first->assistant_row->seq);
  EXPECT_EQ(again->assistant_row->content, "Understood.");
  EXPECT_EQ(again->segment_id, first->segment_id);
  EXPECT_EQ(again->rules_captured, first->rules_captured);
  ASSERT_EQ(again->new_rules.size(), 1u);
  EXPECT_EQ(again->new_rules[0].id, first->new_rules[0].id);
  EXPECT_EQ(again->new_rules[0].rule, first->new_rules[0].rule);
  EXPECT_EQ(again->new_rules[0].updated_at, first->new_rules[0].updated_at);
  EXPECT_TRUE(again->refreshed_rules.empty());  // a second capture would refresh it

  EXPECT_EQ(Rows("s"), 2u);
  EXPECT_EQ(ToolCalls("send_email"), 1);
  auto rules = engine_->rules().List(me_, "send_email");
  ASSERT_TRUE(rules.ok());
  EXPECT_EQ(rules->size(), 1u);
  EXPECT_EQ((*rules)[0].updated_at, first->new_rules[0].updated_at);
  EXPECT_EQ(ArchiveFiles("s"), 2u);
  ASSERT_TRUE(engine_->archivist().SessionEnd(me_, "s", /*sync=*/true).ok());
  EXPECT_EQ(Evidence("window seats"), 1);
}

TEST_P(TurnIdempotency, WithoutATurnIdTwoIdenticalTurnsAreTwoTurns) {
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, EdictTurn("s", std::nullopt)).ok());
  auto second = engine_->archivist().TurnComplete(me_, EdictTurn("s", std::nullopt));
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->replayed);
  EXPECT_EQ(second->refreshed_rules.size(), 1u);
  EXPECT_EQ(Rows("s"), 4u);
  EXPECT_EQ(ToolCalls("send_email"), 2);
}

TEST_P(TurnIdempotency, ATurnIdIsPerSessionAndPerPrincipal) {
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, EdictTurn("s", "t")).ok());
  auto other_session = engine_->archivist().TurnComplete(me_, EdictTurn("s2", "t"));
  ASSERT_TRUE(other_session.ok());
  EXPECT_FALSE(other_session->replayed);
  auto other_principal = engine_->archivist().TurnComplete({.name = "bob"}, EdictTurn("s", "t"));
  ASSERT_TRUE(other_principal.ok());
  EXPECT_FALSE(other_principal->replayed);
  EXPECT_EQ(Rows("s"), 2u);  // bob's rows are his
  EXPECT_EQ(Rows("s2"), 2u);
}

TEST_P(TurnIdempotency, FiftyConcurrentRetriesStoreOnePairAndOneEvidence) {
  constexpr int kRetries = 50;
  std::vector<TurnResult> results(kRetries);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRetries; ++i) {
    threads.emplace_back([&, i] {
      auto r = engine_->archivist().TurnComplete(me_, EdictTurn("race", "the-turn"));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      results[i] = std::move(*r);
    });
  }
  for (std::thread& t : threads) t.join();
  const int firsts = static_cast<int>(std::count_if(
      results.begin(), results.end(), [](const TurnResult& r) { return !r.replayed; }));
  EXPECT_EQ(firsts, 1);
  for (const TurnResult& r : results) {
    ASSERT_TRUE(r.user_row);
    EXPECT_EQ(r.user_row->id, results[0].user_row->id);
    ASSERT_EQ(r.new_rules.size(), 1u);
    EXPECT_EQ(r.new_rules[0].id, results[0].new_rules[0].id);
  }
  EXPECT_EQ(Rows("race"), 2u);
  EXPECT_EQ(ToolCalls("send_email"), 1);
  ASSERT_TRUE(engine_->archivist().SessionEnd(me_, "race", /*sync=*/true).ok());
  EXPECT_EQ(Evidence("window seats"), 1);
  // A sync turn of another session waits for every queued archive file.
  ASSERT_TRUE(
      engine_->archivist()
          .TurnComplete(
              me_,
              {.session_id = "flush", .user_message = "x", .assistant_response = "y", .sync = true})
          .ok());
  EXPECT_EQ(ArchiveFiles("race"), 2u);
}

TEST_P(TurnIdempotency, WithEpisodicCaptureOffARepeatStillCapturesNothing) {
  engine_.reset();
  Config config;
  config.memory.backend = GetParam();
  config.embedding.provider = "none";
  config.learning.episodic_capture_enabled = false;
  auto e = Engine::Open({.workspace = dir_.Sub("ws2"), .config = config, .clock = clock_});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  engine_ = std::move(*e);
  auto first = engine_->archivist().TurnComplete(me_, EdictTurn("s", "t"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto again = engine_->archivist().TurnComplete(me_, EdictTurn("s", "t"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(again->replayed);
  EXPECT_FALSE(again->user_row);
  ASSERT_EQ(again->new_rules.size(), 1u);
  EXPECT_EQ(ToolCalls("send_email"), 1);
}

TEST_P(TurnIdempotency, ATurnIdIsOneTo128Bytes) {
  for (const std::string& bad : {std::string(), std::string(129, 'x')}) {
    auto r = engine_->archivist().TurnComplete(me_, EdictTurn("s", bad));
    ASSERT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad.size();
    EXPECT_NE(r.status().message().find("turn_id"), std::string::npos) << r.status().message();
  }
  EXPECT_TRUE(engine_->archivist().TurnComplete(me_, EdictTurn("s", std::string(128, 'x'))).ok());
  EXPECT_EQ(Rows("s"), 2u);
}

INSTANTIATE_TEST_SUITE_P(Backends, TurnIdempotency, ::testing::Values("sqlite", "in_memory"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo

// The episodic part of the storage contract (backend.h, episodic.h), run
// unchanged against every backend in kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "storage/backend.h"
#include "storage/backend_factory.h"
#include "text/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;

TurnWrite Row(std::string session, std::string role, std::string content, TimeMs ts = 1000,
              std::string owner = "local") {
  TurnWrite w;
  w.row.owner = std::move(owner);
  w.row.session_id = std::move(session);
  w.row.role = std::move(role);
  w.row.content = content;
  w.row.timestamp_ms = ts;
  w.search_text = std::move(content);
  return w;
}

class EpisodicConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = testing::MakeBackend(GetParam(), dir_);
    ASSERT_NE(backend_, nullptr);
  }

  std::vector<TurnRow> Append(std::vector<TurnWrite> rows) {
    auto r = backend_->AppendTurns(rows);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<TurnRow>{};
  }

  std::vector<int64_t> Seqs(std::string_view session, std::string_view owner = "local") {
    auto r = backend_->SessionTurns(owner, session, 0, INT64_MAX);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> seqs;
    if (r.ok()) {
      for (const TurnRow& t : *r) seqs.push_back(t.seq);
    }
    return seqs;
  }

  std::vector<std::string> Found(std::string_view q, TurnQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = backend_->SearchTurns(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const TurnHit& h : *r) out.push_back(h.row.content);
    }
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Backend> backend_;
};

TEST_P(EpisodicConformance, SequenceNumbersFollowAppendsNotTimestamps) {
  // Equal and backwards timestamps: order is the append order.
  auto first = Append({Row("s1", "user", "hello", 5000), Row("s1", "assistant", "hi", 5000)});
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].seq, 0);
  EXPECT_EQ(first[1].seq, 1);
  EXPECT_GT(first[0].id, 0);
  EXPECT_NE(first[0].id, first[1].id);
  auto second = Append({Row("s1", "user", "again", 1000), Row("s1", "assistant", "yes", 1000)});
  EXPECT_EQ(second[0].seq, 2);
  EXPECT_EQ(second[1].seq, 3);
  // Another session and another owner count on their own.
  EXPECT_EQ(Append({Row("s2", "user", "x")})[0].seq, 0);
  EXPECT_EQ(Append({Row("s1", "user", "x", 1000, "bob")})[0].seq, 0);
  auto rows = backend_->SessionTurns("local", "s1", 0, INT64_MAX);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].content, "hello");
  EXPECT_EQ((*rows)[3].content, "yes");
  EXPECT_EQ((*rows)[3].role, "assistant");
  EXPECT_EQ((*rows)[2].timestamp_ms, 1000);
  auto range = backend_->SessionTurns("local", "s1", 1, 2);
  ASSERT_TRUE(range.ok());
  ASSERT_EQ(range->size(), 2u);
  EXPECT_EQ((*range)[0].content, "hi");
}

TEST_P(EpisodicConformance, EveryFieldRoundTrips) {
  TurnWrite w = Row("sess", "assistant", "Sent it.", 1700000000000);
  w.row.lesson = "Tools that failed in this turn: shell";
  w.row.tool_calls_json = R"([{"name":"shell","success":false}])";
  w.row.cost_microdollars = 42;
  w.row.agent_id = "agent-7";
  Append({w});
  auto rows = backend_->SessionTurns("local", "sess", 0, INT64_MAX);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  const TurnRow& r = (*rows)[0];
  EXPECT_EQ(r.lesson, w.row.lesson);
  EXPECT_EQ(r.tool_calls_json, w.row.tool_calls_json);
  EXPECT_EQ(r.cost_microdollars, 42);
  EXPECT_EQ(r.agent_id, "agent-7");
  EXPECT_EQ(r.timestamp_ms, 1700000000000);
}

TEST_P(EpisodicConformance, SearchReadsTheSearchTextInEnglishAndChinese) {
  TurnWrite tool = Row("s", "assistant", "raw output that is not indexed");
  tool.search_text = "cleaned deployment summary";
  Append({Row("s", "user", "Please deploy the billing service"), tool});
  Append({Row("s", "user", "我们明天讨论数据库迁移")});
  EXPECT_THAT(Found("billing"), ElementsAre("Please deploy the billing service"));
  EXPECT_THAT(Found("deployment summary"), ElementsAre("raw output that is not indexed"));
  EXPECT_TRUE(Found("indexed").empty());
  EXPECT_THAT(Found("数据库"), ElementsAre("我们明天讨论数据库迁移"));
}

TEST_P(EpisodicConformance, SearchFiltersByOwnerAndSessionBeforeTheLimit) {
  for (int i = 0; i < 5; ++i) Append({Row("other", "user", "shared words here")});
  Append({Row("mine", "user", "shared words here too")});
  Append({Row("mine", "user", "shared words of bob", 1000, "bob")});
  TurnQuery session{.session_id = "mine", .limit = 1};
  EXPECT_THAT(Found("shared words", session), ElementsAre("shared words here too"));
  TurnQuery bob{.all = false, .owner = "bob", .limit = 3};
  EXPECT_THAT(Found("shared words", bob), ElementsAre("shared words of bob"));
  EXPECT_EQ(Found("shared words", {.limit = 100}).size(), 7u);
}

TEST_P(EpisodicConformance, ScoresAreNormalisedAndOrdered) {
  Append({Row("s", "user", "alpha beta", 1000), Row("s", "user", "alpha", 2000),
          Row("s", "user", "gamma", 3000)});
  auto hits = backend_->SearchTurns({.terms = text::QueryTerms("alpha beta")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].row.content, "alpha beta");
  EXPECT_GT((*hits)[0].score, (*hits)[1].score);
  EXPECT_LE((*hits)[0].score, 1.0);
  EXPECT_GT((*hits)[1].score, 0.0);
}

TEST_P(EpisodicConformance, AppendRejectsMixedOrBlankAddresses) {
  std::vector<TurnWrite> mixed = {Row("a", "user", "x"), Row("b", "user", "y")};
  EXPECT_EQ(backend_->AppendTurns(mixed).status().code(), StatusCode::kInvalidArgument);
  std::vector<TurnWrite> blank = {Row("", "user", "x")};
  EXPECT_EQ(backend_->AppendTurns(blank).status().code(), StatusCode::kInvalidArgument);
  std::vector<TurnWrite> role = {Row("a", "system", "x")};
  EXPECT_EQ(backend_->AppendTurns(role).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Seqs("a").empty());
}

TEST_P(EpisodicConformance, ConcurrentAppendsToOneSessionGetDistinctSequences) {
  constexpr int kThreads = 8;
  constexpr int kEach = 20;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        std::vector<TurnWrite> pair = {Row("busy", "user", "u" + std::to_string(t)),
                                       Row("busy", "assistant", "a" + std::to_string(t))};
        auto r = backend_->AppendTurns(pair);
        ASSERT_TRUE(r.ok()) << r.status().ToString();
        EXPECT_EQ((*r)[1].seq, (*r)[0].seq + 1);  // a turn's rows stay adjacent
      }
    });
  }
  for (std::thread& th : threads) th.join();
  std::vector<int64_t> seqs = Seqs("busy");
  ASSERT_EQ(seqs.size(), static_cast<size_t>(kThreads * kEach * 2));
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], static_cast<int64_t>(i));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, EpisodicConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

// The context-event part of the storage contract (context_event_store.h,
// context_events.h), run unchanged against every backend in
// kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

ContextEventRow Event(std::string session, std::string search_text, std::string owner = "local",
                      std::string json = "") {
  ContextEventRow r;
  r.owner = std::move(owner);
  r.session_id = std::move(session);
  r.event_json = json.empty() ? "{\"input\":\"" + search_text + "\"}" : std::move(json);
  r.search_text = std::move(search_text);
  r.timestamp_ms = 1000;
  r.created_at = 2000;
  return r;
}

class ContextEventConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  ContextEventRow Append(const ContextEventRow& row) {
    auto r = stores_.context_events->AppendContextEvent(row);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ContextEventRow{};
  }

  std::vector<int64_t> Seqs(const std::string& session, const std::string& owner = "local") {
    auto r = stores_.context_events->ContextEvents(owner, TestSessionId(session));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> out;
    if (r.ok()) {
      for (const ContextEventRow& e : *r) out.push_back(e.seq);
    }
    return out;
  }

  std::vector<int64_t> Found(std::string_view q, ContextEventQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = stores_.context_events->SearchContextEvents(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> out;
    if (r.ok()) {
      for (const ContextEventHit& h : *r) {
        EXPECT_GT(h.score, 0.0);
        EXPECT_LE(h.score, 1.0);
        out.push_back(h.row.seq);
      }
    }
    return out;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(ContextEventConformance, EveryFieldRoundTripsAndTheJsonByteForByte) {
  const std::string raw = "{ \"input\" : \"héllo\",\n\t\"response\":\"x\" , \"z\":1}";
  ContextEventRow w = Event("s1", "héllo x", "alice", raw);
  w.timestamp_ms = 1234;
  w.created_at = 5678;
  ContextEventRow stored = Append(w);
  EXPECT_GT(stored.id, 0);
  EXPECT_EQ(stored.seq, 0);
  auto all = stores_.context_events->ContextEvents("alice", TestSessionId("s1"));
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 1u);
  const ContextEventRow& r = (*all)[0];
  EXPECT_EQ(r.id, stored.id);
  EXPECT_EQ(r.owner, "alice");
  EXPECT_EQ(r.session_id, "s1");
  EXPECT_EQ(r.event_json, raw);
  EXPECT_EQ(r.search_text, "héllo x");
  EXPECT_EQ(r.timestamp_ms, 1234);
  EXPECT_EQ(r.created_at, 5678);
}

TEST_P(ContextEventConformance, BlankOwnerOrSessionIsRejected) {
  EXPECT_EQ(stores_.context_events->AppendContextEvent(Event("", "x")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(stores_.context_events->AppendContextEvent(Event("s", "x", "")).status().code(),
            StatusCode::kInvalidArgument);
}

TEST_P(ContextEventConformance, SeqIsPerOwnerAndSession) {
  EXPECT_EQ(Append(Event("a", "one")).seq, 0);
  EXPECT_EQ(Append(Event("a", "two")).seq, 1);
  EXPECT_EQ(Append(Event("b", "three")).seq, 0);
  EXPECT_EQ(Append(Event("a", "four", "bob")).seq, 0);
  EXPECT_EQ(Append(Event("a", "five")).seq, 2);
  EXPECT_THAT(Seqs("a"), ElementsAre(0, 1, 2));
  EXPECT_THAT(Seqs("a", "bob"), ElementsAre(0));
  EXPECT_THAT(Seqs("missing"), IsEmpty());
}

TEST_P(ContextEventConformance, SeqIsNeverReusedAfterDeletion) {
  for (int i = 0; i < 3; ++i) Append(Event("s", "e" + std::to_string(i)));
  auto deleted = stores_.context_events->DeleteContextEventsUpTo("local", TestSessionId("s"), 2);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 3);
  EXPECT_THAT(Seqs("s"), IsEmpty());
  EXPECT_EQ(Append(Event("s", "later")).seq, 3);
}

TEST_P(ContextEventConformance, ConcurrentAppendsNeverShareOrSkipASeq) {
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = stores_.context_events->AppendContextEvent(
            Event("shared", "thread" + std::to_string(t) + " event" + std::to_string(i)));
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<int64_t> seqs = Seqs("shared");
  ASSERT_EQ(seqs.size(), static_cast<size_t>(kThreads * kEach));
  for (size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], static_cast<int64_t>(i));
  auto rows = stores_.context_events->ContextEvents("local", TestSessionId("shared"));
  ASSERT_TRUE(rows.ok());
  std::set<int64_t> ids;
  for (const ContextEventRow& r : *rows) ids.insert(r.id);
  EXPECT_EQ(ids.size(), seqs.size());
}

TEST_P(ContextEventConformance, SearchReadsTheSearchTextAndFiltersBeforeTheLimit) {
  Append(Event("s1", "deploy the billing service", "local", "{\"input\":\"unrelated\"}"));
  Append(Event("s1", "the weather is nice"));
  Append(Event("s2", "billing invoices for march"));
  Append(Event("s1", "billing billing billing", "bob"));
  Append(Event("s1", "我们讨论数据库迁移"));
  // Only the search text is indexed, never the JSON.
  EXPECT_THAT(Found("unrelated"), IsEmpty());
  EXPECT_THAT(Found("数据库"), ElementsAre(2));
  std::vector<int64_t> billing = Found("billing", {.all = false, .owner = "local"});
  EXPECT_EQ(billing.size(), 2u);
  EXPECT_THAT(Found("billing", {.all = false, .owner = "local", .session_id = TestSessionId("s1")}),
              ElementsAre(0));
  EXPECT_THAT(Found("billing", {.all = false, .owner = "bob"}), ElementsAre(0));
  EXPECT_EQ(Found("billing", {.all = true}).size(), 3u);
  EXPECT_EQ(Found("billing", {.all = true, .limit = 1}).size(), 1u);
  EXPECT_THAT(Found("billing", {.all = false, .owner = "local", .limit = 0}), IsEmpty());
}

TEST_P(ContextEventConformance, EqualScoresRankTheNewerSeqFirst) {
  Append(Event("s", "same words here"));
  Append(Event("s", "same words here"));
  Append(Event("s", "same words here"));
  EXPECT_THAT(Found("words", {.session_id = TestSessionId("s")}), ElementsAre(2, 1, 0));
}

TEST_P(ContextEventConformance, DeleteUpToSeqRemovesRowsAndIndexOfOneSessionOnly) {
  for (int i = 0; i < 5; ++i) Append(Event("s", "kiwi number" + std::to_string(i)));
  Append(Event("other", "kiwi elsewhere"));
  Append(Event("s", "kiwi of bob", "bob"));
  auto deleted = stores_.context_events->DeleteContextEventsUpTo("local", TestSessionId("s"), 2);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 3);
  EXPECT_THAT(Seqs("s"), ElementsAre(3, 4));
  EXPECT_THAT(Seqs("other"), ElementsAre(0));
  EXPECT_THAT(Seqs("s", "bob"), ElementsAre(0));
  EXPECT_THAT(Found("kiwi", {.all = false, .owner = "local", .session_id = TestSessionId("s")}),
              ElementsAre(4, 3));
  EXPECT_EQ(Found("kiwi").size(), 4u);
  auto again = stores_.context_events->DeleteContextEventsUpTo("local", TestSessionId("s"), 2);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

TEST_P(ContextEventConformance, DeleteByIdsRemovesExactlyThoseAndSkipsMissing) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(Append(Event("s", "plum " + std::to_string(i))).id);
  const int64_t doomed[] = {ids[1], ids[3], 999999, ids[1]};
  auto deleted = stores_.context_events->DeleteContextEventsByIds(doomed);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_EQ(*deleted, 2);
  EXPECT_THAT(Seqs("s"), ElementsAre(0, 2));
  EXPECT_THAT(Found("plum"), ElementsAre(2, 0));
  // The index keeps working for new rows after deletions.
  Append(Event("s", "plum again"));
  EXPECT_EQ(Found("plum").size(), 3u);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, ContextEventConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

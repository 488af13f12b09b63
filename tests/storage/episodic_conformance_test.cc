// The episodic part of the storage contract (episodic_store.h, episodic.h), run
// unchanged against every backend in kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

SegmentRow Segment(std::string session, TimeMs started_at = 1000, std::string owner = "local") {
  SegmentRow s;
  s.id = mnemo::internal::NewUuidV4();
  s.owner = std::move(owner);
  s.session_id = std::move(session);
  s.started_at = started_at;
  s.last_turn_at = started_at;
  return s;
}

EventRow Event(std::string type, std::string text, TimeMs created_at = 1000,
               std::string owner = "local") {
  EventRow e;
  e.id = mnemo::internal::NewUuidV4();
  e.owner = std::move(owner);
  e.session_id = "s";
  e.segment_id = "seg";
  e.type = std::move(type);
  e.text = std::move(text);
  e.confidence = 0.6;
  e.created_at = created_at;
  return e;
}

FacetRow Facet(std::string key, std::string value, double confidence,
               std::vector<std::string> segment_ids, TimeMs updated_at = 1000,
               std::string owner = "local", std::string type = "preference") {
  return FacetRow{.owner = std::move(owner),
                  .facet_type = std::move(type),
                  .key = std::move(key),
                  .value = std::move(value),
                  .confidence = confidence,
                  .segment_ids = std::move(segment_ids),
                  .updated_at = updated_at};
}

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
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  std::vector<TurnRow> Append(std::vector<TurnWrite> rows) {
    auto r = stores_.episodic->AppendTurns(rows);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<TurnRow>{};
  }

  std::vector<int64_t> Seqs(std::string_view session, std::string_view owner = "local") {
    auto r = stores_.episodic->SessionTurns(owner, TestSessionId(session), 0, INT64_MAX);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<int64_t> seqs;
    if (r.ok()) {
      for (const TurnRow& t : *r) seqs.push_back(t.seq);
    }
    return seqs;
  }

  std::vector<std::string> Found(std::string_view q, TurnQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = stores_.episodic->SearchTurns(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const TurnHit& h : *r) out.push_back(h.row.content);
    }
    return out;
  }

  int64_t AddEvents(std::vector<EventRow> rows) {
    auto r = stores_.episodic->AddEvents(rows);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : -1;
  }

  // The texts of the events SearchEvents returns for `q` (terms of `q`).
  std::vector<std::string> Events(std::string_view q, EventQuery query = {}) {
    query.terms = text::QueryTerms(q);
    auto r = stores_.episodic->SearchEvents(query);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const EventHit& h : *r) out.push_back(h.row.text);
    }
    return out;
  }

  std::vector<std::string> SegmentIds(const Result<std::vector<SegmentRow>>& r) {
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const SegmentRow& s : *r) out.push_back(s.id);
    }
    return out;
  }

  FacetRow Merge(const FacetRow& observation) {
    auto r = stores_.episodic->MergeFacet(observation);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FacetRow{};
  }

  testing::TempDir dir_;
  Stores stores_;
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
  auto rows = stores_.episodic->SessionTurns("local", TestSessionId("s1"), 0, INT64_MAX);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].content, "hello");
  EXPECT_EQ((*rows)[3].content, "yes");
  EXPECT_EQ((*rows)[3].role, "assistant");
  EXPECT_EQ((*rows)[2].timestamp_ms, 1000);
  auto range = stores_.episodic->SessionTurns("local", TestSessionId("s1"), 1, 2);
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
  auto rows = stores_.episodic->SessionTurns("local", TestSessionId("sess"), 0, INT64_MAX);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  const TurnRow& r = (*rows)[0];
  EXPECT_EQ(r.lesson, w.row.lesson);
  EXPECT_EQ(r.tool_calls_json, w.row.tool_calls_json);
  EXPECT_EQ(r.cost_microdollars, 42);
  EXPECT_EQ(r.agent_id, "agent-7");
  EXPECT_EQ(r.timestamp_ms, 1700000000000);
}

// Issue 17: one owner's turn scores use that owner's turns' statistics, so
// another principal's turns never move them.
TEST_P(EpisodicConformance, TurnScoresIgnoreOtherPrincipalsTurns) {
  Append({Row("s", "user", "quokka wombat habitat", 1000, "bob"),
          Row("s", "assistant", "wombat burrow notes here", 1001, "bob")});
  auto scores = [&] {
    std::vector<double> out;
    auto r = stores_.episodic->SearchTurns(
        {.terms = text::QueryTerms("quokka wombat"), .all = false, .owner = "bob"});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) {
      for (const TurnHit& h : *r) out.push_back(h.score);
    }
    return out;
  };
  const std::vector<double> before = scores();
  ASSERT_EQ(before.size(), 2u);
  for (int i = 0; i < 10; ++i) {
    Append({Row("a", "user", "quokka sighting " + std::to_string(i), 2000 + i, "alice")});
  }
  const std::vector<double> after = scores();
  ASSERT_EQ(after.size(), 2u);
  EXPECT_DOUBLE_EQ(after[0], before[0]);
  EXPECT_DOUBLE_EQ(after[1], before[1]);
}

TEST_P(EpisodicConformance, SearchReadsTheSearchTextInEnglishAndChinese) {
  TurnWrite tool = Row("s", "assistant", "raw output that is not indexed");
  tool.search_text = "cleaned deployment summary";
  Append({Row("s", "user", "Please deploy the billing service"), tool});
  Append({Row("s", "user", "我们明天讨论数据库迁移")});
  EXPECT_THAT(Found("billing"), ElementsAre("Please deploy the billing service"));
  // "deployment" and "deploy" share their stem: the user row matches one word.
  EXPECT_THAT(Found("deployment summary"),
              ElementsAre("raw output that is not indexed", "Please deploy the billing service"));
  EXPECT_TRUE(Found("indexed").empty());
  EXPECT_THAT(Found("数据库"), ElementsAre("我们明天讨论数据库迁移"));
}

// Issue 18: a time window ([since, until) on timestamp_ms) and an agent,
// applied before the limit.
TEST_P(EpisodicConformance, SearchFiltersByTimeAndAgentBeforeTheLimit) {
  std::vector<TurnWrite> rows;
  for (int i = 0; i < 10; ++i) {
    TurnWrite w = Row("s", "user", "flight flight flight to lisbon", 5000 + i);
    w.row.agent_id = "planner";
    rows.push_back(w);
  }
  TurnWrite early = Row("s", "user", "one flight among many other words in this turn", 1000);
  early.row.agent_id = "booker";
  rows.push_back(early);
  Append(rows);
  EXPECT_THAT(Found("flight", {.limit = 1, .until = 5000}),
              ElementsAre("one flight among many other words in this turn"));
  EXPECT_THAT(Found("flight", {.limit = 1, .agent_id = "booker"}),
              ElementsAre("one flight among many other words in this turn"));
  EXPECT_EQ(Found("flight", {.limit = 100, .since = 5000}).size(), 10u);
  EXPECT_EQ(Found("flight", {.limit = 100, .since = 5003, .until = 5005}).size(), 2u);
  EXPECT_TRUE(Found("flight", {.limit = 100, .since = 1000, .agent_id = "nobody"}).empty());
}

TEST_P(EpisodicConformance, ReplacedSearchTextIsWhatSearchReadsAndNothingStoredChanges) {
  TurnWrite w = Row("s", "assistant", "stored answer");
  w.search_text = "alpha words";
  w.row.tool_calls_json = R"([{"name":"t","output":"{\"k\":1}"}])";
  const std::vector<TurnRow> rows = Append({Row("s", "user", "question"), w});
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(stores_.episodic->ReplaceTurnSearchText(rows[1].id, "beta words").ok());
  EXPECT_TRUE(Found("alpha").empty());
  EXPECT_THAT(Found("beta"), ElementsAre("stored answer"));
  EXPECT_THAT(Found("words"), ElementsAre("stored answer"));
  // Twice in a row: the old index row is really gone, the new one counted once.
  ASSERT_TRUE(stores_.episodic->ReplaceTurnSearchText(rows[1].id, "gamma").ok());
  EXPECT_TRUE(Found("beta").empty());
  EXPECT_THAT(Found("gamma"), ElementsAre("stored answer"));
  // Replaced by its own content (stored once on disk) and away again: the
  // index row read back for the next replace is the content.
  ASSERT_TRUE(stores_.episodic->ReplaceTurnSearchText(rows[1].id, "stored answer").ok());
  EXPECT_TRUE(Found("gamma").empty());
  EXPECT_THAT(Found("answer"), ElementsAre("stored answer"));
  ASSERT_TRUE(stores_.episodic->ReplaceTurnSearchText(rows[1].id, "delta").ok());
  EXPECT_TRUE(Found("answer").empty());
  EXPECT_THAT(Found("delta"), ElementsAre("stored answer"));
  auto stored = stores_.episodic->SessionTurns("local", TestSessionId("s"), 0, INT64_MAX);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 2u);
  EXPECT_EQ((*stored)[1].content, "stored answer");
  EXPECT_EQ((*stored)[1].tool_calls_json, w.row.tool_calls_json);
  EXPECT_EQ(stores_.episodic->ReplaceTurnSearchText(rows[1].id + 100, "x").code(),
            StatusCode::kNotFound);
}

// Issue 45: a write without a search text (a user row's, no second copy of
// its content) is indexed by its content, through every path that stores
// turns, even where the store moves the row out of its write before the
// insert (RecordTurn): the same hits and scores as the content given twice.
TEST_P(EpisodicConformance, AWriteWithoutSearchTextIsIndexedByItsContent) {
  TurnWrite given = Row("given", "user", "lantern harbour winter");
  TurnWrite none = Row("none", "user", "lantern harbour winter");
  none.search_text = std::nullopt;
  Append({given});
  Append({none});
  TurnWrite claimed = Row("claimed", "user", "lantern harbour winter");
  claimed.search_text = std::nullopt;
  const TurnClaim claim{.key = {.owner = "local",
                                .session_id = TestSessionId("claimed"),
                                .turn_id = TestTurnId("t-1")},
                        .claimed_at = 1000};
  auto claimed_out = stores_.episodic->ClaimTurn(claim, std::span<const TurnWrite>(&claimed, 1));
  ASSERT_TRUE(claimed_out.ok()) << claimed_out.status().ToString();
  std::vector<TurnWrite> recorded;
  recorded.push_back(Row("recorded", "user", "lantern harbour winter"));
  recorded.back().search_text = std::nullopt;
  auto recorded_out = stores_.episodic->RecordTurn(
      std::nullopt, std::move(recorded),
      [](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
        return SegmentChange{};
      });
  ASSERT_TRUE(recorded_out.ok()) << recorded_out.status().ToString();

  auto hits = stores_.episodic->SearchTurns({.terms = text::QueryTerms("lantern winter")});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 4u);
  for (const TurnHit& h : *hits) {
    EXPECT_EQ(h.row.content, "lantern harbour winter");
    EXPECT_EQ(h.matched_terms, 2);
    EXPECT_DOUBLE_EQ(h.score, (*hits)[0].score) << h.row.session_id;
  }
}

TEST_P(EpisodicConformance, TurnsAfterPagesEveryOwnersRowsById) {
  Append({Row("s1", "user", "a"), Row("s1", "assistant", "b")});
  Append({Row("s2", "user", "c", 1000, "bob")});
  auto first = stores_.episodic->TurnsAfter(0, 2);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 2u);
  EXPECT_EQ((*first)[0].content, "a");
  EXPECT_EQ((*first)[1].content, "b");
  auto rest = stores_.episodic->TurnsAfter((*first)[1].id, 2);
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ((*rest)[0].owner, "bob");
  EXPECT_TRUE(stores_.episodic->TurnsAfter((*rest)[0].id, 2)->empty());
}

TEST_P(EpisodicConformance, SearchFiltersByOwnerAndSessionBeforeTheLimit) {
  for (int i = 0; i < 5; ++i) Append({Row("other", "user", "shared words here")});
  Append({Row("mine", "user", "shared words here too")});
  Append({Row("mine", "user", "shared words of bob", 1000, "bob")});
  TurnQuery session{.session_id = TestSessionId("mine"), .limit = 1};
  EXPECT_THAT(Found("shared words", session), ElementsAre("shared words here too"));
  TurnQuery bob{.all = false, .owner = "bob", .limit = 3};
  EXPECT_THAT(Found("shared words", bob), ElementsAre("shared words of bob"));
  EXPECT_EQ(Found("shared words", {.limit = 100}).size(), 7u);
}

TEST_P(EpisodicConformance, ScoresAreNormalisedAndOrdered) {
  Append({Row("s", "user", "alpha beta", 1000), Row("s", "user", "alpha", 2000),
          Row("s", "user", "gamma", 3000)});
  auto hits = stores_.episodic->SearchTurns({.terms = text::QueryTerms("alpha beta")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].row.content, "alpha beta");
  EXPECT_GT((*hits)[0].score, (*hits)[1].score);
  EXPECT_LE((*hits)[0].score, 1.0);
  EXPECT_GT((*hits)[1].score, 0.0);
}

// The ranking's coverage (core/search/turn_ranking.h): every backend counts the
// distinct query terms a turn holds, repeats and stems alike.
TEST_P(EpisodicConformance, HitsCountTheQueryTermsTheyHold) {
  Append({Row("s", "user", "alpha alpha alpha", 1000), Row("s", "user", "alpha betas gamma", 2000),
          Row("s", "user", "Gamma and delta", 3000)});
  auto hits = stores_.episodic->SearchTurns({.terms = text::QueryTerms("alpha beta gamma")});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::map<std::string, int64_t> matched;
  for (const TurnHit& h : *hits) matched[h.row.content] = h.matched_terms;
  EXPECT_EQ(matched,
            (std::map<std::string, int64_t>{
                {"alpha alpha alpha", 1}, {"alpha betas gamma", 3}, {"Gamma and delta", 1}}));
}

TEST_P(EpisodicConformance, AppendRejectsMixedOrBlankAddresses) {
  std::vector<TurnWrite> mixed = {Row("a", "user", "x"), Row("b", "user", "y")};
  EXPECT_EQ(stores_.episodic->AppendTurns(mixed).status().code(), StatusCode::kInvalidArgument);
  std::vector<TurnWrite> blank = {Row("", "user", "x")};
  EXPECT_EQ(stores_.episodic->AppendTurns(blank).status().code(), StatusCode::kInvalidArgument);
  std::vector<TurnWrite> role = {Row("a", "system", "x")};
  EXPECT_EQ(stores_.episodic->AppendTurns(role).status().code(), StatusCode::kInvalidArgument);
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
        auto r = stores_.episodic->AppendTurns(pair);
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

TEST_P(EpisodicConformance, ASegmentGoesFromOpenToClosedOnce) {
  SegmentRow a = Segment("s1");
  ASSERT_TRUE(stores_.episodic->PutSegment(a).ok());
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("s1"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, a.id);
  EXPECT_EQ((*open)->status, "open");
  // Another owner's session of the same name has none.
  auto other = stores_.episodic->OpenSegment("bob", TestSessionId("s1"));
  ASSERT_TRUE(other.ok());
  EXPECT_FALSE(other->has_value());

  auto closed = stores_.episodic->CloseSegment(a.id, 5000);
  ASSERT_TRUE(closed.ok());
  EXPECT_TRUE(*closed);
  closed = stores_.episodic->CloseSegment(a.id, 6000);
  ASSERT_TRUE(closed.ok());
  EXPECT_FALSE(*closed);
  closed = stores_.episodic->CloseSegment("no-such-segment", 6000);
  ASSERT_TRUE(closed.ok());
  EXPECT_FALSE(*closed);
  open = stores_.episodic->OpenSegment("local", TestSessionId("s1"));
  ASSERT_TRUE(open.ok());
  EXPECT_FALSE(open->has_value());
  auto stored = stores_.episodic->GetSegment(a.id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->status, "closed");
  EXPECT_EQ((*stored)->closed_at, 5000);  // the second close changed nothing

  // A put never reopens it; a closed put updates it.
  EXPECT_EQ(stores_.episodic->PutSegment(a).code(), StatusCode::kConflict);
  SegmentRow recapped = **stored;
  recapped.recap = "Talked about tea.";
  recapped.recap_source = "extractive";
  EXPECT_TRUE(stores_.episodic->PutSegment(recapped).ok());
  stored = stores_.episodic->GetSegment(a.id);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->recap, "Talked about tea.");
  EXPECT_EQ((*stored)->status, "closed");

  // After the close the session may open another, but only one at a time.
  SegmentRow b = Segment("s1", 6000);
  EXPECT_TRUE(stores_.episodic->PutSegment(b).ok());
  b.turn_count = 3;
  EXPECT_TRUE(stores_.episodic->PutSegment(b).ok());  // replacing the open one is fine
  EXPECT_EQ(stores_.episodic->PutSegment(Segment("s1", 7000)).code(), StatusCode::kConflict);
  EXPECT_TRUE(stores_.episodic->PutSegment(Segment("s1", 7000, "bob")).ok());
  EXPECT_TRUE(stores_.episodic->PutSegment(Segment("s2", 7000)).ok());
  open = stores_.episodic->OpenSegment("local", TestSessionId("s1"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, b.id);
  EXPECT_EQ((*open)->turn_count, 3);
}

TEST_P(EpisodicConformance, StepSegmentReadsDecidesAndWritesAtomically) {
  // The view of a session without segments.
  auto step = stores_.episodic->StepSegment("local", TestSessionId("st"), [](const SegmentView& v) {
    EXPECT_FALSE(v.open.has_value());
    EXPECT_EQ(v.next_seq, 0);
    SegmentChange c;
    c.put = Segment("st");
    c.put->first_seq = 0;
    c.put->last_seq = 1;
    return Result<SegmentChange>(c);
  });
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  const std::string first = step->put->id;
  // Close it and open the next in one step.
  step = stores_.episodic->StepSegment("local", TestSessionId("st"), [&](const SegmentView& v) {
    EXPECT_TRUE(v.open.has_value() && v.open->id == first);
    EXPECT_EQ(v.next_seq, 2);
    SegmentChange c{.close_open = true, .closed_at = 9000};
    c.put = Segment("st", 9000);
    c.put->first_seq = 2;
    c.put->last_seq = 3;
    return Result<SegmentChange>(c);
  });
  ASSERT_TRUE(step.ok()) << step.status().ToString();
  EXPECT_TRUE(step->close_open);
  auto closed = stores_.episodic->GetSegment(first);
  ASSERT_TRUE(closed.ok() && closed->has_value());
  EXPECT_EQ((*closed)->status, "closed");
  EXPECT_EQ((*closed)->closed_at, 9000);
  // A refused put (a second open segment) undoes the close too.
  const std::string second = step->put->id;
  step = stores_.episodic->StepSegment("local", TestSessionId("st"), [&](const SegmentView&) {
    SegmentChange c{.close_open = true, .closed_at = 9500};
    c.put = Segment("st", 9500);
    c.put->id = first;  // reopening a closed segment: kConflict
    return Result<SegmentChange>(c);
  });
  EXPECT_EQ(step.status().code(), StatusCode::kConflict);
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("st"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, second);
  // A callback error writes nothing.
  step = stores_.episodic->StepSegment("local", TestSessionId("st"), [](const SegmentView&) {
    return Result<SegmentChange>(InvalidArgument("no", "x"));
  });
  EXPECT_EQ(step.status().code(), StatusCode::kInvalidArgument);
  open = stores_.episodic->OpenSegment("local", TestSessionId("st"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, second);
}

TEST_P(EpisodicConformance, ConcurrentStepsOfOneSessionLoseNoExtension) {
  ASSERT_TRUE(stores_.episodic
                  ->StepSegment("local", TestSessionId("many"),
                                [](const SegmentView&) {
                                  SegmentChange c;
                                  c.put = Segment("many");
                                  c.put->turn_count = 0;
                                  return Result<SegmentChange>(c);
                                })
                  .ok());
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto r =
            stores_.episodic->StepSegment("local", TestSessionId("many"), [](const SegmentView& v) {
              SegmentChange c;
              c.put = *v.open;
              c.put->turn_count += 1;
              return Result<SegmentChange>(c);
            });
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("many"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->turn_count, kThreads * kEach);
}

TEST_P(EpisodicConformance, SegmentFieldsAndCentroidRoundTrip) {
  SegmentRow s = Segment("sess", 1700000000000);
  s.first_seq = 4;
  s.last_seq = 11;
  s.turn_count = 4;
  s.last_turn_at = 1700000060000;
  s.centroid = {0.25f, -1.5f, 3.0e-8f, 1.0f / 3.0f, 0.0f};
  s.recap = "Chose SQLite. 选择了数据库";
  s.recap_source = "llm";
  s.recap_attempts = 2;
  ASSERT_TRUE(stores_.episodic->PutSegment(s).ok());
  SegmentRow empty = Segment("other");
  ASSERT_TRUE(stores_.episodic->PutSegment(empty).ok());
  auto got = stores_.episodic->GetSegment(s.id);
  ASSERT_TRUE(got.ok() && got->has_value());
  const SegmentRow& r = **got;
  EXPECT_EQ(r.owner, "local");
  EXPECT_EQ(r.session_id, "sess");
  EXPECT_EQ(r.first_seq, 4);
  EXPECT_EQ(r.last_seq, 11);
  EXPECT_EQ(r.turn_count, 4);
  EXPECT_EQ(r.started_at, 1700000000000);
  EXPECT_EQ(r.last_turn_at, 1700000060000);
  EXPECT_EQ(r.centroid, s.centroid);  // bit for bit
  EXPECT_EQ(r.recap, s.recap);
  EXPECT_EQ(r.recap_source, "llm");
  EXPECT_EQ(r.recap_attempts, 2);
  auto none = stores_.episodic->GetSegment(empty.id);
  ASSERT_TRUE(none.ok() && none->has_value());
  EXPECT_THAT((*none)->centroid, IsEmpty());
  auto missing = stores_.episodic->GetSegment("missing");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(EpisodicConformance, PutSegmentRejectsBlankAddressesAndUnknownValues) {
  SegmentRow s = Segment("");
  EXPECT_EQ(stores_.episodic->PutSegment(s).code(), StatusCode::kInvalidArgument);
  s = Segment("s");
  s.id.clear();
  EXPECT_EQ(stores_.episodic->PutSegment(s).code(), StatusCode::kInvalidArgument);
  s = Segment("s");
  s.status = "paused";
  EXPECT_EQ(stores_.episodic->PutSegment(s).code(), StatusCode::kInvalidArgument);
  s = Segment("s");
  s.recap_source = "guess";
  EXPECT_EQ(stores_.episodic->PutSegment(s).code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(true, "", std::nullopt)), IsEmpty());
}

TEST_P(EpisodicConformance, SegmentsAreListedByStartThenIdWithFilters) {
  SegmentRow late = Segment("s1", 3000);
  SegmentRow tie1 = Segment("s1", 2000);
  SegmentRow tie2 = Segment("s1", 2000);
  tie1.id = "b-" + tie1.id;
  tie2.id = "a-" + tie2.id;
  tie1.status = tie2.status = "closed";  // one open segment per session
  SegmentRow other_session = Segment("s2", 1000);
  SegmentRow bobs = Segment("s1", 500, "bob");
  for (const SegmentRow* s : {&late, &tie1, &tie2, &other_session, &bobs}) {
    ASSERT_TRUE(stores_.episodic->PutSegment(*s).ok());
  }
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(true, "", std::nullopt)),
              ElementsAre(bobs.id, other_session.id, tie2.id, tie1.id, late.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(false, "local", std::nullopt)),
              ElementsAre(other_session.id, tie2.id, tie1.id, late.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(false, "local", TestSessionId("s1"))),
              ElementsAre(tie2.id, tie1.id, late.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(true, "", TestSessionId("s1"))),
              ElementsAre(bobs.id, tie2.id, tie1.id, late.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->Segments(false, "carol", std::nullopt)), IsEmpty());
}

TEST_P(EpisodicConformance, SegmentsNeedingRecapAreClosedExtractiveUnderTheAttemptLimit) {
  auto closed = [](std::string session, TimeMs closed_at, std::string source, int64_t attempts,
                   std::string owner = "local") {
    SegmentRow s = Segment(std::move(session), 1000, std::move(owner));
    s.status = "closed";
    s.closed_at = closed_at;
    s.recap_source = std::move(source);
    s.recap_attempts = attempts;
    return s;
  };
  SegmentRow newest = closed("a", 9000, "extractive", 0);
  SegmentRow oldest = closed("b", 1000, "extractive", 1, "bob");
  SegmentRow middle = closed("c", 5000, "extractive", 0);
  SegmentRow exhausted = closed("d", 500, "extractive", 2);
  SegmentRow llm = closed("e", 700, "llm", 0);
  SegmentRow none = closed("f", 800, "", 0);
  SegmentRow open = Segment("g");
  open.recap_source = "extractive";
  for (const SegmentRow* s : {&newest, &oldest, &middle, &exhausted, &llm, &none, &open}) {
    ASSERT_TRUE(stores_.episodic->PutSegment(*s).ok());
  }
  EXPECT_THAT(SegmentIds(stores_.episodic->SegmentsNeedingRecap(10, 2)),
              ElementsAre(oldest.id, middle.id, newest.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->SegmentsNeedingRecap(2, 2)),
              ElementsAre(oldest.id, middle.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->SegmentsNeedingRecap(10, 1)),
              ElementsAre(middle.id, newest.id));
  EXPECT_THAT(SegmentIds(stores_.episodic->SegmentsNeedingRecap(0, 2)), IsEmpty());
}

TEST_P(EpisodicConformance, AnEventIsAddedOncePerOwnerTypeAndText) {
  EXPECT_EQ(AddEvents({Event("decision", "We decided to use SQLite."),
                       Event("decision", "We decided to use SQLite."),
                       Event("fact", "We decided to use SQLite.")}),
            2);
  EXPECT_EQ(AddEvents({Event("decision", "We decided to use SQLite."),
                       Event("decision", "We decided to use SQLite.", 1000, "bob"),
                       Event("preference", "I prefer tabs.")}),
            2);
  auto all = stores_.episodic->SearchEvents({.limit = 100});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 4u);
  EXPECT_EQ(AddEvents({}), 0);
}

// PostgreSQL: longer than a btree index entry (about 2.7 kB), which the
// uniqueness of (owner, type, text) must not rely on.
TEST_P(EpisodicConformance, ALongEventIsAddedOnceAndFound) {
  // Words that do not repeat, so the server cannot compress them to fit.
  std::string text = "I keep a very long note about zanzibar";
  uint64_t word = 1;
  while (text.size() < 12000) {
    word = word * 6364136223846793005ULL + 1442695040888963407ULL;
    text += " w" + std::to_string(word >> 20);
  }
  EXPECT_EQ(AddEvents({Event("fact", text), Event("fact", text)}), 1);
  EXPECT_EQ(AddEvents({Event("fact", text)}), 0);
  EXPECT_EQ(AddEvents({Event("fact", text + ".")}), 1);
  EXPECT_EQ(Events("zanzibar").size(), 2u);
}

TEST_P(EpisodicConformance, AddEventsRejectsBadRowsAndReusedIdsWholly) {
  EventRow first = Event("fact", "I live in Berlin.");
  EXPECT_EQ(AddEvents({first}), 1);
  std::vector<EventRow> reused = {Event("fact", "I work at Acme."),
                                  Event("fact", "I am a chemist.")};
  reused[1].id = first.id;
  EXPECT_EQ(stores_.episodic->AddEvents(reused).status().code(), StatusCode::kConflict);
  std::vector<EventRow> twice = {Event("fact", "I work at Acme."),
                                 Event("fact", "I am a chemist.")};
  twice[1].id = twice[0].id;
  EXPECT_EQ(stores_.episodic->AddEvents(twice).status().code(), StatusCode::kConflict);
  std::vector<EventRow> bad_type = {Event("fact", "I work at Acme."), Event("rumour", "Maybe.")};
  EXPECT_EQ(stores_.episodic->AddEvents(bad_type).status().code(), StatusCode::kInvalidArgument);
  std::vector<EventRow> bad_confidence = {Event("fact", "I work at Acme.")};
  bad_confidence[0].confidence = 1.5;
  EXPECT_EQ(stores_.episodic->AddEvents(bad_confidence).status().code(),
            StatusCode::kInvalidArgument);
  std::vector<EventRow> blank = {Event("fact", "")};
  EXPECT_EQ(stores_.episodic->AddEvents(blank).status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(Events(""), ElementsAre("I live in Berlin."));
  EXPECT_THAT(Events("acme"), IsEmpty());
}

TEST_P(EpisodicConformance, AnEventIsClosedOnceAndKeptWithItsTime) {
  EventRow task = Event("commitment", "I need to renew the lease by June.");
  EventRow note = Event("reminder", "Remind me to water the ferns.");
  ASSERT_EQ(AddEvents({task, note}), 2);
  auto first = stores_.episodic->CloseEvent(task.id, 5000);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(*first);
  auto again = stores_.episodic->CloseEvent(task.id, 7000);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(stores_.episodic->CloseEvent("no-such-event", 5000).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(stores_.episodic->CloseEvent(note.id, 0).status().code(), StatusCode::kInvalidArgument);
  auto all = stores_.episodic->SearchEvents({.limit = 10});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u);
  for (const EventHit& h : *all) {
    EXPECT_EQ(h.row.closed_at, h.row.id == task.id ? 5000 : 0) << h.row.text;
  }
  auto found = stores_.episodic->SearchEvents({.terms = text::QueryTerms("lease")});
  ASSERT_TRUE(found.ok());
  ASSERT_EQ(found->size(), 1u);
  EXPECT_EQ((*found)[0].row.closed_at, 5000);
}

TEST_P(EpisodicConformance, EventSearchFindsEnglishAndChinese) {
  AddEvents({Event("decision", "Let's go with PostgreSQL for billing."),
             Event("commitment", "I will finish the migration by Friday."),
             Event("preference", "我喜欢用数据库迁移工具"), Event("fact", "我住在北京")});
  EXPECT_THAT(Events("postgresql"), ElementsAre("Let's go with PostgreSQL for billing."));
  EXPECT_THAT(Events("migration friday"), ElementsAre("I will finish the migration by Friday."));
  EXPECT_THAT(Events("数据库"), ElementsAre("我喜欢用数据库迁移工具"));
  EXPECT_THAT(Events("北京"), ElementsAre("我住在北京"));
  EXPECT_THAT(Events("kubernetes"), IsEmpty());
  auto hits = stores_.episodic->SearchEvents({.terms = text::QueryTerms("billing postgresql")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_GT((*hits)[0].score, 0.0);
  EXPECT_LE((*hits)[0].score, 1.0);
  EXPECT_EQ((*hits)[0].row.type, "decision");
  EXPECT_EQ((*hits)[0].row.session_id, "s");
  EXPECT_EQ((*hits)[0].row.segment_id, "seg");
}

TEST_P(EpisodicConformance, EventSearchRanksByScoreThenNewestThenId) {
  // The same text under three types scores the same: newest first, then id.
  EventRow a = Event("fact", "green tea every morning", 1000);
  EventRow b = Event("preference", "green tea every morning", 1000);
  EventRow c = Event("decision", "green tea every morning", 3000);
  a.id = "a-" + a.id;
  b.id = "b-" + b.id;
  AddEvents({b, c, a, Event("fact", "coffee at noon", 4000),
             Event("fact", "tea, tea and more tea with lemon and honey", 500),
             Event("fact", "black coffee only", 2000)});
  auto hits = stores_.episodic->SearchEvents({.terms = text::QueryTerms("green tea")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 4u);
  EXPECT_EQ((*hits)[0].row.id, c.id);
  EXPECT_EQ((*hits)[1].row.id, a.id);
  EXPECT_EQ((*hits)[2].row.id, b.id);
  EXPECT_EQ((*hits)[0].score, (*hits)[2].score);
  EXPECT_GT((*hits)[2].score, (*hits)[3].score);  // only "tea": a share of the query
  EXPECT_GT((*hits)[3].score, 0.0);
}

TEST_P(EpisodicConformance, EventFiltersApplyBeforeTheLimit) {
  for (int i = 0; i < 5; ++i) {
    AddEvents({Event("fact", "shared words number " + std::to_string(i), 5000 + i)});
  }
  AddEvents({Event("decision", "shared words decided", 1000),
             Event("preference", "shared words of bob", 900, "bob")});
  EXPECT_THAT(Events("shared words", {.type = "decision", .limit = 1}),
              ElementsAre("shared words decided"));
  EXPECT_THAT(Events("shared words", {.all = false, .owner = "bob", .limit = 1}),
              ElementsAre("shared words of bob"));
  EXPECT_THAT(Events("", {.type = "decision", .limit = 1}), ElementsAre("shared words decided"));
  EXPECT_THAT(Events("", {.all = false, .owner = "bob", .limit = 1}),
              ElementsAre("shared words of bob"));
  EXPECT_THAT(Events("shared", {.type = "fact", .all = false, .owner = "bob"}), IsEmpty());
  EXPECT_EQ(Events("shared words", {.limit = 100}).size(), 7u);
  EXPECT_THAT(Events("shared", {.limit = 0}), IsEmpty());
}

TEST_P(EpisodicConformance, EventsWithoutTermsAreNewestFirst) {
  EventRow hedged = Event("preference", "I think I like tea.", 2000);
  hedged.confidence = 0.4;
  EventRow stated = Event("fact", "My name is Ada.", 3000);
  stated.confidence = 0.9;
  AddEvents({Event("decision", "We agreed on Rust.", 1000), hedged, stated});
  auto all = stores_.episodic->SearchEvents({});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].row.text, "My name is Ada.");
  EXPECT_EQ((*all)[1].row.text, "I think I like tea.");
  EXPECT_EQ((*all)[2].row.text, "We agreed on Rust.");
  EXPECT_EQ((*all)[0].score, 0.0);
  EXPECT_EQ((*all)[0].row.confidence, 0.9);  // exactly
  EXPECT_EQ((*all)[1].row.confidence, 0.4);
  EXPECT_EQ((*all)[2].row.confidence, 0.6);
  EXPECT_EQ((*all)[0].row.id, stated.id);
  EXPECT_EQ((*all)[0].row.created_at, 3000);
  EXPECT_THAT(Events("", {.limit = 2}), ElementsAre("My name is Ada.", "I think I like tea."));
}

TEST_P(EpisodicConformance, MergeFacetCountsTheSameValueAndKeepsTheStrongerWording) {
  FacetRow first = Merge(Facet("tea", "tea", 0.6, {"s2", "s1", "s2"}, 1));
  EXPECT_EQ(first.evidence_count, 1);
  EXPECT_EQ(first.valid_from, 1);
  EXPECT_THAT(first.segment_ids, ElementsAre("s2", "s1"));
  FacetRow weaker = Merge(Facet("tea", "Tea", 0.4, {"s3", "s1"}, 2));
  EXPECT_EQ(weaker.evidence_count, 2);
  EXPECT_EQ(weaker.value, "tea");
  EXPECT_EQ(weaker.confidence, 0.6);
  EXPECT_EQ(weaker.updated_at, 2);
  EXPECT_THAT(weaker.segment_ids, ElementsAre("s2", "s1", "s3"));
  FacetRow stronger = Merge(Facet("tea", "TEA", 0.9, {"s4"}, 4));
  EXPECT_EQ(stronger.value, "TEA");
  EXPECT_EQ(stronger.confidence, 0.9);
  EXPECT_EQ(stronger.evidence_count, 3);
  EXPECT_TRUE(stronger.history.empty());
  // Another owner's facet of the same key is its own.
  EXPECT_EQ(Merge(Facet("tea", "tea", 0.6, {}, 5, "bob")).evidence_count, 1);
  EXPECT_EQ(stores_.episodic->MergeFacet(Facet("", "v", 0.6, {})).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(stores_.episodic->MergeFacet(Facet("k", "v", -0.1, {})).status().code(),
            StatusCode::kInvalidArgument);
}

// Spec 40 §5: a slot has one current value; earlier ones stay as history.
TEST_P(EpisodicConformance, ANewerValueSupersedesAndTheOldOneStaysAsHistory) {
  FacetRow pune = Facet("location", "Pune", 0.6, {"s1"}, 1000, "local", "context");
  pune.evidence = "I live in Pune.";
  Merge(pune);
  FacetRow bangalore = Facet("location", "Bangalore", 0.6, {"s2"}, 2000, "local", "context");
  bangalore.evidence = "I moved to Bangalore.";
  FacetRow now = Merge(bangalore);
  EXPECT_EQ(now.value, "Bangalore");
  EXPECT_EQ(now.evidence, "I moved to Bangalore.");
  EXPECT_EQ(now.evidence_count, 1);
  EXPECT_EQ(now.valid_from, 2000);
  ASSERT_EQ(now.history.size(), 1u);
  EXPECT_EQ(now.history[0].value, "Pune");
  EXPECT_EQ(now.history[0].evidence, "I live in Pune.");
  EXPECT_EQ(now.history[0].valid_from, 1000);
  EXPECT_EQ(now.history[0].valid_to, 2000);
  EXPECT_THAT(now.segment_ids, ElementsAre("s1", "s2"));

  // A hedged value does not replace a stated one: history, never current.
  FacetRow stated = Facet("location", "Chennai", 0.9, {}, 3000, "local", "context");
  Merge(stated);
  FacetRow hedged = Facet("location", "Mumbai", 0.4, {"s3"}, 4000, "local", "context");
  hedged.evidence = "Maybe I live in Mumbai.";
  FacetRow kept = Merge(hedged);
  EXPECT_EQ(kept.value, "Chennai");
  ASSERT_EQ(kept.history.size(), 3u);
  EXPECT_EQ(kept.history[2].value, "Mumbai");
  EXPECT_EQ(kept.history[2].valid_to, kept.history[2].valid_from);

  // ... unless it says that something changed.
  FacetRow moved = Facet("location", "Delhi", 0.6, {"s4"}, 5000, "local", "context");
  moved.evidence = "I moved to Delhi.";
  EXPECT_EQ(Merge(moved).value, "Delhi");

  // What is read back is what was stored, history included.
  auto stored = stores_.episodic->Facets(false, "local");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  const FacetRow& f = (*stored)[0];
  EXPECT_EQ(f.value, "Delhi");
  EXPECT_EQ(f.valid_from, 5000);
  ASSERT_EQ(f.history.size(), 4u);
  EXPECT_EQ(f.history[0].value, "Pune");
  EXPECT_EQ(f.history[1].value, "Bangalore");
  EXPECT_EQ(f.history[1].evidence, "I moved to Bangalore.");
  EXPECT_EQ(f.history[2].value, "Chennai");
  EXPECT_EQ(f.history[2].confidence, 0.9);
  EXPECT_EQ(f.history[2].valid_to, 5000);
  EXPECT_EQ(f.history[3].value, "Mumbai");
}

TEST_P(EpisodicConformance, ConcurrentMergesOfOneFacetLoseNoEvidence) {
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        auto r = stores_.episodic->MergeFacet(
            Facet("context_live_berlin", "I live in Berlin", 0.6, {"seg" + std::to_string(t)}));
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  auto facets = stores_.episodic->Facets(true, "");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  EXPECT_EQ((*facets)[0].evidence_count, kThreads * kEach);
  std::vector<std::string> ids = (*facets)[0].segment_ids;
  std::sort(ids.begin(), ids.end());
  EXPECT_THAT(ids, ElementsAre("seg0", "seg1", "seg2", "seg3", "seg4", "seg5", "seg6", "seg7"));
}

TEST_P(EpisodicConformance, FacetsAreListedByTypeKeyThenOwner) {
  Merge(Facet("preference_tea", "tea", 0.6, {}, 1, "local", "preference"));
  Merge(Facet("context_berlin", "Berlin", 0.6, {}, 1, "local", "context"));
  Merge(Facet("preference_coffee", "coffee", 0.6, {}, 1, "local", "preference"));
  Merge(Facet("preference_coffee", "coffee", 0.6, {}, 1, "bob", "preference"));
  auto all = stores_.episodic->Facets(true, "");
  ASSERT_TRUE(all.ok());
  std::vector<std::string> order;
  for (const FacetRow& f : *all) order.push_back(f.facet_type + "/" + f.key + "/" + f.owner);
  EXPECT_THAT(order,
              ElementsAre("context/context_berlin/local", "preference/preference_coffee/bob",
                          "preference/preference_coffee/local", "preference/preference_tea/local"));
  auto bobs = stores_.episodic->Facets(false, "bob");
  ASSERT_TRUE(bobs.ok());
  ASSERT_EQ(bobs->size(), 1u);
  EXPECT_EQ((*bobs)[0].key, "preference_coffee");
}

INSTANTIATE_TEST_SUITE_P(
    Backends, EpisodicConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

// The in-memory index scores events exactly as events_fts + mnemo_score.
TEST(EpisodicScores, EventScoresAreEqualOnEveryBackend) {
  std::vector<EventRow> rows;
  const char* texts[] = {"I prefer dark mode in every editor", "I prefer tea",
                         "We decided to ship on Friday", "dark roast coffee, dark chocolate",
                         "我喜欢深色模式"};
  for (const char* t : texts) rows.push_back(Event("preference", t));
  std::vector<std::vector<double>> scores;
  for (const char* name : testing::kConformanceBackends) {
    testing::TempDir dir;
    auto backend = testing::MakeStores(name, dir);
    ASSERT_NE(backend.entries, nullptr);
    ASSERT_TRUE(backend.episodic->AddEvents(rows).ok());
    auto hits =
        backend.episodic->SearchEvents({.terms = text::QueryTerms("dark prefer mode 深色")});
    ASSERT_TRUE(hits.ok());
    std::vector<double> s;
    for (const EventHit& h : *hits) s.push_back(h.score);
    scores.push_back(s);
  }
  ASSERT_EQ(scores[0].size(), 4u);
  for (size_t i = 1; i < scores.size(); ++i) EXPECT_EQ(scores[i], scores[0]);
}

// Two SQLite backends on one file stand for two processes: their writers
// are separate connections, serialised only by SQLite's own lock.
TEST(SqliteEpisodic, TwoWritersOfOneFileMergeAndCloseAtomically) {
  testing::TempDir dir;
  auto first = testing::MakeStores("sqlite", dir);
  auto second = testing::MakeStores("sqlite", dir);
  ASSERT_NE(first.entries, nullptr);
  ASSERT_NE(second.entries, nullptr);
  constexpr int kEach = 40;
  std::vector<SegmentRow> segments;
  for (int i = 0; i < kEach; ++i) {
    segments.push_back(Segment("s" + std::to_string(i)));
    ASSERT_TRUE(first.episodic->PutSegment(segments.back()).ok());
  }
  std::atomic<int> closes{0};
  auto work = [&](const Stores& b) {
    for (int i = 0; i < kEach; ++i) {
      auto merged =
          b.episodic->MergeFacet(Facet("context_live_berlin", "I live in Berlin", 0.6, {}));
      ASSERT_TRUE(merged.ok()) << merged.status().ToString();
      auto closed = b.episodic->CloseSegment(segments[static_cast<size_t>(i)].id, 1000 + i);
      ASSERT_TRUE(closed.ok()) << closed.status().ToString();
      if (*closed) ++closes;
    }
  };
  std::thread t1(work, std::cref(first));
  std::thread t2(work, std::cref(second));
  t1.join();
  t2.join();
  EXPECT_EQ(closes.load(), kEach);  // each segment closed by exactly one of them
  auto facets = second.episodic->Facets(true, "");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  EXPECT_EQ((*facets)[0].evidence_count, 2 * kEach);
}

}  // namespace
}  // namespace mnemo::storage

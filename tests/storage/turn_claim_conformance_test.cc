// The idempotent-turn and idle-segment part of the storage contract
// (episodic_store.h, turn_claims.h), run unchanged against every backend in
// kConformanceBackends.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/stores.h"

namespace mnemo::storage {
namespace {

TurnWrite Row(std::string session, std::string role, std::string content,
              std::string owner = "local") {
  TurnWrite w;
  w.row.owner = std::move(owner);
  w.row.session_id = std::move(session);
  w.row.role = std::move(role);
  w.row.content = content;
  w.row.timestamp_ms = 1000;
  w.search_text = std::move(content);
  return w;
}

TurnClaim Claim(std::string session, std::string turn_id, TimeMs at = 5000,
                std::string owner = "local") {
  return TurnClaim{.key = {.owner = std::move(owner),
                           .session_id = TestSessionId(std::move(session)),
                           .turn_id = TestTurnId(std::move(turn_id))},
                   .claimed_at = at};
}

class TurnClaimConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  std::vector<TurnWrite> Pair(const std::string& session, const std::string& text,
                              const std::string& owner = "local") {
    return {Row(session, "user", "u " + text, owner),
            Row(session, "assistant", "a " + text, owner)};
  }

  size_t RowsOf(std::string_view session, std::string_view owner = "local") {
    auto r = stores_.episodic->SessionTurns(owner, TestSessionId(session), 0, INT64_MAX);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->size() : 0;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(TurnClaimConformance, ASecondClaimOfOneTurnIdStoresNothingAndReturnsTheFirst) {
  auto first = stores_.episodic->ClaimTurn(Claim("s", "t-1", 5000), Pair("s", "hello"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->claimed);
  ASSERT_EQ(first->rows.size(), 2u);
  EXPECT_EQ(first->claim.first_seq, first->rows[0].seq);
  EXPECT_EQ(first->claim.claimed_at, 5000);
  EXPECT_EQ(first->claim.result, "");

  auto again = stores_.episodic->ClaimTurn(Claim("s", "t-1", 9000), Pair("s", "hello"));
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->claimed);
  EXPECT_TRUE(again->rows.empty());
  EXPECT_EQ(again->claim.first_seq, first->claim.first_seq);
  EXPECT_EQ(again->claim.claimed_at, 5000);
  EXPECT_EQ(RowsOf("s"), 2u);
}

TEST_P(TurnClaimConformance, TurnIdsAreScopedByOwnerAndSession) {
  ASSERT_TRUE(stores_.episodic->ClaimTurn(Claim("s", "t"), Pair("s", "x")).value().claimed);
  EXPECT_TRUE(stores_.episodic->ClaimTurn(Claim("other", "t"), Pair("other", "x")).value().claimed);
  EXPECT_TRUE(stores_.episodic->ClaimTurn(Claim("s", "t", 1, "bob"), Pair("s", "x", "bob"))
                  .value()
                  .claimed);
  EXPECT_EQ(RowsOf("s"), 2u);
  EXPECT_EQ(RowsOf("other"), 2u);
  EXPECT_EQ(RowsOf("s", "bob"), 2u);
}

TEST_P(TurnClaimConformance, AClaimWithoutRowsRecordsNoSeq) {
  auto r = stores_.episodic->ClaimTurn(Claim("s", "empty"), {});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->claimed);
  EXPECT_EQ(r->claim.first_seq, -1);
  EXPECT_FALSE(stores_.episodic->ClaimTurn(Claim("s", "empty"), {}).value().claimed);
  EXPECT_EQ(RowsOf("s"), 0u);
}

TEST_P(TurnClaimConformance, TheFirstFinishedResultIsKept) {
  const TurnKey key{.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t")};
  EXPECT_EQ(stores_.episodic->FinishTurnClaim(key, "r1").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(stores_.episodic->ClaimTurn(Claim("s", "t"), Pair("s", "x")).ok());
  EXPECT_TRUE(stores_.episodic->FinishTurnClaim(key, "r1").value());
  EXPECT_FALSE(stores_.episodic->FinishTurnClaim(key, "r2").value());
  auto stored = stores_.episodic->GetTurnClaim(key);
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->result, "r1");
  EXPECT_EQ(stores_.episodic->ClaimTurn(Claim("s", "t"), Pair("s", "x")).value().claim.result,
            "r1");
  EXPECT_FALSE(
      stores_.episodic
          ->GetTurnClaim(
              {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("u")})
          ->has_value());
}

// A turn id of 0 or more than kMaxTurnIdBytes bytes cannot reach a store:
// TurnId::Parse refuses it (tests/storage/values_test.cc).
TEST_P(TurnClaimConformance, ClaimTakesTheLongestTurnIdAndRejectsForeignRows) {
  EXPECT_TRUE(stores_.episodic->ClaimTurn(Claim("s", std::string(128, 'x')), Pair("s", "x")).ok());
  EXPECT_EQ(stores_.episodic->ClaimTurn(Claim("s", "t"), Pair("elsewhere", "x")).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RowsOf("elsewhere"), 0u);
}

TEST_P(TurnClaimConformance, ConcurrentClaimsOfOneTurnStoreOnePair) {
  constexpr int kThreads = 16;
  std::atomic<int> winners{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      auto r = stores_.episodic->ClaimTurn(Claim("race", "retry"), Pair("race", "same"));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->claimed) ++winners;
      EXPECT_EQ(r->claim.first_seq, 0);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(winners.load(), 1);
  EXPECT_EQ(RowsOf("race"), 2u);
}

TEST_P(TurnClaimConformance, IdleOpenSegmentsAreOpenOnesOlderThanTheCutOffByLastTurn) {
  auto segment = [](std::string session, TimeMs last, std::string status) {
    SegmentRow s;
    s.id = mnemo::internal::NewUuidV4();
    s.session_id = std::move(session);
    s.started_at = 100;
    s.last_turn_at = last;
    s.status = std::move(status);
    return s;
  };
  const SegmentRow old = segment("a", 1000, "open");
  const SegmentRow older = segment("b", 500, "open");
  const SegmentRow fresh = segment("c", 5000, "open");
  const SegmentRow closed = segment("d", 200, "open");
  for (const SegmentRow* s : {&old, &older, &fresh, &closed}) {
    ASSERT_TRUE(stores_.episodic->PutSegment(*s).ok());
  }
  ASSERT_TRUE(stores_.episodic->CloseSegment(closed.id, 300).value());
  auto idle = stores_.episodic->IdleOpenSegments(2000, 10);
  ASSERT_TRUE(idle.ok()) << idle.status().ToString();
  ASSERT_EQ(idle->size(), 2u);
  EXPECT_EQ((*idle)[0].id, older.id);
  EXPECT_EQ((*idle)[1].id, old.id);
  EXPECT_EQ(stores_.episodic->IdleOpenSegments(2000, 1).value().size(), 1u);
  EXPECT_TRUE(stores_.episodic->IdleOpenSegments(500, 10).value().empty());  // strictly before
}

// --- RecordTurn: a turn's rows, claim and segment step in one transaction.

SegmentRow OpenSegmentOver(std::span<const TurnRow> rows) {
  SegmentRow s;
  s.id = mnemo::internal::NewUuidV4();
  s.owner = rows.front().owner;
  s.session_id = rows.front().session_id;
  s.status = "open";
  s.first_seq = rows.front().seq;
  s.last_seq = rows.back().seq;
  s.turn_count = 1;
  s.started_at = rows.front().timestamp_ms;
  s.last_turn_at = rows.front().timestamp_ms;
  return s;
}

TEST_P(TurnClaimConformance, RecordTurnStoresRowsClaimAndSegmentStepTogether) {
  std::vector<int64_t> seen_seqs;
  std::string opened;
  auto decide = [&](std::span<const TurnRow> rows,
                    const SegmentView& view) -> Result<SegmentChange> {
    for (const TurnRow& r : rows) seen_seqs.push_back(r.seq);
    EXPECT_FALSE(view.open.has_value());
    SegmentChange change;
    change.put = OpenSegmentOver(rows);
    opened = change.put->id;
    return change;
  };
  auto r = stores_.episodic->RecordTurn(Claim("s", "t-1", 5000), Pair("s", "hello"), decide);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->stored);
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].seq, 0);
  EXPECT_EQ(r->rows[1].seq, 1);
  EXPECT_GT(r->rows[0].id, 0);
  EXPECT_EQ(seen_seqs, (std::vector<int64_t>{0, 1}));
  ASSERT_TRUE(r->claim.has_value());
  EXPECT_EQ(r->claim->first_seq, 0);
  EXPECT_EQ(r->claim->claimed_at, 5000);
  ASSERT_TRUE(r->segment.put.has_value());
  EXPECT_EQ(r->segment.put->id, opened);
  EXPECT_EQ(RowsOf("s"), 2u);
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("s"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, opened);
  EXPECT_EQ((*open)->last_seq, 1);
  auto claim = stores_.episodic->GetTurnClaim(
      {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t-1")});
  ASSERT_TRUE(claim.ok() && claim->has_value());
  EXPECT_EQ((*claim)->first_seq, 0);
}

TEST_P(TurnClaimConformance, RecordTurnOfAClaimedTurnIdStoresNothingAndDoesNotDecide) {
  auto open_one = [](std::span<const TurnRow> rows, const SegmentView&) -> Result<SegmentChange> {
    SegmentChange change;
    change.put = OpenSegmentOver(rows);
    return change;
  };
  auto first = stores_.episodic->RecordTurn(Claim("s", "t", 5000), Pair("s", "x"), open_one);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  bool decided = false;
  auto again = stores_.episodic->RecordTurn(
      Claim("s", "t", 9000), Pair("s", "x"),
      [&](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
        decided = true;
        return SegmentChange();
      });
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->stored);
  EXPECT_FALSE(decided);
  EXPECT_TRUE(again->rows.empty());
  ASSERT_TRUE(again->claim.has_value() && first->claim.has_value());
  EXPECT_EQ(again->claim->first_seq, first->claim->first_seq);
  EXPECT_EQ(again->claim->claimed_at, 5000);
  EXPECT_EQ(RowsOf("s"), 2u);
  // A claim made by ClaimTurn counts too.
  ASSERT_TRUE(stores_.episodic->ClaimTurn(Claim("s", "u"), Pair("s", "y")).value().claimed);
  EXPECT_FALSE(stores_.episodic->RecordTurn(Claim("s", "u"), Pair("s", "y"), open_one)->stored);
  EXPECT_EQ(RowsOf("s"), 4u);
}

TEST_P(TurnClaimConformance, RecordTurnWithoutAClaimAppendsAndClosesTheOpenSegment) {
  auto open_one = [](std::span<const TurnRow> rows, const SegmentView&) -> Result<SegmentChange> {
    SegmentChange change;
    change.put = OpenSegmentOver(rows);
    return change;
  };
  auto first = stores_.episodic->RecordTurn(std::nullopt, Pair("s", "one"), open_one);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(first->segment.put.has_value());
  const std::string first_segment = first->segment.put->id;
  auto second = stores_.episodic->RecordTurn(
      std::nullopt, Pair("s", "two"),
      [&](std::span<const TurnRow> rows, const SegmentView& view) -> Result<SegmentChange> {
        EXPECT_TRUE(view.open.has_value());
        EXPECT_EQ(view.next_seq, 2);
        SegmentChange change;
        change.close_open = true;
        change.closed_at = 7000;
        change.put = OpenSegmentOver(rows);
        return change;
      });
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->stored);
  EXPECT_EQ(second->rows[0].seq, 2);
  EXPECT_TRUE(second->segment.close_open);
  auto closed = stores_.episodic->GetSegment(first_segment);
  ASSERT_TRUE(closed.ok() && closed->has_value());
  EXPECT_EQ((*closed)->status, "closed");
  EXPECT_EQ((*closed)->closed_at, 7000);
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("s"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->first_seq, 2);
}

TEST_P(TurnClaimConformance, ARecordTurnThatFailsStoresNothing) {
  // The decision fails: no rows, no claim, no segment.
  auto failed = stores_.episodic->RecordTurn(
      Claim("s", "t"), Pair("s", "x"),
      [](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
        return Unavailable("no decision");
      });
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(RowsOf("s"), 0u);
  EXPECT_FALSE(
      stores_.episodic
          ->GetTurnClaim(
              {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t")})
          ->has_value());
  EXPECT_FALSE(stores_.episodic->OpenSegment("local", TestSessionId("s"))->has_value());

  // The segment write breaks the segment rules (a second open segment):
  // kConflict, and neither the rows nor the claim are kept.
  SegmentRow existing = OpenSegmentOver(std::vector<TurnRow>{
      TurnRow{.owner = "local", .session_id = "s", .seq = 0, .timestamp_ms = 1000}});
  ASSERT_TRUE(stores_.episodic->PutSegment(existing).ok());
  auto conflict = stores_.episodic->RecordTurn(
      Claim("s", "t"), Pair("s", "x"),
      [](std::span<const TurnRow> rows, const SegmentView&) -> Result<SegmentChange> {
        SegmentChange change;
        change.put = OpenSegmentOver(rows);
        return change;
      });
  EXPECT_EQ(conflict.status().code(), StatusCode::kConflict);
  EXPECT_EQ(RowsOf("s"), 0u);
  EXPECT_FALSE(
      stores_.episodic
          ->GetTurnClaim(
              {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t")})
          ->has_value());
  auto open = stores_.episodic->OpenSegment("local", TestSessionId("s"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, existing.id);

  // A close followed by a put that fails keeps the open segment open.
  SegmentRow bad;
  auto undone = stores_.episodic->RecordTurn(
      std::nullopt, Pair("s", "y"),
      [&](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
        SegmentChange change;
        change.close_open = true;
        change.closed_at = 9000;
        change.put = bad;  // no id: kInvalidArgument
        return change;
      });
  EXPECT_FALSE(undone.ok());
  EXPECT_EQ(RowsOf("s"), 0u);
  open = stores_.episodic->OpenSegment("local", TestSessionId("s"));
  ASSERT_TRUE(open.ok() && open->has_value());
  EXPECT_EQ((*open)->id, existing.id);
}

TEST_P(TurnClaimConformance, RecordTurnRejectsNoRowsAndForeignRows) {
  auto none = [](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
    return SegmentChange();
  };
  EXPECT_EQ(stores_.episodic->RecordTurn(std::nullopt, {}, none).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(stores_.episodic->RecordTurn(Claim("s", "t"), {}, none).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      stores_.episodic->RecordTurn(Claim("s", "t"), Pair("elsewhere", "x"), none).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(RowsOf("elsewhere"), 0u);
  EXPECT_FALSE(
      stores_.episodic
          ->GetTurnClaim(
              {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t")})
          ->has_value());
}

TEST_P(TurnClaimConformance, ConcurrentRecordTurnsOfOneSessionGetDistinctSeqsAndOneOpenSegment) {
  constexpr int kThreads = 8;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto r = stores_.episodic->RecordTurn(
          Claim("race", "t" + std::to_string(t)), Pair("race", std::to_string(t)),
          [](std::span<const TurnRow> rows, const SegmentView& view) -> Result<SegmentChange> {
            SegmentChange change;
            if (view.open) {
              SegmentRow extended = *view.open;
              extended.last_seq = std::max(extended.last_seq, rows.back().seq);
              change.put = std::move(extended);
            } else {
              change.put = OpenSegmentOver(rows);
            }
            return change;
          });
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_TRUE(r->stored);
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(RowsOf("race"), 2u * kThreads);
  auto segments = stores_.episodic->Segments(false, "local", TestSessionId("race"));
  ASSERT_TRUE(segments.ok()) << segments.status().ToString();
  ASSERT_EQ(segments->size(), 1u);
  EXPECT_EQ((*segments)[0].first_seq, 0);
  EXPECT_EQ((*segments)[0].last_seq, 2 * kThreads - 1);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, TurnClaimConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

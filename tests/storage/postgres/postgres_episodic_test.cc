// Episodic writes of two PostgreSQL backends on one schema, standing for two
// processes: separate pools, serialised only by the schema's writer lock.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

struct TwoBackends {
  std::unique_ptr<internal::PostgresBackend> first;
  std::unique_ptr<internal::PostgresBackend> second;
};

TwoBackends OpenTwo() {
  const PostgresOptions options{
      .url = testing::PostgresTestUrl(), .schema = testing::FreshPostgresSchema(), .pool_size = 2};
  TwoBackends out;
  auto first = internal::PostgresBackend::Open(options);
  auto second = internal::PostgresBackend::Open(options);
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(second.ok()) << second.status().ToString();
  if (first.ok()) out.first = std::move(first).value();
  if (second.ok()) out.second = std::move(second).value();
  return out;
}

SegmentRow OpenSegmentRow(std::string session) {
  SegmentRow s;
  s.id = mnemo::internal::NewUuidV4();
  s.session_id = std::move(session);
  s.started_at = 1000;
  s.last_turn_at = 1000;
  return s;
}

TEST(PostgresEpisodic, TwoProcessesMergeCloseAndAppendAtomically) {
  TwoBackends b = OpenTwo();
  ASSERT_NE(b.first, nullptr);
  ASSERT_NE(b.second, nullptr);
  constexpr int kEach = 30;
  std::vector<SegmentRow> segments;
  for (int i = 0; i < kEach; ++i) {
    segments.push_back(OpenSegmentRow("s" + std::to_string(i)));
    ASSERT_TRUE(b.first->episodic().PutSegment(segments.back()).ok());
  }
  std::atomic<int> closes{0};
  auto work = [&](internal::PostgresBackend* backend) {
    for (int i = 0; i < kEach; ++i) {
      auto merged = backend->episodic().MergeFacet({.facet_type = "context",
                                                    .key = "context_live_berlin",
                                                    .value = "I live in Berlin",
                                                    .confidence = 0.6});
      ASSERT_TRUE(merged.ok()) << merged.status().ToString();
      auto closed = backend->episodic().CloseSegment(segments[static_cast<size_t>(i)].id, 1000 + i);
      ASSERT_TRUE(closed.ok()) << closed.status().ToString();
      if (*closed) ++closes;
      TurnWrite w;
      w.row.session_id = "shared";
      w.row.role = "user";
      w.row.content = "turn";
      w.search_text = "turn";
      auto appended = backend->episodic().AppendTurns(std::vector<TurnWrite>{w, w});
      ASSERT_TRUE(appended.ok()) << appended.status().ToString();
      EXPECT_EQ((*appended)[1].seq, (*appended)[0].seq + 1);
    }
  };
  std::thread t1(work, b.first.get());
  std::thread t2(work, b.second.get());
  t1.join();
  t2.join();
  EXPECT_EQ(closes.load(), kEach);  // each segment closed by exactly one of them
  auto facets = b.second->episodic().Facets(true, "");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  EXPECT_EQ((*facets)[0].evidence_count, 2 * kEach);
  auto turns = b.first->episodic().SessionTurns("local", TestSessionId("shared"), 0, INT64_MAX);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), static_cast<size_t>(4 * kEach));
  for (size_t i = 0; i < turns->size(); ++i) EXPECT_EQ((*turns)[i].seq, static_cast<int64_t>(i));
  auto hits = b.second->episodic().SearchTurns({.terms = {"turn"}, .limit = 1000});
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->size(), static_cast<size_t>(4 * kEach));
}

TEST(PostgresEpisodic, RecapVectorVersionsOfTwoProcessesAreOneSequence) {
  TwoBackends b = OpenTwo();
  ASSERT_NE(b.first, nullptr);
  ASSERT_NE(b.second, nullptr);
  SegmentRow s = OpenSegmentRow("s");
  ASSERT_TRUE(b.first->episodic().PutSegment(s).ok());
  const std::vector<float> v = {1.0F, 2.0F};
  ASSERT_TRUE(b.first->episodic().PutSegmentVector(s.id, "sig", v).ok());
  auto seen = b.second->episodic().SegmentVectorsSince("sig", 0, 10);
  ASSERT_TRUE(seen.ok());
  ASSERT_EQ(seen->size(), 1u);
  // A write through the other process gets a later version and is all a
  // caught-up reader of the first sees.
  const std::vector<float> w = {3.0F, 4.0F};
  ASSERT_TRUE(b.second->episodic().PutSegmentVector(s.id, "sig", w).ok());
  auto later = b.first->episodic().SegmentVectorsSince("sig", (*seen)[0].version, 10);
  ASSERT_TRUE(later.ok());
  ASSERT_EQ(later->size(), 1u);
  EXPECT_GT((*later)[0].version, (*seen)[0].version);
  EXPECT_EQ((*later)[0].vector, w);
}

}  // namespace
}  // namespace mnemo::storage

namespace mnemo::storage {
namespace {

// Issue 45: a turn's rows move from RecordTurn's argument into the rows it
// returns (the user message keeps its buffer; a copy would have a new one),
// and the rows of AppendTurns and ClaimTurn, copied from the caller's writes,
// come back stored with their ids and seqs.
TEST(PostgresEpisodic, RecordTurnReturnsTheRowsMovedInAndAppendsReturnTheStoredRows) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto opened = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  internal::PostgresBackend& b = **opened;
  auto write = [](std::string session, std::string content) {
    return TurnWrite{.row = {.owner = "local",
                             .session_id = std::move(session),
                             .role = "user",
                             .content = content,
                             .timestamp_ms = 1000},
                     .search_text = content};
  };
  std::vector<TurnWrite> rows;
  rows.push_back(write("s", std::string(4096, 'm') + " lantern"));
  const char* const message = rows[0].row.content.data();
  auto recorded = b.episodic().RecordTurn(
      std::nullopt, std::move(rows),
      [](std::span<const TurnRow>, const SegmentView&) -> Result<SegmentChange> {
        return SegmentChange();
      });
  ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
  ASSERT_EQ(recorded->rows.size(), 1U);
  EXPECT_EQ(recorded->rows[0].content.data(), message);
  EXPECT_EQ(recorded->rows[0].seq, 0);
  EXPECT_GT(recorded->rows[0].id, 0);

  const std::vector<TurnWrite> appended = {write("s", "second"), write("s", "third")};
  auto stored = b.episodic().AppendTurns(appended);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  ASSERT_EQ(stored->size(), 2U);
  EXPECT_EQ((*stored)[0].content, "second");
  EXPECT_EQ((*stored)[1].seq, 2);
  EXPECT_GT((*stored)[1].id, (*stored)[0].id);
  EXPECT_EQ(appended[0].row.content, "second");  // the caller's writes are kept

  const TurnClaim claim{
      .key = {.owner = "local", .session_id = TestSessionId("s"), .turn_id = TestTurnId("t-1")},
      .claimed_at = 2000};
  auto claimed = b.episodic().ClaimTurn(claim, std::vector<TurnWrite>{write("s", "fourth")});
  ASSERT_TRUE(claimed.ok()) << claimed.status().ToString();
  EXPECT_TRUE(claimed->claimed);
  ASSERT_EQ(claimed->rows.size(), 1U);
  EXPECT_EQ(claimed->rows[0].content, "fourth");
  EXPECT_EQ(claimed->rows[0].seq, 3);
  EXPECT_EQ(claimed->claim.first_seq, 3);
  auto again = b.episodic().ClaimTurn(claim, std::vector<TurnWrite>{write("s", "fourth")});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_FALSE(again->claimed);
  EXPECT_TRUE(again->rows.empty());
  auto all = b.episodic().SessionTurns("local", TestSessionId("s"), 0, 10);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(all->size(), 4U);
}

// Issue 45: a turn's search text equal to its content is not stored a
// second time (search_text NULL stands for the content); a different one is.
TEST(PostgresEpisodic, ATurnsSearchTextEqualToItsContentIsStoredOnce) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto opened = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  internal::PostgresBackend& b = **opened;
  const std::vector<TurnWrite> rows = {{.row = {.owner = "local",
                                                .session_id = "s",
                                                .role = "user",
                                                .content = "which harbour has the lantern",
                                                .timestamp_ms = 1000},
                                        .search_text = "which harbour has the lantern"},
                                       {.row = {.owner = "local",
                                                .session_id = "s",
                                                .role = "assistant",
                                                .content = "the north one",
                                                .lesson = "ask the keeper",
                                                .timestamp_ms = 1000},
                                        .search_text = "the north one\nask the keeper"}};
  auto stored = b.episodic().AppendTurns(rows);
  ASSERT_TRUE(stored.ok()) << stored.status().ToString();
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto column = [&]() {
    auto read = (*conn)->Exec("SELECT COALESCE(search_text, '<null>') FROM " +
                                  internal::pg::QuoteIdentifier(schema) + ".turns ORDER BY id",
                              "read the column");
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    std::vector<std::string> out;
    if (read.ok()) {
      for (int i = 0; i < read->size(); ++i) out.emplace_back(read->Text(i, 0));
    }
    return out;
  };
  EXPECT_EQ(column(), (std::vector<std::string>{"<null>", "the north one\nask the keeper"}));
  auto found = [&](const char* q) {
    auto hits = b.episodic().SearchTurns({.terms = text::QueryTerms(q)});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> out;
    if (hits.ok()) {
      for (const TurnHit& h : *hits) out.push_back(h.row.content);
    }
    return out;
  };
  EXPECT_EQ(found("lantern"), std::vector<std::string>{"which harbour has the lantern"});
  EXPECT_EQ(found("keeper"), std::vector<std::string>{"the north one"});
  // Replaced by the content: NULL; by another text: stored.
  ASSERT_TRUE(b.episodic().ReplaceTurnSearchText((*stored)[1].id, "the north one").ok());
  ASSERT_TRUE(b.episodic().ReplaceTurnSearchText((*stored)[0].id, "harbour lantern").ok());
  EXPECT_EQ(column(), (std::vector<std::string>{"harbour lantern", "<null>"}));
  EXPECT_TRUE(found("keeper").empty());
  EXPECT_EQ(found("north"), std::vector<std::string>{"the north one"});
}

}  // namespace
}  // namespace mnemo::storage

// The server's work for one store or turn on PostgreSQL (postgres_database.cc,
// PostgresDatabase::Write): every statement a store runs is prepared once
// per connection, not planned again on each store; and the keyword notes a
// write leaves behind (dead rows of entry_terms_delta, which every fold
// reads) do not pile up between autovacuum's visits.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/test_values.h"

namespace mnemo::storage {
namespace {

using internal::pg::PgConn;
using internal::pg::Rows;

// Runs `sql` inside a write of `db` (the pool's one connection) and returns
// its rows.
Rows InWrite(internal::PostgresDatabase& db, const std::string& sql) {
  Rows out(nullptr);
  const Status s = db.Write("probe", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(out, conn.Exec(sql, "probe"));
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// How many times each statement containing one of `pieces` (by what it
// is) ran as a prepared statement on `db`'s one connection.
void ExpectPrepared(internal::PostgresDatabase& db,
                    const std::map<std::string, std::string>& pieces, int64_t at_least) {
  const Rows rows =
      InWrite(db, "SELECT statement, generic_plans + custom_plans FROM pg_prepared_statements");
  for (const auto& [what, piece] : pieces) {
    int64_t runs = 0;
    for (int i = 0; i < rows.size(); ++i) {
      if (rows.Text(i, 0).find(piece) != std::string_view::npos) runs += rows.Int(i, 1);
    }
    EXPECT_GE(runs, at_least) << what << " is not run as a prepared statement";
  }
}

TEST(PostgresDatabase, EveryStatementOfAStoreIsPreparedOnce) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto backend = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  internal::PostgresEntryStore& store = (*backend)->entries();
  constexpr int kStores = 12;
  for (int i = 0; i < kStores; ++i) {
    // As memory.store writes: the entry with its vector.
    auto r = store.Upsert(
        {.owner = "u1",
         .key = "k" + std::to_string(i),
         .content = "note number " + std::to_string(i) + " about gloves",
         .now = 1000 + i,
         .vectors = {{.signature = "sig", .vector = {1.0F, 0.5F, static_cast<float>(i)}}}});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  // On the pool's one connection: each statement a store sends, with how
  // many times it ran as a prepared statement.
  ExpectPrepared((*backend)->database(),
                 {{"the writer lock", "pg_advisory_xact_lock"},
                  {"the entry's look-up", "SELECT e.label, e.doc_length"},
                  {"the entry's insert", "INSERT INTO entries"},
                  {"the keyword statistics' fold", "FROM entry_terms_delta GROUP BY term, bucket"},
                  {"the text statistics", "UPDATE text_stats"},
                  {"the vector dimension", "SELECT dim FROM entry_vectors"},
                  {"the vector's insert", "INSERT INTO entry_vectors"}},
                 kStores);
}

// memory.turn_complete's writes (PostgresEpisodicStore::RecordTurn, then
// FinishTurnClaim): each statement prepared once per connection, as a
// store's are.
TEST(PostgresDatabase, EveryStatementOfATurnIsPreparedOnce) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto backend = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  internal::PostgresEpisodicStore& episodic = (*backend)->episodic();
  // The first turn opens the session's segment, the next ones extend it.
  auto step = [](std::span<const TurnRow> rows, const SegmentView& view) -> Result<SegmentChange> {
    SegmentRow s = view.open ? *view.open
                             : SegmentRow{.id = "seg-1",
                                          .owner = rows.front().owner,
                                          .session_id = rows.front().session_id,
                                          .status = "open",
                                          .first_seq = rows.front().seq,
                                          .started_at = rows.front().timestamp_ms};
    s.last_seq = rows.back().seq;
    s.turn_count += 1;
    s.last_turn_at = rows.back().timestamp_ms;
    return SegmentChange{.put = s};
  };
  constexpr int kTurns = 6;
  for (int i = 0; i < kTurns; ++i) {
    std::vector<TurnWrite> rows(2);
    for (TurnWrite& w : rows) {
      w.row.session_id = "s1";
      w.row.timestamp_ms = 1000 + i;
    }
    rows[0].row.role = "user";
    rows[0].row.content = "question " + std::to_string(i) + " about gloves";
    rows[1].row.role = "assistant";
    rows[1].row.content = "answer " + std::to_string(i);
    const TurnClaim claim{
        .key = {.session_id = TestSessionId("s1"), .turn_id = TestTurnId("t" + std::to_string(i))},
        .claimed_at = 1000 + i};
    auto recorded = episodic.RecordTurn(claim, std::move(rows), step);
    ASSERT_TRUE(recorded.ok()) << recorded.status().ToString();
    ASSERT_TRUE(recorded->stored);
    auto finished = episodic.FinishTurnClaim(claim.key, "{}");
    ASSERT_TRUE(finished.ok()) << finished.status().ToString();
  }
  ExpectPrepared((*backend)->database(),
                 {{"the claim's read", "SELECT first_seq, result, claimed_at FROM turn_claims"},
                  {"the session's next seq", "SELECT COALESCE(MAX(seq) + 1, 0) FROM turns"},
                  {"the turn's insert", "INSERT INTO turns"},
                  {"the claim's insert", "INSERT INTO turn_claims"},
                  {"the open segment's read", "s.status = 'open'"},
                  {"the last segmented turn", "SELECT max(last_seq) FROM segments"},
                  {"the segment's status", "SELECT status FROM segments WHERE id"},
                  {"the segment's put", "INSERT INTO segments"},
                  {"the recap's index", "FROM segment_recaps WHERE segment_id"},
                  {"the claim's result", "UPDATE turn_claims SET result"}},
                 kTurns);
}

TEST(PostgresDatabase, TheKeywordNotesTableStaysSmallUnderManyStores) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto backend = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  internal::PostgresDatabase& db = (*backend)->database();
  // No autovacuum on the queues: the test sees only what the writes do.
  InWrite(db, "ALTER TABLE entry_terms_delta SET (autovacuum_enabled = false)");
  InWrite(db, "ALTER TABLE entry_terms_log SET (autovacuum_enabled = false)");
  // 300 stores of 60 words of their own: 18 000 notes, each deleted by its
  // write's fold. Left for autovacuum they fill well over 100 pages.
  for (int i = 0; i < 300; ++i) {
    std::string text;
    for (int w = 0; w < 60; ++w) text += "w" + std::to_string(i) + "x" + std::to_string(w) + " ";
    auto r = (*backend)->entries().Upsert(
        {.owner = "u1", .key = "k" + std::to_string(i), .content = text, .now = 1000 + i});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  const Rows pages = InWrite(
      db, "SELECT pg_relation_size('entry_terms_delta') / current_setting('block_size')::int");
  EXPECT_LE(pages.Int(0, 0), 60);
  // The statistics are those of every store.
  const Rows counted =
      InWrite(db, "SELECT docs FROM entry_terms WHERE term = '' AND bucket = 'o:u1'");
  ASSERT_EQ(counted.size(), 1);
  EXPECT_EQ(counted.Int(0, 0), 300);
}

}  // namespace
}  // namespace mnemo::storage

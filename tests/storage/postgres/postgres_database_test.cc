// The server's work for one store on PostgreSQL (postgres_database.cc,
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

TEST(PostgresDatabase, EveryStatementOfAStoreIsPreparedOnce) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto backend = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(backend.ok()) << backend.status().ToString();
  internal::PostgresEntryStore& store = (*backend)->entries();
  constexpr int kStores = 12;
  for (int i = 0; i < kStores; ++i) {
    auto r = store.Upsert({.owner = "u1",
                           .key = "k" + std::to_string(i),
                           .content = "note number " + std::to_string(i) + " about gloves",
                           .now = 1000 + i});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const LabeledVector v{.label = r->label, .vector = {1.0F, 0.5F, static_cast<float>(i)}};
    ASSERT_TRUE(store.PutVectors("sig", std::span(&v, 1)).ok());
  }
  // On the pool's one connection: each statement a store sends, with how
  // many times it ran as a prepared statement.
  const Rows rows = InWrite((*backend)->database(),
                            "SELECT statement, generic_plans + custom_plans FROM "
                            "pg_prepared_statements");
  const std::map<std::string, std::string> kinds = {
      {"the writer lock", "pg_advisory_xact_lock"},
      {"the entry's look-up", "SELECT e.label, e.doc_length"},
      {"the entry's insert", "INSERT INTO entries"},
      {"the keyword statistics' fold", "FROM entry_terms_delta GROUP BY term, bucket"},
      {"the text statistics", "UPDATE text_stats"},
      {"the vector dimension", "SELECT dim FROM entry_vectors"},
      {"the vector's insert", "INSERT INTO entry_vectors"},
  };
  for (const auto& [what, piece] : kinds) {
    int64_t runs = 0;
    for (int i = 0; i < rows.size(); ++i) {
      if (rows.Text(i, 0).find(piece) != std::string_view::npos) runs += rows.Int(i, 1);
    }
    EXPECT_GE(runs, kStores) << what << " is not run as a prepared statement";
  }
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

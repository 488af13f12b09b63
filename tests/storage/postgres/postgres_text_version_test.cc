// The keyword index is rebuilt when the text version changed, on PostgreSQL
// as on SQLite (sqlite/fts/text_version_test.cc).
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_schema.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

std::unique_ptr<internal::PostgresBackend> Open(const PostgresOptions& options) {
  auto b = internal::PostgresBackend::Open(options);
  EXPECT_TRUE(b.ok()) << b.status().ToString();
  return b.ok() ? std::move(b).value() : nullptr;
}

// Every tsv holds a token the tokenizer does not make of the row's text.
void MakeStale(const std::string& schema, bool forget_version) {
  auto pool = internal::pg::Pool::Open({.url = testing::PostgresTestUrl(), .size = 1});
  ASSERT_TRUE(pool.ok()) << pool.status().ToString();
  auto conn = (*pool)->Acquire();
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  const std::string s = internal::pg::QuoteIdentifier(schema);
  std::string sql = "UPDATE " + s + ".entries SET tsv = 'stale'::tsvector; UPDATE " + s +
                    ".turns SET tsv = 'stale'::tsvector;";
  if (forget_version) sql += "DELETE FROM " + s + ".generations WHERE name = 'text_version';";
  ASSERT_TRUE((*conn)->ExecScript(sql, "make the index stale").ok());
}

size_t Entries(internal::PostgresBackend& b, const std::string& query) {
  auto hits = b.entries().KeywordSearch({.terms = text::QueryTerms(query)});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits->size() : 0;
}

size_t Turns(internal::PostgresBackend& b, const std::string& query) {
  auto hits = b.episodic().SearchTurns({.terms = text::QueryTerms(query)});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits->size() : 0;
}

TEST(PostgresTextVersion, AnIndexOfAnotherVersionIsRebuiltOnceAtOpen) {
  const PostgresOptions options{
      .url = testing::PostgresTestUrl(), .schema = testing::FreshPostgresSchema(), .pool_size = 1};
  {
    auto b = Open(options);
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->entries()
                    .Upsert({.key = "rollout", .content = "the deployment of billing", .now = 1})
                    .ok());
    TurnWrite turn;
    turn.row = {.owner = "local", .session_id = "s", .role = "user", .content = "x"};
    turn.row.timestamp_ms = 1;
    turn.search_text = "we deployed billing";
    ASSERT_TRUE(b->episodic().AppendTurns(std::span(&turn, 1)).ok());
  }
  MakeStale(options.schema, /*forget_version=*/true);
  {
    auto b = Open(options);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(Entries(*b, "stale"), 0u);
    EXPECT_EQ(Entries(*b, "deploys"), 1u);
    EXPECT_EQ(Turns(*b, "stale"), 0u);
    EXPECT_EQ(Turns(*b, "deploying"), 1u);
  }
  // Recorded as current: left alone at the next open.
  MakeStale(options.schema, /*forget_version=*/false);
  auto b = Open(options);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Entries(*b, "stale"), 1u);
}

}  // namespace
}  // namespace mnemo::storage

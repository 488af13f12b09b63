// MatchingLabels on PostgreSQL as a user (pg_matching_labels.h): the user's
// own entries and the public ones, never another user's private entries,
// archived ones or the system namespaces, ascending and up to the limit;
// and read by the scope's indexes, not by a scan of every entry.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_matching_labels.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/temp_dir.h"

namespace mnemo::storage {
namespace {

using internal::pg::PgConn;
using internal::pg::QuoteIdentifier;

// 3 000 private entries of u2 and 5 public ones; u1 owns 3 entries that
// pass, one archived and one in a tool namespace.
std::vector<EntryWrite> Corpus() {
  std::vector<EntryWrite> out;
  for (int i = 0; i < 3000; ++i) {
    out.push_back({.owner = "u2",
                   .key = "b" + std::to_string(i),
                   .content = "note " + std::to_string(i),
                   .visibility = i % 600 == 5 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 1000 + i});
    if (i % 1000 == 500) {
      out.push_back({.owner = "u1", .key = "a" + std::to_string(i), .content = "mine", .now = 1});
    }
  }
  out.push_back({.owner = "u1", .key = "old", .content = "mine", .now = 1, .archived = true});
  out.push_back({.owner = "u1", .ns = "tool-shell", .key = "rule", .content = "mine", .now = 1});
  return out;
}

TEST(PgMatchingLabels, AUserGetsTheirOwnAndPublicEntriesByTheScopesIndexes) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto pg = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  ASSERT_TRUE((*pg)->entries().UpsertBatch(Corpus()).ok());
  auto conn = PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  ASSERT_TRUE(
      c.ExecScript("SET search_path TO " + QuoteIdentifier(schema) + "; ANALYZE entries", "analyze")
          .ok());
  auto expected = c.Exec(
      "SELECT label FROM entries WHERE (owner = 'u1' OR visibility = 'public') AND NOT archived "
      "AND namespace = 'global' ORDER BY label",
      "the scope by hand");
  ASSERT_TRUE(expected.ok()) << expected.status().ToString();
  std::vector<Label> want;
  for (int i = 0; i < expected->size(); ++i) want.push_back(expected->Int(i, 0));
  ASSERT_EQ(want.size(), 3u + 5u);

  const EntryFilter as_u1{.scope = {.all = false, .principal = "u1"}};
  auto all = (*pg)->entries().MatchingLabels(as_u1, 100);
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ(*all, want);
  auto first = (*pg)->entries().MatchingLabels(as_u1, 4);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(*first, std::vector<Label>(want.begin(), want.begin() + 4));
  auto archived = (*pg)->entries().MatchingLabels(
      {.include_archived = true, .scope = {.all = false, .principal = "u1"}}, 100);
  ASSERT_TRUE(archived.ok());
  EXPECT_EQ(archived->size(), want.size() + 1);
  auto nobody = (*pg)->entries().MatchingLabels({.scope = {.all = false, .principal = "u3"}}, 100);
  ASSERT_TRUE(nobody.ok());
  EXPECT_EQ(nobody->size(), 5u);  // the public ones

  // The plan: the scope's two indexes, no scan of u2's 3 000 rows.
  const internal::pg::PgStatement st = internal::pg::MatchingLabelsStatement(as_u1, 100);
  auto plan = c.Exec("EXPLAIN (ANALYZE, COSTS OFF) " + st.sql, st.params, "explain");
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  std::string text;
  for (int i = 0; i < plan->size(); ++i) text += std::string(plan->Text(i, 0)) + "\n";
  EXPECT_EQ(text.find("Seq Scan"), std::string::npos) << text;
  EXPECT_NE(text.find("entries_by_owner_label"), std::string::npos) << text;
  EXPECT_NE(text.find("entries_public_by_label"), std::string::npos) << text;
  EXPECT_EQ(text.find("Rows Removed by Filter: 3"), std::string::npos) << text;
}

}  // namespace
}  // namespace mnemo::storage

// The raw PostgreSQL full-text anchor of `mnemo bench --backend postgres`:
// rows loaded by COPY (tabs, newlines and backslashes survive), the query's
// words OR'ed, ranked, and its schema dropped afterwards.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_fts_anchor.h"

namespace mnemo::storage {
namespace {

TEST(PgFtsAnchor, FindsAnyWordAndRanksTheRowWithMoreOfThem) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  {
    auto anchor = internal::PgFtsAnchor::Create(url, schema);
    ASSERT_TRUE(anchor.ok()) << anchor.status().ToString();
    const std::vector<std::string> texts = {"billing\tdeploy\\ment", "rollback of billing",
                                            "lunch\nmenu", "billing rollback rollback"};
    ASSERT_TRUE((*anchor)->Insert(texts, 10).ok());
    auto hits = (*anchor)->Search("rollback \"menu", 10);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    EXPECT_EQ(*hits, (std::vector<int64_t>{13, 11, 12}));
    auto one = (*anchor)->Search("-deploy", 10);  // a leading '-' is no NOT
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(*one, (std::vector<int64_t>{10}));
    auto none = (*anchor)->Search("  ", 10);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->empty());
  }
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok());
  auto left = (*conn)->Exec("SELECT count(*) FROM pg_namespace WHERE nspname = $1",
                            internal::pg::Params().Add(schema), "find the schema");
  ASSERT_TRUE(left.ok());
  EXPECT_EQ(left->Int(0, 0), 0);
}

}  // namespace
}  // namespace mnemo::storage

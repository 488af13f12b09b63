// The raw PostgreSQL full-text anchors of `mnemo bench --backend postgres`:
// rows loaded by COPY (tabs, newlines and backslashes survive), the query's
// words OR'ed, ranked, and its schema dropped afterwards; with mnemo's own
// terms, the rows a search of mnemo matches (Chinese, stemmed English).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
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
    auto anchor = internal::PgFtsAnchor::Create(url, schema, internal::PgFtsAnchor::Terms::kSimple);
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

// The texts and queries where PostgreSQL's 'simple' words and mnemo's terms
// part: unspaced Chinese (one 'simple' word per clause) and an inflected
// English form (no stemming in 'simple').
const std::vector<std::string>& PartingTexts() {
  static const std::vector<std::string> texts = {"他们在山上阻击敌人的进攻",
                                                 "She was pondering the offer", "lunch menu"};
  return texts;
}

TEST(PgFtsAnchor, MnemoTermsFindChineseAndStemmedFormsTheSimpleWordsMiss) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  using Terms = internal::PgFtsAnchor::Terms;
  auto same = internal::PgFtsAnchor::Create(url, testing::FreshPostgresSchema(), Terms::kMnemo);
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  auto simple = internal::PgFtsAnchor::Create(url, testing::FreshPostgresSchema(), Terms::kSimple);
  ASSERT_TRUE(simple.ok()) << simple.status().ToString();
  ASSERT_TRUE((*same)->Insert(PartingTexts(), 1).ok());
  ASSERT_TRUE((*simple)->Insert(PartingTexts(), 1).ok());

  for (const auto& [query, id] : std::vector<std::pair<std::string, int64_t>>{
           {"阻击 进攻", 1}, {"ponder", 2}, {"offers pondered", 2}}) {
    auto hits = (*same)->Search(query, 10);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    EXPECT_EQ(*hits, (std::vector<int64_t>{id})) << query;
    auto count = (*same)->CountMatches(query);
    ASSERT_TRUE(count.ok()) << count.status().ToString();
    EXPECT_EQ(*count, 1) << query;
    // 'simple' words: the whole Chinese clause is one word, "pondering" is
    // not "ponder".
    auto missed = (*simple)->Search(query, 10);
    ASSERT_TRUE(missed.ok()) << missed.status().ToString();
    EXPECT_TRUE(missed->empty()) << query;
    auto none = (*simple)->CountMatches(query);
    ASSERT_TRUE(none.ok());
    EXPECT_EQ(*none, 0) << query;
  }
  // Any of the terms matches (stop words dropped as mnemo drops them; the
  // order is ts_rank_cd's over the positions 1..tf mnemo's tsvector holds); a
  // query of punctuation only has no terms.
  auto lunch = (*same)->Search("menus for lunch and offers", 10);
  ASSERT_TRUE(lunch.ok()) << lunch.status().ToString();
  EXPECT_EQ(std::set<int64_t>(lunch->begin(), lunch->end()), (std::set<int64_t>{2, 3}));
  auto empty = (*same)->Search("\"\" -- ()", 10);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->empty());
}

}  // namespace
}  // namespace mnemo::storage

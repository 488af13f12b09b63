// Keyword search on PostgreSQL in one statement (pg_entry_search.h): the
// statistics kept by the writes and the pruned first try give the same hits
// and scores as SQLite on the same entries, scoped or not, after updates and
// deletes, and the first try does answer the queries it can prove; the
// statistics a node caches give the same bits until any node's write moves
// their generation.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_keyword_stats.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/temp_dir.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

// 2 400 entries: "alpha" in every one, "delta" in 2 100, "gamma" in 12 (3 of
// them lessons), "beta" in 30; two owners, a third of the rows public.
std::vector<EntryWrite> Corpus() {
  std::vector<EntryWrite> out;
  for (int i = 0; i < 2400; ++i) {
    std::string text = "alpha note " + std::to_string(i);
    if (i < 2100) text += " delta";
    if (i % 200 == 7) text += " gamma";
    if (i % 80 == 3) text += " beta beta";
    if (i % 3 == 0) text += " filler words to vary the length";
    out.push_back({.owner = i % 2 == 0 ? "u1" : "u2",
                   .key = "k" + std::to_string(i),
                   .content = text,
                   .category = i % 200 == 7 && i < 700 ? "lesson" : "core",
                   .visibility = i % 3 == 1 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 1000 + i});
  }
  return out;
}

void ExpectSame(const std::vector<KeywordHit>& pg, const std::vector<KeywordHit>& lite,
                const std::string& what) {
  ASSERT_EQ(pg.size(), lite.size()) << what;
  for (size_t i = 0; i < pg.size(); ++i) {
    EXPECT_EQ(pg[i].entry.key, lite[i].entry.key) << what << " #" << i;
    EXPECT_NEAR(pg[i].keyword_score, lite[i].keyword_score, 1e-9) << what << " #" << i;
  }
}

TEST(PostgresKeywordSearch, SameHitsAsSqliteWithThePrunedTryAndItsFallback) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto pg = internal::PostgresBackend::Open({.url = url,
                                             .schema = testing::FreshPostgresSchema(),
                                             .pool_size = 1,
                                             .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  testing::TempDir dir;
  auto lite = internal::SqliteBackend::Open({.path = dir.File("mnemo.db"), .readers = 1});
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  std::vector<EntryWrite> corpus = Corpus();
  ASSERT_TRUE((*pg)->entries().UpsertBatch(corpus).ok());
  ASSERT_TRUE((*lite)->entries().UpsertBatch(corpus).ok());
  // Rewritten, made public and deleted rows move the kept statistics.
  std::vector<EntryWrite> changes = {
      {.owner = "u1", .key = "k0", .content = "gamma gamma rewritten", .now = 9000},
      {.owner = "u2",
       .key = "k5",
       .content = "alpha note 5 delta",
       .visibility = Visibility::kPublic,
       .now = 9001}};
  for (const EntryWrite& w : changes) {
    ASSERT_TRUE((*pg)->entries().Upsert(w).ok());
    ASSERT_TRUE((*lite)->entries().Upsert(w).ok());
  }
  for (const char* key : {"k207", "k9"}) {
    for (EntryStore* store : {static_cast<EntryStore*>(&(*pg)->entries()),
                              static_cast<EntryStore*>(&(*lite)->entries())}) {
      auto e = store->FindExact("u2", TestNamespace("global"), TestKey(key));
      ASSERT_TRUE(e.ok() && e->has_value()) << key;
      ASSERT_TRUE(store->Delete((*e)->id).ok());
    }
  }
  const ReadScope everyone;
  const ReadScope u1{.all = false, .principal = "u1"};
  struct Case {
    std::string query;
    ReadScope scope;
    std::optional<std::string> category;
    bool pruned;  // answered by a pruned try
  };
  // A pruned try needs E (the rare terms) to hold the limit's 10 rows and C
  // 100 rows and 4 times E's: u1's scope holds too few gamma rows (beta's 20
  // are enough), the lesson filter leaves 3 gamma rows, and the other queries
  // have no rare term.
  const std::vector<Case> cases = {
      {"gamma alpha", everyone, {}, true},
      {"gamma delta alpha", everyone, {}, true},
      {"beta alpha delta", everyone, {}, true},
      // E = gamma's 12 rows cannot prove their hits (beta's bound is near 1),
      // but their 10th score is above alpha's bound: the second try reads
      // the rows of gamma and beta only.
      {"gamma beta alpha", everyone, {}, true},
      {"gamma delta alpha", u1, {}, false},
      {"beta alpha", u1, {}, true},
      {"gamma alpha delta", everyone, "lesson", false},
      {"alpha delta", everyone, {}, false},
      {"rewritten alpha", everyone, {}, false},
      {"nosuchword gamma alpha", u1, {}, false},
  };
  for (const Case& c : cases) {
    const KeywordQuery q{.terms = text::QueryTerms(c.query),
                         .filter = {.category = c.category, .scope = c.scope},
                         .limit = 10};
    const int64_t pruned_before = (*pg)->entries().keyword_pruned_searches();
    auto a = (*pg)->entries().KeywordSearch(q);
    auto b = (*lite)->entries().KeywordSearch(q);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_FALSE(a->empty()) << c.query;
    ExpectSame(*a, *b, c.query + (c.scope.all ? "" : " as u1"));
    // Again, with the statistics the first search cached: the same bits.
    const int64_t reads_before = (*pg)->entries().keyword_stats_reads();
    auto again = (*pg)->entries().KeywordSearch(q);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    EXPECT_EQ((*pg)->entries().keyword_stats_reads(), reads_before) << c.query;
    ASSERT_EQ(again->size(), a->size()) << c.query;
    for (size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ((*again)[i].entry.key, (*a)[i].entry.key) << c.query << " #" << i;
      EXPECT_EQ((*again)[i].keyword_score, (*a)[i].keyword_score) << c.query << " #" << i;
    }
    EXPECT_EQ((*pg)->entries().keyword_pruned_searches() - pruned_before, c.pruned ? 2 : 0)
        << c.query;
  }
}

// Long entries: their tsvector is over 2 KB, stored apart from the row
// (TOAST) or compressed, and read once per row into memory by the search
// (AddTermScores); short ones are read in place. Both give SQLite's hits and
// scores, and the cached statistics the same bits.
TEST(PostgresKeywordSearch, LongEntriesScoreAsOnSqlite) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto pg = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  testing::TempDir dir;
  auto lite = internal::SqliteBackend::Open({.path = dir.File("mnemo.db"), .readers = 1});
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  std::vector<EntryWrite> corpus;
  for (int i = 0; i < 60; ++i) {
    std::string text = "kiwi";
    for (int k = 0; k < i % 4; ++k) text += " kiwi";
    if (i % 3 == 0) text += " mango";
    // Every third entry long: 400 distinct words (a tsvector of about 5 KB).
    if (i % 3 != 1) {
      for (int w = 0; w < 400; ++w) text += " w" + std::to_string(i * 1000 + w) + "x";
    }
    corpus.push_back(
        {.owner = "u1", .key = "k" + std::to_string(i), .content = text, .now = 1000 + i});
  }
  ASSERT_TRUE((*pg)->entries().UpsertBatch(corpus).ok());
  ASSERT_TRUE((*lite)->entries().UpsertBatch(corpus).ok());
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto large = (*conn)->Exec("SELECT count(*) FROM " + internal::pg::QuoteIdentifier(schema) +
                                 ".entries WHERE pg_column_size(tsv) > 2000",
                             internal::pg::Params(), "size the tsvectors");
  ASSERT_TRUE(large.ok()) << large.status().ToString();
  EXPECT_EQ(large->Int(0, 0), 40);
  for (const char* query : {"kiwi", "mango kiwi", "w3007x kiwi", "w59399x mango"}) {
    const KeywordQuery q{
        .terms = text::QueryTerms(query), .filter = {.scope = ReadScope()}, .limit = 10};
    auto a = (*pg)->entries().KeywordSearch(q);
    auto l = (*lite)->entries().KeywordSearch(q);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(l.ok()) << l.status().ToString();
    EXPECT_FALSE(a->empty()) << query;
    ExpectSame(*a, *l, query);
    auto again = (*pg)->entries().KeywordSearch(q);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    ASSERT_EQ(again->size(), a->size()) << query;
    for (size_t i = 0; i < a->size(); ++i) {
      EXPECT_EQ((*again)[i].keyword_score, (*a)[i].keyword_score) << query << " #" << i;
    }
  }
}

// Two nodes on one schema: node A mirrors every statistic at its first
// search (one read, whatever the terms and scope); a write through node B
// moves the generation, and A's next search catches B's changes up from the
// log rows its stale statement returned (no read of its own) and scores with
// the new statistics, as SQLite after the same writes; a search with
// nothing written since reads nothing.
TEST(PostgresKeywordSearch, AnotherNodesWriteDropsTheCachedStatistics) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 1, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  testing::TempDir dir;
  auto lite = internal::SqliteBackend::Open({.path = dir.File("mnemo.db"), .readers = 1});
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  std::vector<EntryWrite> corpus = Corpus();
  corpus.resize(400);
  ASSERT_TRUE((*a)->entries().UpsertBatch(corpus).ok());
  ASSERT_TRUE((*lite)->entries().UpsertBatch(corpus).ok());
  const ReadScope u1{.all = false, .principal = "u1"};
  // `reads`: whether the search read the statistics (not cached at the
  // store's generation).
  auto check = [&](const std::string& query, const ReadScope& scope, int64_t reads,
                   const std::string& what) {
    const KeywordQuery q{.terms = text::QueryTerms(query), .filter = {.scope = scope}, .limit = 10};
    const int64_t before = (*a)->entries().keyword_stats_reads();
    auto hits = (*a)->entries().KeywordSearch(q);
    auto want = (*lite)->entries().KeywordSearch(q);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_FALSE(hits->empty()) << what;
    ExpectSame(*hits, *want, what);
    EXPECT_EQ((*a)->entries().keyword_stats_reads() - before, reads) << what;
  };
  check("gamma alpha", ReadScope{}, 1, "first search");
  check("gamma alpha", ReadScope{}, 0, "nothing written since");
  check("alpha gamma", ReadScope{}, 0, "the same terms in another order");
  check("gamma alpha", u1, 0, "another scope");
  check("beta delta", u1, 0, "other terms");
  // gamma becomes more common through B: every idf moves.
  for (int i = 0; i < 30; ++i) {
    const EntryWrite w = {.owner = i % 2 == 0 ? "u1" : "u2",
                          .key = "new" + std::to_string(i),
                          .content = "gamma gamma written through another node",
                          .visibility = Visibility::kPublic,
                          .now = 9000 + i};
    ASSERT_TRUE((*b)->entries().Upsert(w).ok());
    ASSERT_TRUE((*lite)->entries().Upsert(w).ok());
  }
  const int64_t catch_ups = (*a)->entries().keyword_stats().catch_ups();
  check("gamma alpha", ReadScope{}, 0, "after B's writes");
  EXPECT_EQ((*a)->entries().keyword_stats().catch_ups() - catch_ups, 1);
  check("gamma alpha", ReadScope{}, 0, "after B's writes, again");
  check("gamma alpha", u1, 0, "after B's writes, as u1");
  // A deletion through B moves them too.
  auto gone = (*b)->entries().FindExact("u1", TestNamespace("global"), TestKey("new0"));
  ASSERT_TRUE(gone.ok() && gone->has_value());
  ASSERT_TRUE((*b)->entries().Delete((*gone)->id).ok());
  auto lite_gone = (*lite)->entries().FindExact("u1", TestNamespace("global"), TestKey("new0"));
  ASSERT_TRUE(lite_gone.ok() && lite_gone->has_value());
  ASSERT_TRUE((*lite)->entries().Delete((*lite_gone)->id).ok());
  check("gamma alpha", u1, 0, "after B's deletion");
  EXPECT_EQ((*a)->entries().keyword_stats().catch_ups() - catch_ups, 2);
}

// A search whose statistics are not cached reads them and, when they rule
// out a pruned try, scores every matching row in the same statement; when a
// pruned try may pay, a second statement takes the statistics just read,
// unless a term cached as common said so beforehand (then one statement
// reads them and runs the tries).
// Either way, and again from the cache, the hits, their scores (to the bit)
// and whether a pruned try proved them are those of the one statement that
// weighs everything itself, scoped or not, with a filter and other limits.
TEST(PostgresKeywordSearch, AMissIsOneStatementUnlessAPrunedTryMayPay) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto pg = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  ASSERT_TRUE((*pg)->entries().UpsertBatch(Corpus()).ok());
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  internal::pg::PgConn& c = **conn;
  ASSERT_TRUE(
      c.ExecScript("SET search_path TO " + internal::pg::QuoteIdentifier(schema), "search").ok());
  const ReadScope everyone;
  const ReadScope u1{.all = false, .principal = "u1"};
  struct Case {
    std::string query;
    ReadScope scope;
    std::optional<std::string> category;
    int64_t limit;
    int64_t statements;  // of the first search
  };
  const std::vector<Case> cases = {
      // Under 100 rows outside the rarest term: no first try.
      {"gamma beta", everyone, {}, 10, 1},
      {"gamma", everyone, {}, 10, 1},
      {"alpha", everyone, {}, 10, 1},
      // Rows under 5 times the rarest term's: C cannot hold 4 times E's.
      {"alpha delta", everyone, {}, 10, 1},
      {"alpha delta", u1, {}, 3, 1},
      // A rare term and common ones: the statistics, then the pruned tries.
      {"gamma alpha", everyone, {}, 10, 2},
      {"gamma beta alpha", everyone, {}, 10, 2},
      {"beta alpha", u1, {}, 10, 2},
      {"gamma delta alpha", u1, {}, 10, 2},
      {"gamma alpha delta", everyone, "lesson", 10, 2},
      {"nosuchword gamma alpha", u1, {}, 10, 2},
      {"gamma alpha", everyone, {}, 50, 2},
  };
  for (const Case& k : cases) {
    const std::string what = k.query + (k.scope.all ? "" : " as u1") + " limit " +
                             std::to_string(k.limit) + (k.category ? " in " + *k.category : "");
    const KeywordQuery q{.terms = text::QueryTerms(k.query),
                         .filter = {.category = k.category, .scope = k.scope},
                         .limit = static_cast<int>(k.limit)};
    bool want_pruned = false;
    auto want = internal::pg::SearchEntriesWeighingAll(c, q, &want_pruned);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_FALSE(want->empty()) << what;
    internal::pg::KeywordStatsCache cache;
    for (int64_t statements : {k.statements, int64_t{1}}) {  // missed, then cached
      const int64_t before = cache.statements();
      bool pruned = !want_pruned;
      auto got = internal::pg::SearchEntries(c, q, &cache, &pruned);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ(cache.statements() - before, statements) << what;
      EXPECT_EQ(pruned, want_pruned) << what;
      ASSERT_EQ(got->size(), want->size()) << what;
      for (size_t i = 0; i < got->size(); ++i) {
        EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << what << " #" << i;
        EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << what << " #" << i;
      }
    }
    EXPECT_EQ(cache.reads(), 1) << what;
  }
  // With a common term already cached, a search of it and uncached terms
  // goes straight to the statement ready for the pruned tries: one statement.
  internal::pg::KeywordStatsCache shared;
  for (const auto& [query, statements] :
       std::vector<std::pair<std::string, int64_t>>{{"alpha", 1},
                                                    {"gamma alpha", 1},
                                                    {"beta alpha", 1},
                                                    {"gamma beta", 1},
                                                    {"beta delta", 2},
                                                    {"delta gamma", 1}}) {
    const KeywordQuery q{.terms = text::QueryTerms(query), .filter = {.scope = everyone}};
    bool want_pruned = false;
    auto want = internal::pg::SearchEntriesWeighingAll(c, q, &want_pruned);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    const int64_t before = shared.statements();
    bool pruned = !want_pruned;
    auto got = internal::pg::SearchEntries(c, q, &shared, &pruned);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(shared.statements() - before, statements) << query;
    EXPECT_EQ(pruned, want_pruned) << query;
    ASSERT_EQ(got->size(), want->size()) << query;
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << query << " #" << i;
      EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << query << " #" << i;
    }
  }
}

// A bulk write of 10 000 rows or more into a smaller table builds the text
// index anew after the merge (postgres_bulk_write.cc); into a larger one it
// fills the index's pending list. Either way the index is there afterwards,
// the notes of the keyword statistics are folded and their table emptied,
// and the searches find what SQLite finds.
TEST(PostgresKeywordSearch, LargeBatchesLeaveTheTextIndexAndTheSameHits) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto pg = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  testing::TempDir dir;
  auto lite = internal::SqliteBackend::Open({.path = dir.File("mnemo.db"), .readers = 1});
  ASSERT_TRUE(lite.ok()) << lite.status().ToString();
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto index_count = [&]() -> int64_t {
    auto rows = (*conn)->Exec(
        "SELECT count(*) FROM pg_indexes WHERE schemaname = $1 AND indexname = 'entries_tsv'",
        internal::pg::Params().Add(schema), "find the index");
    return rows.ok() ? rows->Int(0, 0) : -1;
  };
  auto batch = [](int from, int to, const std::string& word) {
    std::vector<EntryWrite> out;
    for (int i = from; i < to; ++i) {
      std::string text = "bulk row " + std::to_string(i) + " " + word;
      if (i % 500 == 1) text += " rare";
      if (i % 3 == 0) text += " common words here";
      out.push_back({.owner = i % 2 == 0 ? "u1" : "u2",
                     .key = "k" + std::to_string(i),
                     .content = text,
                     .now = 1000 + i});
    }
    return out;
  };
  const std::vector<std::vector<EntryWrite>> batches = {
      batch(0, 12000, "first"),       // into an empty table: the index is rebuilt
      batch(6000, 16000, "second")};  // half rewrites, into 12 000 rows: pending list
  const ReadScope everyone;
  for (const std::vector<EntryWrite>& b : batches) {
    ASSERT_TRUE((*pg)->entries().UpsertBatch(b).ok());
    ASSERT_TRUE((*lite)->entries().UpsertBatch(b).ok());
    EXPECT_EQ(index_count(), 1);
    // The batch's notes were folded and their table emptied by TRUNCATE: a
    // DELETE left its pages, and the planner then chose a hash join over
    // all of entry_terms for every later write's fold.
    auto delta =
        (*conn)->Exec("SELECT pg_relation_size(format('%I.entry_terms_delta', $1::text)::regclass)",
                      internal::pg::Params().Add(schema), "size the notes");
    ASSERT_TRUE(delta.ok()) << delta.status().ToString();
    EXPECT_EQ(delta->Int(0, 0), 0);
    for (const char* query : {"rare common", "rare first", "second rare row", "common words"}) {
      const KeywordQuery q{
          .terms = text::QueryTerms(query), .filter = {.scope = everyone}, .limit = 10};
      auto a = (*pg)->entries().KeywordSearch(q);
      auto l = (*lite)->entries().KeywordSearch(q);
      ASSERT_TRUE(a.ok()) << a.status().ToString();
      ASSERT_TRUE(l.ok()) << l.status().ToString();
      EXPECT_FALSE(a->empty()) << query;
      ExpectSame(*a, *l, query);
    }
  }
}

}  // namespace
}  // namespace mnemo::storage

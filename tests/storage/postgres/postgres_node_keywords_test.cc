// The node's keyword index on PostgreSQL (pg_node_search.h): a search
// scored in the process gives the hits and scores (to the bit) of the
// server's statement, scoped or not, with archived rows, system namespaces,
// Chinese and Arabic; another node's writes, deletes, visibility changes and
// archiving are seen by the next search, as a process opened afterwards sees
// them; a search with nothing written since is one round trip; a log
// trimmed past a node's watermark, or a bulk write, reloads the index.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_node_search.h"
#include "storage/postgres/sql/pg_schema.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using internal::PostgresBackend;

// `n` entries (600 unless said) over three owners, a third public, some archived, some in a
// system namespace, with English, Chinese and Arabic words.
std::vector<EntryWrite> Corpus(int n = 600) {
  const std::vector<std::string> words = {"alpha",  "delta", "gamma",  "记忆",
                                          "数据库", "ذاكرة", "بيانات", "beta"};
  std::vector<EntryWrite> out;
  for (int i = 0; i < n; ++i) {
    std::string text = "note " + std::to_string(i);
    for (size_t w = 0; w < words.size(); ++w) {
      if (i % (w + 2) == 0) text += " " + words[w];
      if (i % (w + 5) == 1) text += " " + words[w] + " " + words[w];
    }
    if (i % 4 == 0) text += " some filler words to vary the length of it";
    out.push_back({.owner = "u" + std::to_string(i % 3),
                   .ns = i % 50 == 7 ? "tool-x" : "global",
                   .key = "k" + std::to_string(i),
                   .content = text,
                   .visibility = i % 3 == 1 ? Visibility::kPublic : Visibility::kPrivate,
                   // Some rows written at the same time: ties broken by key.
                   .now = 1000 + i / 4,
                   .archived = i % 17 == 5});
  }
  return out;
}

const std::vector<std::string> kQueries = {
    "alpha", "gamma delta",      "beta alpha gamma", "记忆 数据库",      "ذاكرة بيانات alpha",
    "note",  "nosuchword gamma", "filler beta",      "length delta 记忆"};

Result<std::unique_ptr<PostgresBackend>> Open(const std::string& url, const std::string& schema,
                                              const std::string& keyword_index = "node") {
  return PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = keyword_index});
}

// The hits of `node` and `want` for every query, scope, archive filter and
// limit: the same keys and the same scores, to the bit.
void ExpectSameSearches(PostgresBackend& node, PostgresBackend& want, const std::string& what) {
  const std::vector<ReadScope> scopes = {ReadScope{}, ReadScope{.all = false, .principal = "u1"},
                                         ReadScope{.all = false, .principal = "nobody"}};
  for (const std::string& query : kQueries) {
    for (const ReadScope& scope : scopes) {
      for (const bool archived : {false, true}) {
        for (const int limit : {1, 10, 1000}) {
          const KeywordQuery q{.terms = text::QueryTerms(query),
                               .filter = {.include_archived = archived, .scope = scope},
                               .limit = limit};
          const std::string where =
              what + ": " + query + " as " + (scope.all ? "everyone" : scope.principal) +
              (archived ? " with archived" : "") + " limit " + std::to_string(limit);
          auto got = node.entries().KeywordSearch(q);
          auto expected = want.entries().KeywordSearch(q);
          ASSERT_TRUE(got.ok()) << got.status().ToString();
          ASSERT_TRUE(expected.ok()) << expected.status().ToString();
          ASSERT_EQ(got->size(), expected->size()) << where;
          for (size_t i = 0; i < got->size(); ++i) {
            EXPECT_EQ((*got)[i].entry.key, (*expected)[i].entry.key) << where << " #" << i;
            EXPECT_EQ((*got)[i].entry.content, (*expected)[i].entry.content) << where;
            EXPECT_EQ((*got)[i].keyword_score, (*expected)[i].keyword_score) << where << " #" << i;
            EXPECT_EQ((*got)[i].label, (*expected)[i].label) << where << " #" << i;
          }
        }
      }
    }
  }
}

TEST(PostgresNodeKeywords, SameHitsAndScoresAsTheServersStatement) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto node = Open(url, schema);
  auto server = Open(url, schema, "server");
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  ASSERT_NE((*node)->entries().node_keywords(), nullptr);
  ASSERT_EQ((*server)->entries().node_keywords(), nullptr);
  ASSERT_TRUE((*node)->entries().UpsertBatch(Corpus()).ok());
  // Rewritten, deleted and archived rows, through the node itself.
  ASSERT_TRUE((*node)
                  ->entries()
                  .Upsert({.owner = "u1", .key = "k4", .content = "gamma gamma 记忆", .now = 9000})
                  .ok());
  auto gone = (*node)->entries().FindExact("u0", TestNamespace("global"), TestKey("k3"));
  ASSERT_TRUE(gone.ok() && gone->has_value());
  ASSERT_TRUE((*node)->entries().Delete((*gone)->id).ok());
  ExpectSameSearches(**node, **server, "after the writes");
  EXPECT_GT((*node)->entries().node_keywords()->searches(), 0);
  EXPECT_EQ((*node)->entries().node_keywords()->rows(), 599U);
}

// A write, a delete, a visibility change and an archiving through node A
// are each seen by node B's next search, with the hits and scores of a
// process opened afterwards (its index loaded then) and of the server's
// statement. Nothing written since: one round trip per search.
TEST(PostgresNodeKeywords, AnotherNodesChangesAreSeenByTheNextSearch) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<EntryWrite> corpus = Corpus();
  corpus.resize(200);
  ASSERT_TRUE((*a)->entries().UpsertBatch(corpus).ok());
  auto server = Open(url, schema, "server");
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  internal::pg::NodeKeywords& index = *(*b)->entries().node_keywords();
  const KeywordQuery q{.terms = text::QueryTerms("gamma alpha"), .filter = {}, .limit = 10};
  ASSERT_TRUE((*b)->entries().KeywordSearch(q).ok());
  EXPECT_EQ(index.loads(), 1);
  // Nothing written since: each search is one round trip, and no statement
  // of the server's path.
  const int64_t trips = index.round_trips();
  const int64_t statements = (*b)->entries().keyword_stats().statements();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*b)->entries().KeywordSearch(q).ok());
  EXPECT_EQ(index.round_trips() - trips, 5);
  EXPECT_EQ((*b)->entries().keyword_stats().statements(), statements);

  auto through_a = [&](const std::function<void()>& change, const std::string& what) {
    change();
    const int64_t applied = index.changes_applied();
    const int64_t before = index.round_trips();
    auto hits = (*b)->entries().KeywordSearch(q);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    // The first round trip found the change, the second the hits.
    EXPECT_EQ(index.round_trips() - before, 2) << what;
    EXPECT_GT(index.changes_applied(), applied) << what;
    EXPECT_EQ(index.loads(), 1) << what;
    auto fresh = Open(url, schema);
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    ExpectSameSearches(**b, **fresh, what + ", against a new process");
    ExpectSameSearches(**b, **server, what + ", against the server");
  };
  through_a(
      [&] {
        ASSERT_TRUE((*a)->entries()
                        .Upsert({.owner = "u2",
                                 .key = "new",
                                 .content = "gamma gamma alpha written through A",
                                 .visibility = Visibility::kPublic,
                                 .now = 9000})
                        .ok());
      },
      "a write");
  through_a(
      [&] {
        auto e = (*a)->entries().FindExact("u0", TestNamespace("global"), TestKey("k6"));
        ASSERT_TRUE(e.ok() && e->has_value());
        ASSERT_TRUE((*a)->entries().Delete((*e)->id).ok());
      },
      "a delete");
  through_a(
      [&] {
        ASSERT_TRUE((*a)->entries()
                        .Upsert({.owner = "u1",
                                 .key = "k4",
                                 .content = "alpha gamma made public",
                                 .visibility = Visibility::kPublic,
                                 .now = 9001})
                        .ok());
      },
      "a visibility change");
  through_a(
      [&] {
        auto e = (*a)->entries().FindExact("u0", TestNamespace("global"), TestKey("k12"));
        ASSERT_TRUE(e.ok() && e->has_value());
        auto counts =
            (*a)->entries().ApplyHygiene(std::vector<std::string>{(*e)->id},
                                         [](const Entry&) { return HygieneAction::kArchive; });
        ASSERT_TRUE(counts.ok() && counts->archived == 1);
      },
      "an archiving");
}

// A node whose watermark the log was trimmed past reloads its index, and
// so does one that finds a bulk write's reload row; either way its hits
// are those of the server's statement.
TEST(PostgresNodeKeywords, ATrimmedLogOrABulkWriteReloads) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  std::vector<EntryWrite> corpus = Corpus();
  corpus.resize(100);
  ASSERT_TRUE((*a)->entries().UpsertBatch(corpus).ok());
  auto server = Open(url, schema, "server");
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  internal::pg::NodeKeywords& index = *(*b)->entries().node_keywords();
  const KeywordQuery q{.terms = text::QueryTerms("gamma alpha"), .filter = {}, .limit = 10};
  ASSERT_TRUE((*b)->entries().KeywordSearch(q).ok());
  ASSERT_EQ(index.loads(), 1);
  // Keep 4 changes: 12 writes trim the log past B's watermark.
  auto conn = internal::pg::PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ASSERT_TRUE((*conn)
                  ->ExecScript("UPDATE " + internal::pg::QuoteIdentifier(schema) +
                                   ".entry_changes_window SET kept = 4",
                               "keep less")
                  .ok());
  for (int i = 0; i < 12; ++i) {
    auto written = (*a)->entries().Upsert({.owner = "u1",
                                           .key = "t" + std::to_string(i),
                                           .content = "gamma alpha trimmed " + std::to_string(i),
                                           .now = 9000 + i});
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }
  auto trimmed = (*conn)->Exec(
      "SELECT trimmed FROM " + internal::pg::QuoteIdentifier(schema) + ".entry_changes_window",
      "read the trim");
  ASSERT_TRUE(trimmed.ok()) << trimmed.status().ToString();
  EXPECT_GT(trimmed->Int(0, 0), index.watermark());
  ExpectSameSearches(**b, **server, "after the trim");
  EXPECT_EQ(index.loads(), 2);
  // A bulk write logs one row: reload.
  std::vector<EntryWrite> bulk = Corpus(1200);
  for (EntryWrite& w : bulk) w.key += "-bulk";
  ASSERT_TRUE((*a)->entries().UpsertBatch(bulk).ok());
  ExpectSameSearches(**b, **server, "after a bulk write");
  EXPECT_EQ(index.loads(), 3);
  EXPECT_EQ(index.rows(), 100U + 12U + 1200U);
}

// The read of the vector change log a search makes first catches the index
// up in the same round trip: the keyword search after another node's write
// is then one round trip, with the hits of the server's statement.
TEST(PostgresNodeKeywords, AReadOfTheVectorLogCatchesTheIndexUp) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE((*a)->entries().UpsertBatch(Corpus(100)).ok());
  auto server = Open(url, schema, "server");
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  internal::pg::NodeKeywords& index = *(*b)->entries().node_keywords();
  const KeywordQuery q{.terms = text::QueryTerms("gamma alpha"), .filter = {}, .limit = 10};
  ASSERT_TRUE((*b)->entries().KeywordSearch(q).ok());
  ASSERT_TRUE((*a)->entries()
                  .Upsert({.owner = "u1", .key = "v", .content = "gamma gamma", .now = 9000})
                  .ok());
  const int64_t applied = index.changes_applied();
  ASSERT_TRUE((*b)->entries().VectorChangesSince("sig", 0, 100).ok());
  EXPECT_EQ(index.changes_applied() - applied, 1);
  const int64_t trips = index.round_trips();
  auto got = (*b)->entries().KeywordSearch(q);
  auto want = (*server)->entries().KeywordSearch(q);
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(index.round_trips() - trips, 1);
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << i;
    EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << i;
  }
}

// postgres.keyword_index other than node or server is refused, naming both.
TEST(PostgresNodeKeywords, AnUnknownKeywordIndexIsRefused) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto bad = Open(url, testing::FreshPostgresSchema(), "local");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("postgres.keyword_index \"local\" is unknown: use node or "
                                        "server"),
            std::string::npos)
      << bad.status().ToString();
}

}  // namespace
}  // namespace mnemo::storage

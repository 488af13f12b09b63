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

Result<std::unique_ptr<PostgresBackend>> Open(
    const std::string& url, const std::string& schema,
    KeywordIndexPlace keyword_index = KeywordIndexPlace::kNode) {
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

// The rows `node` and `want` fetch by label for a hybrid search's vector
// side (FetchWithVectors) for every query, scope and archive filter: the
// hits and their labels of the keyword side's widest search and some rows
// holding none of the terms. The same rows, keys and scores, to the bit.
void ExpectSameFetches(PostgresBackend& node, PostgresBackend& want, const std::string& what) {
  const std::vector<ReadScope> scopes = {ReadScope{}, ReadScope{.all = false, .principal = "u1"},
                                         ReadScope{.all = false, .principal = "nobody"}};
  for (const std::string& query : kQueries) {
    for (const ReadScope& scope : scopes) {
      for (const bool archived : {false, true}) {
        const EntryFilter filter{.include_archived = archived, .scope = scope};
        const std::vector<std::string> terms = text::QueryTerms(query);
        auto found = want.entries().KeywordSearch(
            {.terms = terms, .filter = {.include_archived = true}, .limit = 1000});
        ASSERT_TRUE(found.ok()) << found.status().ToString();
        std::vector<Label> labels;
        for (const KeywordHit& h : *found) labels.push_back(h.label);
        for (Label l = 1; l <= 40; ++l) labels.push_back(l);
        const std::string where = what + ": " + query + " as " +
                                  (scope.all ? "everyone" : scope.principal) +
                                  (archived ? " with archived" : "");
        auto got = node.entries().FetchWithVectors(labels, filter, terms, "sig", {}, false);
        auto expected = want.entries().FetchWithVectors(labels, filter, terms, "sig", {}, false);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        ASSERT_TRUE(expected.ok()) << expected.status().ToString();
        ASSERT_EQ(got->hits.size(), expected->hits.size()) << where;
        for (size_t i = 0; i < got->hits.size(); ++i) {
          EXPECT_EQ(got->hits[i].label, expected->hits[i].label) << where << " #" << i;
          EXPECT_EQ(got->hits[i].entry.key, expected->hits[i].entry.key) << where << " #" << i;
          EXPECT_EQ(got->hits[i].entry.content, expected->hits[i].entry.content) << where;
          EXPECT_EQ(got->hits[i].keyword_score, expected->hits[i].keyword_score)
              << where << " #" << i;
        }
      }
    }
  }
}

const KeywordQuery kGammaAlpha{.terms = text::QueryTerms("gamma alpha"), .filter = {}, .limit = 10};

// Two nodes on one fresh schema, `Corpus(n)` written through A, a process
// scoring on the server, and B's first search made (its index loaded).
class PostgresNodeKeywords : public ::testing::Test {
 protected:
  void Start(int n) {
    url_ = testing::PostgresTestUrl();
    if (url_.empty()) GTEST_SKIP() << "no PostgreSQL server";
    testing::TwoPostgresNodes nodes = testing::OpenTwoPostgresNodes(url_);
    ASSERT_TRUE(nodes.a.ok()) << nodes.a.status().ToString();
    ASSERT_TRUE(nodes.b.ok()) << nodes.b.status().ToString();
    schema_ = nodes.schema;
    a_ = std::move(nodes.a).value();
    b_ = std::move(nodes.b).value();
    ASSERT_TRUE(a_->entries().UpsertBatch(Corpus(n)).ok());
    auto server = Open(url_, schema_, KeywordIndexPlace::kServer);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ASSERT_NE(b_->entries().node_keywords(), nullptr);
    ASSERT_EQ(server_->entries().node_keywords(), nullptr);
    ASSERT_TRUE(b_->entries().KeywordSearch(kGammaAlpha).ok());
    ASSERT_EQ(index().loads(), 1);
  }
  internal::pg::NodeKeywords& index() { return *b_->entries().node_keywords(); }

  std::string url_;
  std::string schema_;
  std::unique_ptr<PostgresBackend> a_;
  std::unique_ptr<PostgresBackend> b_;
  std::unique_ptr<PostgresBackend> server_;
};

// Rewritten, deleted and archived rows, through the searching node itself.
TEST_F(PostgresNodeKeywords, SameHitsAndScoresAsTheServersStatement) {
  ASSERT_NO_FATAL_FAILURE(Start(600));
  ASSERT_TRUE(b_->entries()
                  .Upsert({.owner = "u1", .key = "k4", .content = "gamma gamma 记忆", .now = 9000})
                  .ok());
  auto gone = b_->entries().FindExact("u0", TestNamespace("global"), TestKey("k3"));
  ASSERT_TRUE(gone.ok() && gone->has_value());
  ASSERT_TRUE(b_->entries().Delete((*gone)->id).ok());
  ExpectSameSearches(*b_, *server_, "after the writes");
  ExpectSameFetches(*b_, *server_, "after the writes");
  EXPECT_GT(index().searches(), 0);
  EXPECT_EQ(index().rows(), 599U);
}

// A write, a delete, a visibility change and an archiving through node A
// are each seen by node B's next search, with the hits and scores of a
// process opened afterwards (its index loaded then) and of the server's
// statement. Nothing written since: one round trip per search.
TEST_F(PostgresNodeKeywords, AnotherNodesChangesAreSeenByTheNextSearch) {
  ASSERT_NO_FATAL_FAILURE(Start(200));
  // Nothing written since: each search is one round trip, and no statement
  // of the server's path.
  const int64_t trips = index().round_trips();
  const int64_t statements = b_->entries().keyword_stats().statements();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(b_->entries().KeywordSearch(kGammaAlpha).ok());
  EXPECT_EQ(index().round_trips() - trips, 5);
  EXPECT_EQ(b_->entries().keyword_stats().statements(), statements);

  auto through_a = [&](const std::function<void()>& change, const std::string& what) {
    change();
    const int64_t applied = index().changes_applied();
    const int64_t before = index().round_trips();
    auto hits = b_->entries().KeywordSearch(kGammaAlpha);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    // The first round trip found the change; a second read the rows it
    // moved into the top (AWriteBesideTheTopTakesOneRoundTrip otherwise).
    EXPECT_GE(index().round_trips() - before, 1) << what;
    EXPECT_LE(index().round_trips() - before, 2) << what;
    EXPECT_GT(index().changes_applied(), applied) << what;
    EXPECT_EQ(index().loads(), 1) << what;
    auto fresh = Open(url_, schema_);
    ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
    ExpectSameSearches(*b_, **fresh, what + ", against a new process");
    ExpectSameSearches(*b_, *server_, what + ", against the server");
    ExpectSameFetches(*b_, *server_, what + ", against the server");
  };
  through_a(
      [&] {
        ASSERT_TRUE(a_->entries()
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
        auto e = a_->entries().FindExact("u0", TestNamespace("global"), TestKey("k6"));
        ASSERT_TRUE(e.ok() && e->has_value());
        ASSERT_TRUE(a_->entries().Delete((*e)->id).ok());
      },
      "a delete");
  through_a(
      [&] {
        ASSERT_TRUE(a_->entries()
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
        auto e = a_->entries().FindExact("u0", TestNamespace("global"), TestKey("k12"));
        ASSERT_TRUE(e.ok() && e->has_value());
        auto counts =
            a_->entries().ApplyHygiene(std::vector<std::string>{(*e)->id},
                                       [](const Entry&) { return HygieneAction::kArchive; });
        ASSERT_TRUE(counts.ok() && counts->archived == 1);
      },
      "an archiving");
}

// A node whose watermark the log was trimmed past reloads its index, and
// so does one that finds a bulk write's reload row; either way its hits
// are those of the server's statement.
TEST_F(PostgresNodeKeywords, ATrimmedLogOrABulkWriteReloads) {
  ASSERT_NO_FATAL_FAILURE(Start(100));
  // Keep 4 changes: 12 writes trim the log past B's watermark.
  auto conn = internal::pg::PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ASSERT_TRUE((*conn)
                  ->ExecScript("UPDATE " + internal::pg::QuoteIdentifier(schema_) +
                                   ".entry_changes_window SET kept = 4",
                               "keep less")
                  .ok());
  for (int i = 0; i < 12; ++i) {
    auto written = a_->entries().Upsert({.owner = "u1",
                                         .key = "t" + std::to_string(i),
                                         .content = "gamma alpha trimmed " + std::to_string(i),
                                         .now = 9000 + i});
    ASSERT_TRUE(written.ok()) << written.status().ToString();
  }
  auto trimmed = (*conn)->Exec(
      "SELECT trimmed FROM " + internal::pg::QuoteIdentifier(schema_) + ".entry_changes_window",
      "read the trim");
  ASSERT_TRUE(trimmed.ok()) << trimmed.status().ToString();
  EXPECT_GT(trimmed->Int(0, 0), index().watermark());
  ExpectSameSearches(*b_, *server_, "after the trim");
  EXPECT_EQ(index().loads(), 2);
  // A bulk write logs one row: reload.
  std::vector<EntryWrite> bulk = Corpus(1200);
  for (EntryWrite& w : bulk) w.key += "-bulk";
  ASSERT_TRUE(a_->entries().UpsertBatch(bulk).ok());
  ExpectSameSearches(*b_, *server_, "after a bulk write");
  ExpectSameFetches(*b_, *server_, "after a bulk write");
  EXPECT_EQ(index().loads(), 3);
  EXPECT_EQ(index().rows(), 100U + 12U + 1200U);
}

// The read of the vector change log a search makes first catches the index
// up in the same round trip: the keyword search after another node's write
// is then one round trip, with the hits of the server's statement.
TEST_F(PostgresNodeKeywords, AReadOfTheVectorLogCatchesTheIndexUp) {
  ASSERT_NO_FATAL_FAILURE(Start(100));
  ASSERT_TRUE(a_->entries()
                  .Upsert({.owner = "u1", .key = "v", .content = "gamma gamma", .now = 9000})
                  .ok());
  const int64_t applied = index().changes_applied();
  ASSERT_TRUE(b_->entries().VectorChangesSince("sig", 0, 100).ok());
  EXPECT_EQ(index().changes_applied() - applied, 1);
  const int64_t trips = index().round_trips();
  auto got = b_->entries().KeywordSearch(kGammaAlpha);
  auto want = server_->entries().KeywordSearch(kGammaAlpha);
  ASSERT_TRUE(got.ok() && want.ok());
  EXPECT_EQ(index().round_trips() - trips, 1);
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << i;
    EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << i;
  }
}

// Another node's write that moves no row into the top: the search that
// finds it in the log catches the index up and answers from the rows read
// in the same round trip, the server's hits.
TEST_F(PostgresNodeKeywords, AWriteBesideTheTopTakesOneRoundTrip) {
  ASSERT_NO_FATAL_FAILURE(Start(200));
  ASSERT_TRUE(a_->entries()
                  .Upsert({.owner = "u2", .key = "beside", .content = "beta words", .now = 9000})
                  .ok());
  const int64_t applied = index().changes_applied();
  const int64_t trips = index().round_trips();
  auto got = b_->entries().KeywordSearch(kGammaAlpha);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(index().round_trips() - trips, 1);
  EXPECT_EQ(index().changes_applied() - applied, 1);
  auto want = server_->entries().KeywordSearch(kGammaAlpha);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << i;
    EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << i;
  }
  ExpectSameSearches(*b_, *server_, "after a write beside the top");
}

// A hybrid search's vector-side candidates are weighed by the node's index,
// after another node's write too: one round trip (the log read with the
// rows), no statement weighing on the server, the server's rows and scores.
TEST_F(PostgresNodeKeywords, TheVectorSidesCandidatesAreWeighedByTheIndex) {
  ASSERT_NO_FATAL_FAILURE(Start(100));
  ASSERT_TRUE(a_->entries()
                  .Upsert({.owner = "u0", .key = "w", .content = "gamma alpha alpha", .now = 9000})
                  .ok());
  const std::vector<Label> labels = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 101};
  const int64_t statements = b_->entries().keyword_stats().statements();
  const int64_t applied = index().changes_applied();
  auto got = b_->entries().FetchWithVectors(labels, {}, kGammaAlpha.terms, "sig", {}, false);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(index().changes_applied() - applied, 1);
  EXPECT_EQ(index().weighed_fetches(), 1);
  EXPECT_EQ(index().fetches_left(), 0);
  EXPECT_EQ(b_->entries().keyword_stats().statements(), statements);
  auto want = server_->entries().FetchWithVectors(labels, {}, kGammaAlpha.terms, "sig", {}, false);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->hits.size(), want->hits.size());
  EXPECT_GE(got->hits.size(), 10U);
  int scored = 0;
  for (size_t i = 0; i < got->hits.size(); ++i) {
    EXPECT_EQ(got->hits[i].entry.key, want->hits[i].entry.key) << i;
    EXPECT_EQ(got->hits[i].keyword_score, want->hits[i].keyword_score) << i;
    scored += got->hits[i].keyword_score > 0 ? 1 : 0;
  }
  EXPECT_GT(scored, 0);
  EXPECT_LT(scored, static_cast<int>(labels.size()));
}

// A fetch whose rows are older than the index by the time it is weighed
// (another search caught the index up meanwhile) is weighed still when the
// changes since touched none of its rows (the server's scores of the later
// snapshot, whose rows they are too), and left to the server when one did.
TEST_F(PostgresNodeKeywords, ARowChangedSinceAFetchLeavesItToTheServer) {
  ASSERT_NO_FATAL_FAILURE(Start(100));
  auto conn = internal::pg::PgConn::Connect(url_);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  ASSERT_TRUE(
      (*conn)
          ->ExecScript("SET search_path TO " + internal::pg::QuoteIdentifier(schema_), "path")
          .ok());
  auto top = server_->entries().KeywordSearch(kGammaAlpha);
  ASSERT_TRUE(top.ok() && top->size() == 10U);
  std::vector<Label> labels;
  for (const KeywordHit& h : *top) labels.push_back(h.label);
  // Fetched, then a write through A, then B's search catches the index up.
  auto weigh_after = [&](const EntryWrite& write) -> std::optional<std::vector<KeywordHit>> {
    auto fetch = index().FetchStatements(labels, {});
    EXPECT_TRUE(fetch.has_value());
    if (!fetch) return std::nullopt;
    const internal::pg::PgStatement statements[] = {fetch->changes, fetch->rows};
    auto rows = (*conn)->ExecPipeline(statements, "fetch");
    EXPECT_TRUE(rows.ok() && rows->size() == 2U);
    if (!rows.ok() || rows->size() != 2U) return std::nullopt;
    EXPECT_TRUE(a_->entries().Upsert(write).ok());
    EXPECT_TRUE(b_->entries().KeywordSearch(kGammaAlpha).ok());
    EXPECT_GT(index().watermark(), fetch->from);
    auto hits =
        index().WeighFetched(**conn, *fetch, (*rows)[0], (*rows)[1], labels, kGammaAlpha.terms, {});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::nullopt;
  };
  auto beside = weigh_after({.owner = "u2", .key = "beside", .content = "beta", .now = 9000});
  ASSERT_TRUE(beside.has_value());
  auto want = server_->entries().FetchWithVectors(labels, {}, kGammaAlpha.terms, "sig", {}, false);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(beside->size(), want->hits.size());
  for (size_t i = 0; i < beside->size(); ++i) {
    EXPECT_EQ((*beside)[i].entry.key, want->hits[i].entry.key) << i;
    EXPECT_EQ((*beside)[i].keyword_score, want->hits[i].keyword_score) << i;
  }
  EXPECT_EQ(index().fetches_left(), 0);
  const Entry& first = (*top)[0].entry;
  EXPECT_FALSE(weigh_after({.owner = first.owner,
                            .ns = first.ns,
                            .key = first.key,
                            .content = "gamma rewritten",
                            .now = 9001})
                   .has_value());
  EXPECT_EQ(index().fetches_left(), 1);
}

// The names of postgres.keyword_index, and another refused naming both.
TEST(KeywordIndexPlace, TheTwoNamesParseAndAnotherIsRefused) {
  EXPECT_EQ(ParseKeywordIndexPlace("node").value(), KeywordIndexPlace::kNode);
  EXPECT_EQ(ParseKeywordIndexPlace("server").value(), KeywordIndexPlace::kServer);
  EXPECT_EQ(KeywordIndexPlaceName(KeywordIndexPlace::kServer), "server");
  for (const std::string bad : {"local", "", "Node"}) {
    auto r = ParseKeywordIndexPlace(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().field(), "postgres.keyword_index");
    EXPECT_EQ(r.status().message(),
              "postgres.keyword_index \"" + bad + "\" is unknown: use node or server");
  }
}

}  // namespace
}  // namespace mnemo::storage

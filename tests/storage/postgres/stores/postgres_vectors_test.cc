// A hybrid search's candidate fetch on PostgreSQL (postgres_vectors.cc,
// FetchWithVectors) weighs its rows with the node's statistics of the
// query's terms when it holds them fresh: one statement that reads no
// entry_terms row, with scores to the bit those of the statement weighing
// from entry_terms (FetchByLabels); after another process's write it falls
// back to that statement. And a read of the vector change log catches the
// node's keyword statistics up in the same round trip.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

// 600 entries: "alpha" in every one, "gamma" in 30, "delta" in 500, a word
// of each row's own; owners u1 and u2, a third of the rows public.
std::vector<EntryWrite> Corpus() {
  std::vector<EntryWrite> out;
  for (int i = 0; i < 600; ++i) {
    std::string text = "alpha note w" + std::to_string(i);
    if (i < 500) text += " delta";
    if (i % 20 == 7) text += " gamma";
    if (i % 3 == 0) text += " filler words to vary the length";
    out.push_back({.owner = i % 2 == 0 ? "u1" : "u2",
                   .key = "k" + std::to_string(i),
                   .content = text,
                   .visibility = i % 3 == 1 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 1000 + i});
  }
  return out;
}

const ReadScope kEveryone;
const ReadScope kU1{.all = false, .principal = "u1"};

// The fetch of `labels` for `text` in `scope` gives the rows and scores (to
// the bit) of FetchByLabels, which weighs from entry_terms in its own
// statement.
void ExpectSameAsWeighingOnTheServer(internal::PostgresEntryStore& store,
                                     const std::vector<Label>& labels, const std::string& text,
                                     const ReadScope& scope, const std::string& what) {
  const EntryFilter filter{.scope = scope};
  const std::vector<std::string> terms = text::QueryTerms(text);
  auto got = store.FetchWithVectors(labels, filter, terms, "sig", {}, /*with_watermark=*/false);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  auto want = store.FetchByLabels(labels, filter, terms);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->hits.size(), want->size()) << what;
  int scored = 0;
  for (size_t i = 0; i < want->size(); ++i) {
    EXPECT_EQ(got->hits[i].label, (*want)[i].label) << what << " #" << i;
    EXPECT_EQ(got->hits[i].entry.key, (*want)[i].entry.key) << what << " #" << i;
    EXPECT_EQ(got->hits[i].keyword_score, (*want)[i].keyword_score) << what << " #" << i;
    if ((*want)[i].keyword_score > 0) ++scored;
  }
  EXPECT_GT(scored, 0) << what;
}

TEST(PostgresVectors, AFetchWeighsWithTheNodesFreshStatisticsAndFallsBackWhenStale) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 1, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  internal::PostgresEntryStore& store = (*a)->entries();
  ASSERT_TRUE(store.UpsertBatch(Corpus()).ok());
  auto labels = store.MatchingLabels({.scope = kEveryone}, 1000);
  ASSERT_TRUE(labels.ok()) << labels.status().ToString();
  ASSERT_EQ(labels->size(), 600u);
  // The keyword search of the hybrid search loads the node's statistics.
  ASSERT_TRUE(
      store.KeywordSearch({.terms = text::QueryTerms("gamma"), .filter = {}, .limit = 10}).ok());
  const int64_t loads = store.keyword_stats().loads();

  // Fresh: one statement, no statistics read, whatever the scope or terms.
  for (const auto& [text, scope] :
       std::vector<std::pair<std::string, ReadScope>>{{"gamma alpha", kEveryone},
                                                      {"delta w7 nosuchword", kU1},
                                                      {"filler gamma w27", kEveryone}}) {
    const int64_t statements = store.keyword_stats().statements();
    const int64_t reads = store.keyword_stats().reads();
    auto got = store.FetchWithVectors(*labels, {.scope = scope}, text::QueryTerms(text), "sig", {},
                                      /*with_watermark=*/false);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ(store.keyword_stats().statements() - statements, 1) << text;
    EXPECT_EQ(store.keyword_stats().reads() - reads, 0) << text;
    ExpectSameAsWeighingOnTheServer(store, *labels, text, scope, text);
  }
  EXPECT_EQ(store.keyword_stats().loads(), loads);
  // Nothing to weigh (no searchable term): the one statement, every score 0.
  {
    const int64_t statements = store.keyword_stats().statements();
    const std::vector<std::string> none = {""};
    auto got = store.FetchWithVectors(*labels, {.scope = kU1}, none, "sig", {}, false);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    auto want = store.FetchByLabels(*labels, {.scope = kU1}, none);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    ASSERT_EQ(got->hits.size(), want->size());
    ASSERT_FALSE(want->empty());
    for (size_t i = 0; i < want->size(); ++i) {
      EXPECT_EQ(got->hits[i].label, (*want)[i].label);
      EXPECT_EQ(got->hits[i].keyword_score, 0.0);
    }
    EXPECT_EQ(store.keyword_stats().statements(), statements);
  }

  // Another process's writes move the generation: the fetch finds its
  // statistics stale in its snapshot and weighs on the server instead.
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*b)->entries()
                    .Upsert({.owner = "u1",
                             .key = "new" + std::to_string(i),
                             .content = "gamma gamma epsilon new words",
                             .visibility = Visibility::kPublic,
                             .now = 9000 + i})
                    .ok());
  }
  labels = store.MatchingLabels({.scope = kEveryone}, 1000);
  ASSERT_TRUE(labels.ok());
  ASSERT_EQ(labels->size(), 603u);
  const int64_t statements = store.keyword_stats().statements();
  const int64_t reads = store.keyword_stats().reads();
  ExpectSameAsWeighingOnTheServer(store, *labels, "gamma epsilon alpha", kEveryone,
                                  "after B's writes");
  EXPECT_EQ(store.keyword_stats().statements() - statements, 2);
  EXPECT_EQ(store.keyword_stats().reads() - reads, 1);

  // The next keyword search catches the mirror up; the fetch is one
  // statement again.
  ASSERT_TRUE(
      store.KeywordSearch({.terms = text::QueryTerms("epsilon"), .filter = {}, .limit = 10}).ok());
  const int64_t caught_up = store.keyword_stats().statements();
  const int64_t caught_up_reads = store.keyword_stats().reads();
  ExpectSameAsWeighingOnTheServer(store, *labels, "gamma epsilon alpha", kU1, "caught up");
  EXPECT_EQ(store.keyword_stats().statements() - caught_up, 1);
  EXPECT_EQ(store.keyword_stats().reads() - caught_up_reads, 0);
}

// A search through a node beside another node's writes reads the vector
// change log before its keyword statement (SearchService); that read brings
// the node's keyword statistics up to those writes in the same round trip,
// so the keyword statement is one, current, with the scores to the bit of a
// process that loaded its statistics after the writes. When they are
// current already the read applies nothing.
TEST(PostgresVectors, AReadOfTheVectorLogCatchesTheKeywordStatisticsUp) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 1, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  internal::PostgresEntryStore& store = (*a)->entries();
  ASSERT_TRUE(store.UpsertBatch(Corpus()).ok());
  const KeywordQuery query{.terms = text::QueryTerms("gamma epsilon"), .filter = {}, .limit = 10};
  ASSERT_TRUE(store.KeywordSearch(query).ok());  // loads the mirror
  internal::pg::KeywordStatsCache& stats = store.keyword_stats();
  const int64_t loads = stats.loads();

  // Current: the read applies nothing.
  int64_t catch_ups = stats.catch_ups();
  ASSERT_TRUE(store.VectorChangesSince("sig", 0, 100).ok());
  EXPECT_EQ(stats.catch_ups(), catch_ups);

  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*b)->entries()
                    .Upsert({.owner = "u1",
                             .key = "new" + std::to_string(i),
                             .content = "gamma gamma epsilon new words",
                             .visibility = Visibility::kPublic,
                             .now = 9000 + i})
                    .ok());
  }
  catch_ups = stats.catch_ups();
  ASSERT_TRUE(store.VectorChangesSince("sig", 0, 100).ok());
  EXPECT_EQ(stats.catch_ups(), catch_ups + 1);  // from the rows of that round trip
  EXPECT_EQ(stats.loads(), loads);              // the log's rows, not a reload

  const int64_t statements = stats.statements();
  catch_ups = stats.catch_ups();
  auto got = store.KeywordSearch(query);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(stats.statements() - statements, 1);  // not stale: one statement
  EXPECT_EQ(stats.catch_ups(), catch_ups);

  auto c = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto want = (*c)->entries().KeywordSearch(query);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(got->size(), want->size());
  ASSERT_FALSE(want->empty());
  EXPECT_EQ((*got)[0].entry.key.rfind("new", 0), 0u);
  for (size_t i = 0; i < want->size(); ++i) {
    EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << i;
    EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << i;
  }
}

}  // namespace
}  // namespace mnemo::storage

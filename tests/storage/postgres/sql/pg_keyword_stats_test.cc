// The keyword statistics a process mirrors (pg_keyword_stats.h, schema v11):
// all of entry_terms loaded once, kept current from entry_terms_log, so a
// search of terms never searched before is one statement; another process's
// writes are caught up to the bit; a bulk write or a pruned log reloads; a
// server behind the mirror (a standby) is answered without looping and the
// mirror kept; a v10 store migrates to v11 with every row.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_keyword_stats.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "text/pipeline/query.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage {
namespace {

using internal::pg::KeywordStatsCache;
using internal::pg::Params;
using internal::pg::PgConn;
using internal::pg::QuoteIdentifier;

// 2 400 entries: "alpha" in every one, "delta" in 2 100, "gamma" in 12,
// "beta" in 30, a word of each row's own ("w<i>"); owners u1 and u2, a third
// of the rows public.
std::vector<EntryWrite> Corpus(int rows = 2400) {
  std::vector<EntryWrite> out;
  for (int i = 0; i < rows; ++i) {
    std::string text = "alpha note w" + std::to_string(i);
    if (i < 2100) text += " delta";
    if (i % 200 == 7) text += " gamma";
    if (i % 80 == 3) text += " beta beta";
    if (i % 3 == 0) text += " filler words to vary the length";
    out.push_back({.owner = i % 2 == 0 ? "u1" : "u2",
                   .key = "k" + std::to_string(i),
                   .content = text,
                   .visibility = i % 3 == 1 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 1000 + i});
  }
  return out;
}

int64_t Int(PgConn& conn, const std::string& sql) {
  auto rows = conn.Exec(sql, "read");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << sql;
  return rows.ok() && !rows->empty() && !rows->IsNull(0, 0) ? rows->Int(0, 0) : -1;
}

std::string Text(PgConn& conn, const std::string& sql) {
  auto rows = conn.Exec(sql, "read");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << sql;
  return rows.ok() && !rows->empty() ? std::string(rows->Text(0, 0)) : "";
}

// A connection of its own on `schema`.
std::unique_ptr<PgConn> Connect(const std::string& url, const std::string& schema) {
  auto conn = PgConn::Connect(url);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return nullptr;
  EXPECT_TRUE((*conn)->ExecScript("SET search_path TO " + QuoteIdentifier(schema), "path").ok());
  return std::move(*conn);
}

KeywordQuery Query(const std::string& text, const ReadScope& scope, int limit = 10) {
  return {.terms = text::QueryTerms(text), .filter = {.scope = scope}, .limit = limit};
}

// `cache`'s search of `q` on `conn` gives the hits, scores (to the bit) and
// pruned flag of the statement weighing everything itself, on the same
// connection (the same snapshot when it is in a transaction).
void ExpectExact(PgConn& conn, const KeywordQuery& q, KeywordStatsCache& cache,
                 const std::string& what) {
  bool want_pruned = false;
  auto want = internal::pg::SearchEntriesWeighingAll(conn, q, &want_pruned);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  bool pruned = !want_pruned;
  auto got = internal::pg::SearchEntries(conn, q, &cache, &pruned);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(pruned, want_pruned) << what;
  ASSERT_EQ(got->size(), want->size()) << what;
  for (size_t i = 0; i < got->size(); ++i) {
    EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << what << " #" << i;
    EXPECT_EQ((*got)[i].entry.owner, (*want)[i].entry.owner) << what << " #" << i;
    EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << what << " #" << i;
  }
}

const ReadScope kEveryone;
const ReadScope kU1{.all = false, .principal = "u1"};
const ReadScope kU2{.all = false, .principal = "u2"};
const ReadScope kU3{.all = false, .principal = "u3"};  // owns nothing: the public rows

// Queries of terms no search has read, each with a word of its own.
std::vector<std::pair<std::string, ReadScope>> FreshQueries(int from, int count) {
  std::vector<std::pair<std::string, ReadScope>> out;
  const ReadScope scopes[] = {kEveryone, kU1, kU2, kU3};
  const char* shapes[] = {"gamma alpha",      "beta delta", "alpha",
                          "gamma beta alpha", "delta",      "nosuchword"};
  for (int i = from; i < from + count; ++i) {
    out.emplace_back(std::string("w") + std::to_string(i * 7 % 2400) + " " + shapes[i % 6] + " w" +
                         std::to_string(i * 13 % 2400),
                     scopes[i % 4]);
  }
  return out;
}

// After the first search loads the statistics, every search of terms never
// searched before, scoped or not, pruned tries or not, is one statement and
// reads nothing more; its hits are the full statement's to the bit. A
// principal owning nothing sums the public bucket alone.
TEST(PgKeywordStats, ASearchOfTermsNeverSearchedIsOneStatement) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto pg = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(pg.ok()) << pg.status().ToString();
  ASSERT_TRUE((*pg)->entries().UpsertBatch(Corpus()).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache cache(/*mirror=*/true);
  ExpectExact(*c, Query("gamma alpha", kEveryone), cache, "first search");
  EXPECT_EQ(cache.loads(), 1);
  EXPECT_EQ(cache.reads(), 1);
  for (const auto& [text, scope] : FreshQueries(0, 40)) {
    const std::string what = text + (scope.all ? "" : " as " + scope.principal);
    const int64_t before = cache.statements();
    ExpectExact(*c, Query(text, scope), cache, what);
    EXPECT_EQ(cache.statements() - before, 1) << what;
  }
  EXPECT_EQ(cache.reads(), 1);
  // Each scope's figures are the sums of its buckets in entry_terms: all of
  // them, or 'p' and the principal's.
  const std::vector<std::string> terms = {"gamma", "beta", "alpha", "delta", "w7", "filler"};
  for (const ReadScope& scope : {kEveryone, kU1, kU2, kU3}) {
    auto got = cache.Mirrored(*c, scope, terms);
    ASSERT_TRUE(got.ok() && got->has_value());
    const std::string in = scope.all ? "true" : "bucket IN ('p', 'o:" + scope.principal + "')";
    EXPECT_EQ((*got)->documents,
              Int(*c, "SELECT COALESCE(sum(docs), 0) FROM entry_terms WHERE term = '' AND " + in));
    EXPECT_EQ(
        (*got)->tokens,
        Int(*c, "SELECT COALESCE(sum(tokens), 0) FROM entry_terms WHERE term = '' AND " + in));
    for (size_t i = 0; i < terms.size(); ++i) {
      EXPECT_EQ((*got)->df[i], Int(*c,
                                   "SELECT COALESCE(sum(docs), 0) FROM entry_terms WHERE "
                                   "term = '" +
                                       terms[i] + "' AND " + in))
          << terms[i] << " as " << scope.principal;
    }
  }
  // The store's own cache mirrors from v11 on: one read in all.
  auto& store = (*pg)->entries();
  for (const auto& [text, scope] : FreshQueries(40, 12)) {
    auto hits = store.KeywordSearch(Query(text, scope));
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  }
  EXPECT_TRUE(store.keyword_stats().mirrors());
  EXPECT_EQ(store.keyword_stats_reads(), 1);
  EXPECT_EQ(store.keyword_stats().statements(), 12);
}

// Another process's writes (stores, a rewrite, a deletion, a visibility
// change, a row moved to another owner) move the generation; this process
// reads them from the log in one statement, and its statistics are then
// those a fresh load reads, its hits the full statement's to the bit.
TEST(PgKeywordStats, AnotherProcesssWritesAreCaughtUpToTheBit) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 1, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_TRUE((*a)->entries().UpsertBatch(Corpus(600)).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache cache(/*mirror=*/true);
  ExpectExact(*c, Query("gamma alpha", kEveryone), cache, "first search");
  const std::optional<int64_t> loaded_at = cache.mirror_generation();
  ASSERT_TRUE(loaded_at.has_value());

  EntryStore& other = (*b)->entries();
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(other
                    .Upsert({.owner = i % 3 == 0 ? "u3" : "u1",
                             .key = "new" + std::to_string(i),
                             .content = "gamma gamma epsilon brand new words " + std::to_string(i),
                             .visibility = i % 2 == 0 ? Visibility::kPublic : Visibility::kPrivate,
                             .now = 9000 + i})
                    .ok());
  }
  // A rewrite, a row made public, a deletion, a row moved to another owner.
  ASSERT_TRUE(
      other.Upsert({.owner = "u1", .key = "k0", .content = "gamma rewritten", .now = 9100}).ok());
  ASSERT_TRUE(other
                  .Upsert({.owner = "u2",
                           .key = "k5",
                           .content = "alpha note w5 delta",
                           .visibility = Visibility::kPublic,
                           .now = 9101})
                  .ok());
  auto gone = other.FindExact("u2", TestNamespace("global"), TestKey("k9"));
  ASSERT_TRUE(gone.ok() && gone->has_value());
  ASSERT_TRUE(other.Delete((*gone)->id).ok());
  auto moved = other.FindExact("u1", TestNamespace("global"), TestKey("k2"));
  ASSERT_TRUE(moved.ok() && moved->has_value());
  ASSERT_TRUE(other.Delete((*moved)->id).ok());
  ASSERT_TRUE(
      other.Upsert({.owner = "u3", .key = "k2", .content = (*moved)->content, .now = 9102}).ok());
  const int64_t generation = Int(*c, "SELECT value FROM generations WHERE name = 'entry_terms'");
  EXPECT_EQ(generation, *loaded_at + 17);
  EXPECT_EQ(Int(*c, "SELECT count(*) FROM entry_terms_log WHERE term IS NULL"), 0);

  // The first search after: the stale statement, which brings the log's
  // rows after the process's generation with it (no read of its own), then
  // the statement again.
  const int64_t statements = cache.statements();
  ExpectExact(*c, Query("gamma epsilon alpha", kEveryone), cache, "after B's writes");
  EXPECT_EQ(cache.statements() - statements, 2);
  EXPECT_EQ(cache.reads(), 1);
  EXPECT_EQ(cache.catch_ups(), 1);
  EXPECT_EQ(cache.loads(), 1);
  EXPECT_EQ(cache.mirror_generation(), generation);
  // Every statistic the mirror caught up is what a fresh load reads.
  KeywordStatsCache fresh(/*mirror=*/true);
  const std::vector<std::string> terms = {"gamma", "epsilon", "alpha", "delta",  "rewritten", "w5",
                                          "w2",    "w9",      "new",   "filler", "nosuchword"};
  for (const ReadScope& scope : {kEveryone, kU1, kU2, kU3}) {
    auto got = cache.Mirrored(*c, scope, terms);
    auto want = fresh.Mirrored(*c, scope, terms);
    ASSERT_TRUE(got.ok() && got->has_value());
    ASSERT_TRUE(want.ok() && want->has_value());
    EXPECT_EQ((*got)->generation, (*want)->generation);
    EXPECT_EQ((*got)->documents, (*want)->documents) << scope.principal;
    EXPECT_EQ((*got)->tokens, (*want)->tokens) << scope.principal;
    EXPECT_EQ((*got)->df, (*want)->df) << scope.principal;
  }
  for (const auto& [text, scope] :
       std::vector<std::pair<std::string, ReadScope>>{{"gamma alpha", kEveryone},
                                                      {"gamma rewritten", kU1},
                                                      {"epsilon new words", kU3},
                                                      {"alpha delta w2", kU3},
                                                      {"w5 delta", kU2},
                                                      {"gamma beta alpha", kU2}}) {
    const int64_t before = cache.statements();
    ExpectExact(*c, Query(text, scope), cache, text + " as " + scope.principal);
    EXPECT_EQ(cache.statements() - before, 1) << text;
  }
  EXPECT_EQ(cache.reads(), 1);
}

// A bulk write logs "reload everything" instead of its hundreds of
// thousands of rows: the next search loads the statistics anew.
TEST(PgKeywordStats, ABulkWriteMakesTheNextSearchReload) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto a = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->entries().UpsertBatch(Corpus(300)).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache cache(/*mirror=*/true);
  ExpectExact(*c, Query("gamma alpha", kEveryone), cache, "first search");
  ASSERT_EQ(cache.loads(), 1);
  std::vector<EntryWrite> bulk;
  for (int i = 0; i < 10'000; ++i) {
    bulk.push_back({.owner = "u1",
                    .key = "bulk" + std::to_string(i),
                    .content = "bulk gamma row b" + std::to_string(i),
                    .now = 20'000 + i});
  }
  ASSERT_TRUE((*a)->entries().UpsertBatch(bulk).ok());
  // One row for the whole fold.
  EXPECT_EQ(Int(*c,
                "SELECT count(*) FROM entry_terms_log WHERE generation = (SELECT value FROM "
                "generations WHERE name = 'entry_terms')"),
            1);
  EXPECT_EQ(Int(*c, "SELECT count(*) FROM entry_terms_log WHERE term IS NULL"), 1);
  ExpectExact(*c, Query("gamma b77 alpha", kEveryone), cache, "after the bulk write");
  EXPECT_EQ(cache.loads(), 2);
  ExpectExact(*c, Query("bulk b4242", kU1), cache, "after the bulk write, as u1");
  EXPECT_EQ(cache.loads(), 2);
}

// The log keeps kLoggedGenerations generations; a process whose
// statistics are older than its oldest reloads them all, and one within the
// window reads the log alone.
TEST(PgKeywordStats, ALogPrunedPastTheProcesssGenerationReloads) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto a = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->entries().UpsertBatch(Corpus(300)).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache old(/*mirror=*/true);
  ExpectExact(*c, Query("gamma alpha", kEveryone), old, "first search");
  const int64_t window = internal::pg::kLoggedGenerations;
  for (int64_t i = 0; i < window + 1; ++i) {
    ASSERT_TRUE((*a)->entries()
                    .Upsert({.owner = "u2",
                             .key = "w" + std::to_string(i % 7),
                             .content = "gamma written " + std::to_string(i),
                             .now = 30'000 + i})
                    .ok());
  }
  const int64_t generation = Int(*c, "SELECT value FROM generations WHERE name = 'entry_terms'");
  EXPECT_EQ(Int(*c, "SELECT min(generation) FROM entry_terms_log"), generation - window + 1);
  EXPECT_EQ(Int(*c, "SELECT count(DISTINCT generation) FROM entry_terms_log"), window);
  ExpectExact(*c, Query("gamma written alpha", kEveryone), old, "a generation past the window");
  EXPECT_EQ(old.loads(), 2);
  EXPECT_EQ(old.mirror_generation(), generation);
  // Within the window: the log alone.
  KeywordStatsCache recent(/*mirror=*/true);
  ExpectExact(*c, Query("alpha", kEveryone), recent, "loaded");
  ASSERT_TRUE((*a)->entries()
                  .Upsert({.owner = "u1", .key = "late", .content = "gamma late", .now = 40'000})
                  .ok());
  ExpectExact(*c, Query("gamma late", kU1), recent, "one generation on");
  EXPECT_EQ(recent.loads(), 1);
  EXPECT_EQ(recent.catch_ups(), 1);
}

// A server behind the mirror (a standby that has not replayed the writes
// the process caught up to, here a snapshot taken before them): the
// statement finds the generation stale, the log holds nothing newer, and
// the search is answered from the statistics of its own snapshot, exactly,
// in a bounded number of statements; the mirror keeps its generation and
// the next search on an up-to-date server is one statement.
TEST(PgKeywordStats, AServerBehindTheMirrorIsAnsweredWithoutLooping) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  auto a = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->entries().UpsertBatch(Corpus(600)).ok());
  std::unique_ptr<PgConn> behind = Connect(url, schema);
  std::unique_ptr<PgConn> current = Connect(url, schema);
  ASSERT_TRUE(behind && current);
  KeywordStatsCache cache(/*mirror=*/true);
  ExpectExact(*current, Query("gamma alpha", kEveryone), cache, "first search");
  // The snapshot of the server behind.
  ASSERT_TRUE(behind->ExecScript("BEGIN ISOLATION LEVEL REPEATABLE READ", "snapshot").ok());
  ASSERT_EQ(Int(*behind, "SELECT value FROM generations WHERE name = 'entry_terms'"),
            cache.mirror_generation());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*a)->entries()
                    .Upsert({.owner = "u1",
                             .key = "ahead" + std::to_string(i),
                             .content = "gamma gamma ahead",
                             .visibility = Visibility::kPublic,
                             .now = 50'000 + i})
                    .ok());
  }
  ExpectExact(*current, Query("gamma ahead", kEveryone), cache, "caught up");
  const std::optional<int64_t> ahead = cache.mirror_generation();
  ASSERT_TRUE(ahead.has_value());
  for (const auto& [text, scope] : std::vector<std::pair<std::string, ReadScope>>{
           {"gamma alpha", kEveryone}, {"gamma ahead", kU1}, {"beta delta", kU2}}) {
    const int64_t before = cache.statements();
    ExpectExact(*behind, Query(text, scope), cache, text + " on the server behind");
    // The stale statement, then the miss path: at most two more.
    EXPECT_GE(cache.statements() - before, 2) << text;
    EXPECT_LE(cache.statements() - before, 3) << text;
    EXPECT_EQ(cache.mirror_generation(), ahead) << text;
  }
  ASSERT_TRUE(behind->ExecScript("COMMIT", "snapshot").ok());
  EXPECT_EQ(cache.loads(), 1);
  const int64_t before = cache.statements();
  ExpectExact(*current, Query("gamma alpha w17", kU1), cache, "up to date again");
  EXPECT_EQ(cache.statements() - before, 1);
}

// A v10 store (entries and statistics written, folded as v10 did) migrates
// to v11 with every row and statistic kept and an empty log; the store
// then mirrors them, and the next write logs its changes.
TEST(PgKeywordStats, AVersion10StoreMigratesWithEveryRow) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  const std::string s = QuoteIdentifier(schema);
  auto conn = PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  auto v10 = internal::pg::MigrateSchema(c, schema, 10);
  ASSERT_TRUE(v10.ok()) << v10.status().ToString();
  ASSERT_EQ(*v10, 10);
  ASSERT_TRUE(c.Exec("INSERT INTO " + s + ".generations (name, value) VALUES ('text_version', $1)",
                     Params().Add(static_cast<int64_t>(text::kTextVersion)), "as v10 recorded it")
                  .ok());
  ASSERT_TRUE(c.ExecScript("BEGIN; SET LOCAL search_path TO " + s, "write as v10").ok());
  for (int i = 0; i < 50; ++i) {
    const std::string key = "old" + std::to_string(i);
    std::string text = "lantern " + std::to_string(i % 7) + " by the harbour";
    if (i % 4 == 0) text += " rope rope";
    const internal::pg::IndexedText t = internal::pg::IndexText({key, text});
    ASSERT_TRUE(c.Exec("INSERT INTO entries (label, id, owner, namespace, key, content, "
                       "category, visibility, created_at, updated_at, doc_length, tsv) VALUES "
                       "(nextval('labels'), $1, $2, 'global', $3, $4, 'core', $5, 1, $6, $7, "
                       "$8::tsvector)",
                       Params()
                           .Add("id-" + key)
                           .Add(i % 2 == 0 ? "u1" : "u2")
                           .Add(key)
                           .Add(text)
                           .Add(i % 3 == 0 ? "public" : "private")
                           .Add(static_cast<int64_t>(i))
                           .Add(t.length)
                           .Add(internal::pg::TsvectorLiteral(t)),
                       "write as v10 did")
                    .ok());
  }
  ASSERT_TRUE(internal::pg::FlushEntryTerms(c, {.logged = false}).ok());
  ASSERT_TRUE(c.ExecScript("COMMIT", "write as v10").ok());
  auto digest = [&](const std::string& table, const std::string& order) {
    return Text(c, "SELECT md5(string_agg(t::text, ',' ORDER BY " + order + ")) FROM " + s + "." +
                       table + " t");
  };
  const std::string entries = digest("entries", "label");
  const std::string terms = digest("entry_terms", "term, bucket");
  const std::string generations = digest("generations", "name");
  ASSERT_FALSE(entries.empty());

  auto opened = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ(Int(c, "SELECT max(version) FROM " + s + ".schema_version"),
            internal::pg::LatestPgSchemaVersion());
  EXPECT_EQ(digest("entries", "label"), entries);
  EXPECT_EQ(digest("entry_terms", "term, bucket"), terms);
  EXPECT_EQ(digest("generations", "name"), generations);
  EXPECT_EQ(Int(c, "SELECT count(*) FROM " + s + ".entry_terms_log"), 0);

  std::unique_ptr<PgConn> search = Connect(url, schema);
  ASSERT_TRUE(search);
  auto& store = (*opened)->entries();
  EXPECT_TRUE(store.keyword_stats().mirrors());
  for (const auto& [text, scope] : std::vector<std::pair<std::string, ReadScope>>{
           {"harbour lantern", kEveryone}, {"rope 3", kU1}, {"lantern rope", kU2}}) {
    ExpectExact(*search, Query(text, scope), store.keyword_stats(), text);
  }
  EXPECT_EQ(store.keyword_stats().loads(), 1);
  const int64_t generation =
      Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'entry_terms'");
  ASSERT_TRUE(
      store.Upsert({.owner = "u1", .key = "new", .content = "rope rope", .now = 9000}).ok());
  EXPECT_EQ(Int(c, "SELECT count(*) FROM " + s + ".entry_terms_log WHERE generation = " +
                       std::to_string(generation + 1) + " AND term IS NOT NULL"),
            Int(c, "SELECT count(*) FROM unnest(tsvector_to_array((SELECT tsv FROM " + s +
                       ".entries WHERE key = 'new')))") +
                1);  // the row's terms and '' (N, tokens), in bucket o:u1
  // The store's own write is in its mirror already: one statement.
  const int64_t statements = store.keyword_stats().statements();
  ExpectExact(*search, Query("rope lantern", kU1), store.keyword_stats(), "after a write");
  EXPECT_EQ(store.keyword_stats().statements() - statements, 1);
  EXPECT_EQ(store.keyword_stats().loads(), 1);
  EXPECT_EQ(store.keyword_stats().own_folds(), 1);
  EXPECT_EQ(store.keyword_stats().catch_ups(), 0);
}

// Every statistic `cache` mirrors for `terms` is what a fresh load reads.
void ExpectMirrorsAsLoaded(PgConn& conn, KeywordStatsCache& cache,
                           const std::vector<std::string>& terms, const std::string& what) {
  KeywordStatsCache fresh(/*mirror=*/true);
  for (const ReadScope& scope : {kEveryone, kU1, kU2, kU3}) {
    auto got = cache.Mirrored(conn, scope, terms);
    auto want = fresh.Mirrored(conn, scope, terms);
    ASSERT_TRUE(got.ok() && got->has_value()) << what;
    ASSERT_TRUE(want.ok() && want->has_value()) << what;
    EXPECT_EQ((*got)->generation, (*want)->generation) << what;
    EXPECT_EQ((*got)->documents, (*want)->documents) << what << " as " << scope.principal;
    EXPECT_EQ((*got)->tokens, (*want)->tokens) << what << " as " << scope.principal;
    EXPECT_EQ((*got)->df, (*want)->df) << what << " as " << scope.principal;
  }
}

// A process's own writes (a store, a rewrite, a row made public, a
// deletion) move its mirror with them when they commit: the next search is
// the one cached statement, with no read of the log, and its hits are the
// full statement's to the bit. Another process's write in between leaves
// the own fold that follows it unapplied (its generation is not the
// mirror's next), and the next search catches both up from the log its
// stale statement returns.
TEST(PgKeywordStats, AProcesssOwnWritesKeepItsMirrorCurrent) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 1, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto& store = (*a)->entries();
  ASSERT_TRUE(store.UpsertBatch(Corpus(600)).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache& cache = store.keyword_stats();
  ExpectExact(*c, Query("gamma alpha", kEveryone), cache, "first search");
  ASSERT_EQ(cache.loads(), 1);
  const int64_t reads = cache.reads();

  auto own_write = [&](int i) -> Status {
    switch (i % 4) {
      case 0:
        return store
            .Upsert({.owner = i % 8 == 0 ? "u3" : "u1",
                     .key = "own" + std::to_string(i),
                     .content = "gamma zeta own words " + std::to_string(i),
                     .visibility = i % 3 == 0 ? Visibility::kPublic : Visibility::kPrivate,
                     .now = 9000 + i})
            .status();
      case 1:  // a rewrite
        return store
            .Upsert({.owner = "u1",
                     .key = "k" + std::to_string(2 * i),
                     .content = "zeta rewritten " + std::to_string(i),
                     .now = 9000 + i})
            .status();
      case 2:  // made public
        return store
            .Upsert({.owner = "u2",
                     .key = "k" + std::to_string(2 * i + 1),
                     .content = "alpha note zeta",
                     .visibility = Visibility::kPublic,
                     .now = 9000 + i})
            .status();
      default: {  // a deletion
        auto gone = store.FindExact(i % 2 == 0 ? "u1" : "u2", TestNamespace("global"),
                                    TestKey("k" + std::to_string(i)));
        if (!gone.ok()) return gone.status();
        if (!gone->has_value()) return Status::Ok();
        return store.Delete((**gone).id).status();
      }
    }
  };
  const std::vector<std::string> terms = {"gamma", "zeta", "alpha", "delta", "rewritten",
                                          "own",   "note", "words", "w7",    "nosuchword"};
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(own_write(i).ok()) << i;
    const int64_t before = cache.statements();
    ExpectExact(*c,
                Query(i % 2 == 0 ? "gamma zeta alpha" : "zeta rewritten delta",
                      i % 3 == 0 ? kEveryone : kU1),
                cache, "after own write " + std::to_string(i));
    EXPECT_EQ(cache.statements() - before, 1) << i;
  }
  EXPECT_EQ(cache.reads(), reads);
  EXPECT_EQ(cache.catch_ups(), 0);
  EXPECT_GE(cache.own_folds(), 9);
  EXPECT_EQ(cache.mirror_generation(),
            Int(*c, "SELECT value FROM generations WHERE name = 'entry_terms'"));
  ExpectMirrorsAsLoaded(*c, cache, terms, "after own writes");

  // Another process's write between two own writes.
  const int64_t folds = cache.own_folds();
  ASSERT_TRUE(own_write(20).ok());
  ASSERT_TRUE((*b)->entries()
                  .Upsert({.owner = "u2", .key = "theirs", .content = "zeta theirs", .now = 9500})
                  .ok());
  ASSERT_TRUE(own_write(24).ok());
  EXPECT_EQ(cache.own_folds(), folds + 1);  // the second is not the mirror's next
  const int64_t before = cache.statements();
  ExpectExact(*c, Query("zeta gamma theirs", kU2), cache, "after theirs");
  EXPECT_EQ(cache.statements() - before, 2);  // stale with the log, then answered
  EXPECT_EQ(cache.catch_ups(), 1);
  EXPECT_EQ(cache.reads(), reads);
  ExpectMirrorsAsLoaded(*c, cache, {"zeta", "theirs", "gamma", "own", "alpha"}, "after theirs");
  EXPECT_EQ(cache.loads(), 1);
}

// Writers in other processes all the time while this process writes and
// searches: every search's hits are those of the statement weighing
// everything itself in the same snapshot (a transaction of its own), and
// once the writers stop, what the mirror holds is what a fresh load reads.
TEST(PgKeywordStats, ConcurrentWritersOfTwoProcessesKeepEverySearchExact) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  auto [schema, a, b] = testing::OpenTwoPostgresNodes(url, 2, KeywordIndexPlace::kServer);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  auto& store = (*a)->entries();
  ASSERT_TRUE(store.UpsertBatch(Corpus(600)).ok());
  std::unique_ptr<PgConn> c = Connect(url, schema);
  ASSERT_TRUE(c);
  KeywordStatsCache& cache = store.keyword_stats();
  ExpectExact(*c, Query("gamma alpha", kEveryone), cache, "first search");

  std::atomic<bool> stop{false};
  std::atomic<int> theirs{0};
  std::thread other([&] {
    for (int i = 0; !stop.load() && i < 2000; ++i) {
      if (!(*b)->entries()
               .Upsert({.owner = i % 2 == 0 ? "u2" : "u3",
                        .key = "t" + std::to_string(i % 40),
                        .content = "zeta theirs gamma " + std::to_string(i),
                        .visibility = i % 3 == 0 ? Visibility::kPublic : Visibility::kPrivate,
                        .now = 20'000 + i})
               .ok()) {
        break;
      }
      ++theirs;
    }
  });
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(store
                    .Upsert({.owner = "u1",
                             .key = "o" + std::to_string(i % 15),
                             .content = "zeta own alpha " + std::to_string(i),
                             .now = 30'000 + i})
                    .ok());
    // One snapshot for both statements: the full one's figures are exact
    // in it, and the mirror's are either at its generation or answered
    // from it (a generation behind the mirror falls back).
    ASSERT_TRUE(c->ExecScript("BEGIN ISOLATION LEVEL REPEATABLE READ", "snapshot").ok());
    ExpectExact(*c,
                Query(i % 2 == 0 ? "zeta theirs gamma" : "zeta own alpha delta",
                      i % 3 == 0 ? kEveryone : (i % 3 == 1 ? kU1 : kU2)),
                cache, "search " + std::to_string(i));
    ASSERT_TRUE(c->ExecScript("COMMIT", "snapshot").ok());
  }
  stop = true;
  other.join();
  EXPECT_GT(theirs.load(), 0);
  ExpectExact(*c, Query("zeta theirs own", kEveryone), cache, "writers stopped");
  ExpectMirrorsAsLoaded(*c, cache, {"zeta", "theirs", "own", "gamma", "alpha", "delta"},
                        "writers stopped");
}

}  // namespace
}  // namespace mnemo::storage

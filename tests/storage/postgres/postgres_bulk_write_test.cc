// Bulk writes on PostgreSQL (postgres_bulk_write.cc): the rows are made on
// two threads and each chunk is sent while the next are made, the new rows
// copied straight into entries and the rewritten ones staged for an UPDATE.
// A row the server refuses, in a late chunk after earlier ones were parsed
// or among the rewrites, leaves nothing of the batch: the rows, the
// keyword statistics, the text totals and the indexes are as before it.
// A batch that goes through leaves the statistics equal to a recount. A
// large batch into buckets the statistics hold no row of copies its counts
// straight into them, with no note and no fold, and a process mirroring
// the statistics reloads them after it as after a fold.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_keyword_stats.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using internal::pg::Params;
using internal::pg::PgConn;

// Rows [from, to): two owners, a third of them public; `poison` (if in
// range) carries the word the test's constraint refuses.
std::vector<EntryWrite> Batch(int from, int to, const std::string& word, int poison = -1) {
  std::vector<EntryWrite> out;
  for (int i = from; i < to; ++i) {
    std::string text = word + " row " + std::to_string(i);
    if (i % 7 == 0) text += " common words repeated words";
    if (i % 501 == 3) text += " rare";
    if (i == poison) text += " poison";
    out.push_back({.owner = i % 2 == 0 ? "u1" : "u2",
                   .key = "k" + std::to_string(i),
                   .content = text,
                   .visibility = i % 3 == 1 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 1000 + i});
  }
  return out;
}

class PostgresBulkWrite : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = testing::PostgresTestUrl();
    if (url_.empty()) GTEST_SKIP() << "no PostgreSQL server";
    schema_ = testing::FreshPostgresSchema();
    auto pg = internal::PostgresBackend::Open({.url = url_, .schema = schema_, .pool_size = 1});
    ASSERT_TRUE(pg.ok()) << pg.status().ToString();
    pg_ = std::move(pg).value();
    auto conn = PgConn::Connect(url_);
    ASSERT_TRUE(conn.ok()) << conn.status().ToString();
    conn_ = std::move(conn).value();
    ASSERT_TRUE(conn_->ExecScript("SET search_path TO " + schema_, "use the schema").ok());
  }

  // Everything a batch writes, as one text: the rows (every column), the
  // keyword statistics, the text totals, the notes left and the indexes.
  std::string State() {
    auto rows = conn_->Exec(
        "SELECT (SELECT md5(string_agg(concat_ws('|', label, id, owner, namespace, key, content, "
        "category, tags::text, visibility, created_at, updated_at, access_count, useful_count, "
        "archived, doc_length, fingerprint, tsv::text), E'\\n' ORDER BY label)) FROM entries), "
        "(SELECT md5(string_agg(concat_ws('|', term, bucket, docs, tokens), E'\\n' ORDER BY "
        "term, bucket)) FROM entry_terms), (SELECT concat_ws('|', documents, total_tokens) FROM "
        "text_stats WHERE name = 'entries'), (SELECT count(*) FROM entry_terms_delta), "
        "(SELECT string_agg(indexname, ',' ORDER BY indexname) FROM pg_indexes WHERE "
        "schemaname = $1 AND tablename IN ('entries', 'entry_terms'))",
        Params().Add(schema_), "read the state");
    if (!rows.ok()) return rows.status().ToString();
    std::string out;
    for (int c = 0; c < 5; ++c) out += std::string(rows->Text(0, c)) + "\n";
    return out;
  }

  // Rows of entry_terms (with a count) that a recount of the stored
  // tsvectors does not give, and the other way round.
  int64_t StatisticsOffRecount() {
    auto rows = conn_->Exec(
        "WITH r AS (SELECT entry_text_bucket(owner, visibility) AS bucket, tsv, doc_length FROM "
        "entries), recount AS (SELECT l.term, r.bucket, count(*) AS docs, 0::bigint AS tokens "
        "FROM r, unnest(tsvector_to_array(r.tsv)) AS l(term) GROUP BY l.term, r.bucket UNION "
        "ALL SELECT '', r.bucket, count(*), sum(r.doc_length) FROM r GROUP BY r.bucket), kept "
        "AS (SELECT term, bucket, docs, tokens FROM entry_terms WHERE docs <> 0 OR tokens <> 0) "
        "SELECT (SELECT count(*) FROM (SELECT * FROM recount EXCEPT SELECT * FROM kept) a) + "
        "(SELECT count(*) FROM (SELECT * FROM kept EXCEPT SELECT * FROM recount) b)",
        Params(), "recount the statistics");
    return rows.ok() ? rows->Int(0, 0) : -1;
  }

  std::string url_;
  std::string schema_;
  std::unique_ptr<internal::PostgresBackend> pg_;
  std::unique_ptr<PgConn> conn_;
};

TEST_F(PostgresBulkWrite, ARefusedRowLeavesNothingOfTheBatch) {
  ASSERT_TRUE(pg_->entries().UpsertBatch(Batch(0, 3000, "base")).ok());
  const std::string before = State();
  // 3 000 rows, no notes left, the indexes of both tables.
  ASSERT_NE(before.find("\n3000|"), std::string::npos) << before;
  ASSERT_NE(before.find("\n0\nentries_by_fingerprint,"), std::string::npos) << before;
  ASSERT_NE(before.find("entry_terms_pkey"), std::string::npos) << before;
  ASSERT_TRUE(conn_
                  ->ExecScript("ALTER TABLE entries ADD CONSTRAINT no_poison CHECK (content NOT "
                               "LIKE '%poison%')",
                               "refuse a word")
                  .ok());
  struct Case {
    const char* what;
    int from, to, poison;
  };
  const Case cases[] = {
      // 12 000 rows into 3 000: the indexes are dropped and built after,
      // the refused row is new and in the last chunks of the streamed COPY.
      {"a new row in a late chunk", 1500, 13500, 13200},
      // The same batch refused among the rows it rewrites (the UPDATE).
      {"a rewritten row", 1500, 13500, 2000},
      // Fewer rows than the threads start at: one chunk.
      {"a row of a small batch", 2500, 4500, 4400},
      // Rewrites only, the last one refused.
      {"a row of a batch of rewrites", 0, 3000, 2999},
  };
  for (const Case& c : cases) {
    auto refused = pg_->entries().UpsertBatch(Batch(c.from, c.to, "second", c.poison));
    ASSERT_FALSE(refused.ok()) << c.what;
    EXPECT_NE(refused.status().message().find("no_poison"), std::string::npos)
        << c.what << ": " << refused.status().message();
    EXPECT_EQ(State(), before) << c.what;
  }
  ASSERT_TRUE(conn_->ExecScript("ALTER TABLE entries DROP CONSTRAINT no_poison", "allow").ok());
  // The same batch now goes through, on the same backend, and leaves the
  // statistics a recount gives.
  auto created = pg_->entries().UpsertBatch(Batch(1500, 13500, "second", 13200));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, 10500);
  EXPECT_EQ(StatisticsOffRecount(), 0);
  auto totals = conn_->Exec(
      "SELECT (SELECT documents FROM text_stats WHERE name = 'entries') = count(*), (SELECT "
      "total_tokens FROM text_stats WHERE name = 'entries') = sum(doc_length), count(*) FROM "
      "entries",
      Params(), "read the totals");
  ASSERT_TRUE(totals.ok()) << totals.status().ToString();
  EXPECT_EQ(totals->Text(0, 0), "t");
  EXPECT_EQ(totals->Text(0, 1), "t");
  EXPECT_EQ(totals->Int(0, 2), 13500);
  const KeywordQuery q{.terms = text::QueryTerms("poison"), .filter = {}, .limit = 10};
  auto hits = pg_->entries().KeywordSearch(q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].entry.key, "k13200");
}

// A large batch whose buckets entry_terms holds no row of (a first import,
// a new owner) copies its counts straight into entry_terms: no statement
// writes entry_terms_delta for its inserted rows and nothing is folded, yet
// the statistics are a recount's, the generation moves once and the log
// says "reload everything" once, so a process mirroring the statistics
// reloads them and scores as the statement weighing everything itself. A
// batch into counted buckets goes by the fold; a new bucket written beside
// rewrites gets its counts copied and the rewrites' notes folded onto them.
TEST_F(PostgresBulkWrite, ALargeBatchIntoNewBucketsCopiesItsCountsWithoutAFold) {
  // Every statement writing entry_terms_delta is counted in delta_writes.
  ASSERT_TRUE(conn_
                  ->ExecScript("CREATE TABLE delta_writes (n bigint); CREATE FUNCTION "
                               "count_delta_write() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                               "INSERT INTO delta_writes VALUES (1); RETURN NULL; END $$; "
                               "CREATE TRIGGER counted AFTER INSERT ON entry_terms_delta FOR "
                               "EACH STATEMENT EXECUTE FUNCTION count_delta_write()",
                               "count the notes")
                  .ok());
  auto number = [&](const std::string& sql) -> int64_t {
    auto rows = conn_->Exec(sql, "read");
    EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << sql;
    return rows.ok() && !rows->empty() && !rows->IsNull(0, 0) ? rows->Int(0, 0) : -1;
  };
  const std::string generation = "SELECT value FROM generations WHERE name = 'entry_terms'";
  internal::pg::KeywordStatsCache cache(/*mirror=*/true);
  // The mirror's search gives the full statement's hits and scores.
  auto expect_exact = [&](const std::string& text, const ReadScope& scope,
                          const std::string& what) {
    const KeywordQuery q{.terms = text::QueryTerms(text), .filter = {.scope = scope}, .limit = 10};
    auto want = internal::pg::SearchEntriesWeighingAll(*conn_, q);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    auto got = internal::pg::SearchEntries(*conn_, q, &cache);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->size(), want->size()) << what;
    ASSERT_FALSE(got->empty()) << what;
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].entry.key, (*want)[i].entry.key) << what << " #" << i;
      EXPECT_EQ((*got)[i].keyword_score, (*want)[i].keyword_score) << what << " #" << i;
    }
  };
  // After a batch: a recount's statistics, no note left, the generation
  // moved once with one "reload everything" row, and a process holding the
  // statistics reloads them.
  auto expect_after = [&](int64_t before, int64_t loads, const std::string& what) {
    EXPECT_EQ(StatisticsOffRecount(), 0) << what;
    EXPECT_EQ(number("SELECT count(*) FROM entry_terms_delta"), 0) << what;
    EXPECT_EQ(number(generation), before + 1) << what;
    EXPECT_EQ(number("SELECT count(*) FROM entry_terms_log WHERE generation = (" + generation +
                     ") AND term IS NULL"),
              1)
        << what;
    EXPECT_EQ(
        number("SELECT count(*) FROM entry_terms_log WHERE generation = (" + generation + ")"), 1)
        << what;
    expect_exact("words rare row", {}, what);
    expect_exact("third common words", {.all = false, .principal = "u3"}, what + ", as u3");
    EXPECT_EQ(cache.loads(), loads) << what;
  };
  // The mirror of the empty store.
  const KeywordQuery none{.terms = text::QueryTerms("row"), .filter = {}, .limit = 10};
  ASSERT_TRUE(internal::pg::SearchEntries(*conn_, none, &cache).ok());
  ASSERT_EQ(cache.loads(), 1);

  // A first import: its counts are copied, nothing noted.
  int64_t g = number(generation);
  ASSERT_TRUE(pg_->entries().UpsertBatch(Batch(0, 12000, "first")).ok());
  EXPECT_EQ(number("SELECT count(*) FROM delta_writes"), 0);
  expect_after(g, 2, "a first import");

  // Into the buckets now counted: noted and folded.
  g = number(generation);
  ASSERT_TRUE(pg_->entries().UpsertBatch(Batch(12000, 24000, "second")).ok());
  EXPECT_EQ(number("SELECT count(*) FROM delta_writes"), 1);
  expect_after(g, 3, "a batch into counted buckets");

  // A new owner's private rows beside rewrites of 2 000 rows: the rewrites'
  // notes (the update trigger's one statement) are folded onto the counts
  // copied for the new bucket.
  std::vector<EntryWrite> mixed = Batch(0, 2000, "rewritten");
  for (int i = 0; i < 10000; ++i) {
    std::string text = "third row " + std::to_string(i);
    if (i % 9 == 0) text += " rare words";
    mixed.push_back({.owner = "u3",
                     .key = "n" + std::to_string(i),
                     .content = text,
                     .visibility = Visibility::kPrivate,
                     .now = 50'000 + i});
  }
  g = number(generation);
  auto created = pg_->entries().UpsertBatch(mixed);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, 10000);
  EXPECT_EQ(number("SELECT count(*) FROM delta_writes"), 2);
  expect_after(g, 4, "a new bucket beside rewrites");
}

// The rows go to the server in COPY's binary form (pg_values.h) and their
// tsvectors in tsvectorrecv's (pg_text.h), where one write at a time sends
// a literal: a batch leaves every column as the same writes one at a time
// leave it, for values each form treats specially (escapes, quotes, array
// punctuation, NULLs, non-ASCII, a word past PostgreSQL's 256 positions,
// no words at all), first as new rows, then as rewrites (the staged rows,
// some whose text is unchanged).
TEST_F(PostgresBulkWrite, ABatchStoresEveryColumnAsOneWriteAtATimeDoes) {
  const std::string one_schema = testing::FreshPostgresSchema();
  auto one = internal::PostgresBackend::Open({.url = url_, .schema = one_schema, .pool_size = 1});
  ASSERT_TRUE(one.ok()) << one.status().ToString();
  const std::vector<std::string> texts = {
      "plain words",
      "tab\there and\nnew lines\r\n",
      "back\\slash \\N and \\\\ twice",
      "'quoted' it's \"double\" {braces} [brackets] a,b",
      "naïve café 中文分词测试 العربية الكتاب",
      "",
      "-- . , ; !",
  };
  const std::vector<std::vector<std::string>> tags = {
      {}, {"a"}, {"with space", "comma,inside", "quote\"d", "back\\slash", "{brace}", "NULL", ""}};
  std::string repeated;
  for (int i = 0; i < 300; ++i) repeated += "again ";
  std::vector<EntryWrite> writes;
  for (int i = 0; i < 40; ++i) {
    EntryWrite w{.owner = i % 3 == 0 ? "u1" : "u2",
                 .key = "k" + std::to_string(i) + (i % 5 == 0 ? "\t'\\" : ""),
                 .content = i == 39 ? repeated : texts[i % texts.size()] + " " + std::to_string(i),
                 .category = i % 4 == 0 ? "cat\\egory" : "core",
                 .tags = tags[i % tags.size()],
                 .visibility = i % 2 == 0 ? Visibility::kPublic : Visibility::kPrivate,
                 .now = 1000 + i};
    if (i % 3 != 1) w.fingerprint = "fp\t" + std::to_string(i);
    w.id = "id-" + std::to_string(i);
    w.access_count = i * 3;
    w.useful_count = i;
    w.archived = i % 6 == 0;
    writes.push_back(std::move(w));
  }
  auto columns = [&](const std::string& schema) {
    auto rows = conn_->Exec(
        "SELECT string_agg(concat_ws('|', label, id, owner, namespace, key, content, category, "
        "tags::text, visibility, created_at, updated_at, access_count, useful_count, archived, "
        "doc_length, fingerprint IS NULL, fingerprint, tsv::text), E'\n' ORDER BY label) FROM " +
            schema + ".entries",
        "read the rows");
    return rows.ok() ? std::string(rows->Text(0, 0)) : rows.status().ToString();
  };
  auto write_both = [&](const std::vector<EntryWrite>& batch) {
    ASSERT_TRUE(pg_->entries().UpsertBatch(batch).ok());
    for (const EntryWrite& w : batch) ASSERT_TRUE((*one)->entries().Upsert(w).ok()) << w.key;
  };
  write_both(writes);
  const std::string first = columns(schema_);
  EXPECT_EQ(first, columns(one_schema));
  // The word past 256 positions is stored with 256 (kMaxPositions).
  EXPECT_NE(first.find("'again':1,2,"), std::string::npos);
  EXPECT_NE(first.find(",256"), std::string::npos);
  EXPECT_EQ(first.find(",257"), std::string::npos);

  // Rewrites: every other row's text changes, the rest keep theirs (the
  // staged row has no tsvector) and get other tags and no fingerprint.
  for (size_t i = 0; i < writes.size(); ++i) {
    EntryWrite& w = writes[i];
    if (i % 2 == 0) w.content += " more\ttext 'added'";
    w.tags = tags[(i + 1) % tags.size()];
    w.fingerprint.reset();
    w.now += 100;
  }
  write_both(writes);
  const std::string second = columns(schema_);
  EXPECT_NE(second, first);
  EXPECT_EQ(second, columns(one_schema));
  EXPECT_EQ(StatisticsOffRecount(), 0);
}

}  // namespace
}  // namespace mnemo::storage

// The PostgreSQL schema's migrations (pg_schema.h): a store an older mnemo
// left is brought to the latest version with nothing lost, and from v8 the
// keyword statistics a bulk write notes itself are those the triggers noted
// before; from v9 a search with the statistics cached per generation finds
// what v8's statement finds.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "text/pipeline/query.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage {
namespace {

using internal::pg::Params;
using internal::pg::PgConn;
using internal::pg::QuoteIdentifier;

int64_t Int(PgConn& conn, const std::string& sql) {
  auto rows = conn.Exec(sql, "read");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << sql;
  return rows.ok() && !rows->empty() ? rows->Int(0, 0) : -1;
}

std::string Text(PgConn& conn, const std::string& sql) {
  auto rows = conn.Exec(sql, "read");
  EXPECT_TRUE(rows.ok()) << rows.status().ToString() << "\n" << sql;
  return rows.ok() && !rows->empty() ? std::string(rows->Text(0, 0)) : "";
}

// entry_terms as one text (the rows that count), and the same statistics
// counted afresh from the entries, as schema v7 first filled them.
std::string StoredTerms(PgConn& conn, const std::string& s) {
  return Text(conn,
              "SELECT string_agg(term || '/' || bucket || '/' || docs || '/' || tokens, ' ' "
              "ORDER BY term, bucket) FROM " +
                  s + ".entry_terms WHERE docs <> 0 OR tokens <> 0");
}
std::string RecountedTerms(PgConn& conn, const std::string& s) {
  return Text(conn, "WITH r AS (SELECT " + s +
                        ".entry_text_bucket(owner, visibility) AS bucket, tsv, doc_length FROM " +
                        s +
                        ".entries), t AS (SELECT l.term, r.bucket, count(*) AS docs, 0 AS tokens "
                        "FROM r, unnest(tsvector_to_array(r.tsv)) AS l(term) GROUP BY 1, 2 "
                        "UNION ALL SELECT '', r.bucket, count(*), sum(r.doc_length) FROM r "
                        "GROUP BY r.bucket) SELECT string_agg(term || '/' || bucket || '/' || "
                        "docs || '/' || tokens, ' ' ORDER BY term, bucket) FROM t");
}

std::vector<EntryWrite> Batch(int from, int to, const std::string& ns) {
  std::vector<EntryWrite> out;
  for (int i = from; i < to; ++i) {
    std::string text = "batch row " + std::to_string(i % 97) + " lantern";
    if (i % 5 == 0) text += " harbour harbour";
    out.push_back({.owner = i % 3 == 0 ? "u1" : "u2",
                   .ns = ns,
                   .key = "b" + std::to_string(i),
                   .content = text,
                   .visibility = i % 4 == 0 ? Visibility::kPublic : Visibility::kPrivate,
                   .now = 5000 + i});
  }
  return out;
}

// A schema at v7, written as mnemo at v7 wrote entries (its triggers noting
// the keyword statistics, folded before the commit), opened by this mnemo:
// v8, every row and statistic kept, searchable; then writes by both paths
// keep the statistics equal to a recount, and a bulk write into a tool
// namespace still bumps the tool generation.
TEST(PgSchema, AVersion7StoreMigratesWithNothingLost) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  const std::string s = QuoteIdentifier(schema);
  auto conn = PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  auto v7 = internal::pg::MigrateSchema(c, schema, 7);
  ASSERT_TRUE(v7.ok()) << v7.status().ToString();
  ASSERT_EQ(*v7, 7);
  const std::vector<std::string> texts = {"the lantern by the harbour", "a harbour at night",
                                          "lantern oil and wicks", "公开的灯笼"};
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string key = "old" + std::to_string(i);
    const internal::pg::IndexedText t = internal::pg::IndexText({key, texts[i]});
    ASSERT_TRUE(
        c.Exec("INSERT INTO " + s +
                   ".entries (label, id, owner, namespace, key, content, category, "
                   "visibility, created_at, updated_at, doc_length, tsv) VALUES (nextval('" +
                   s +
                   ".labels'), $1, $2, 'global', $3, $4, 'core', $5, 1, 1, $6, "
                   "$7::tsvector)",
               Params()
                   .Add("id-" + key)
                   .Add(i % 2 == 0 ? "u1" : "u2")
                   .Add(key)
                   .Add(texts[i])
                   .Add(i == 3 ? "public" : "private")
                   .Add(t.length)
                   .Add(internal::pg::TsvectorLiteral(t)),
               "write as v7 did")
            .ok());
  }
  ASSERT_TRUE(c.Exec("INSERT INTO " + s + ".generations (name, value) VALUES ('text_version', $1)",
                     Params().Add(static_cast<int64_t>(text::kTextVersion)), "as v7 recorded it")
                  .ok());
  ASSERT_TRUE(c.ExecScript("BEGIN; SET LOCAL search_path TO " + s, "fold").ok());
  ASSERT_TRUE(internal::pg::FlushEntryTerms(c, {.logged = false}).ok());
  ASSERT_TRUE(c.ExecScript("COMMIT", "fold").ok());
  const std::string before = StoredTerms(c, s);
  ASSERT_FALSE(before.empty());
  ASSERT_EQ(before, RecountedTerms(c, s));
  const std::string entries_before =
      Text(c, "SELECT string_agg(id || content || tsv::text, ',' ORDER BY label) FROM " + s +
                  ".entries");
  const int64_t tool_rules_before =
      Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'tool_rules'");

  auto opened = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  internal::PostgresBackend& b = **opened;
  EXPECT_EQ(Int(c, "SELECT max(version) FROM " + s + ".schema_version"),
            internal::pg::LatestPgSchemaVersion());
  EXPECT_GE(internal::pg::LatestPgSchemaVersion(), 8);
  EXPECT_EQ(StoredTerms(c, s), before);
  EXPECT_EQ(Text(c, "SELECT string_agg(id || content || tsv::text, ',' ORDER BY label) FROM " + s +
                        ".entries"),
            entries_before);
  auto hits =
      b.entries().KeywordSearch({.terms = text::QueryTerms("harbour lantern"), .limit = 10});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  EXPECT_EQ(hits->size(), 3u);

  // New rows noted by the bulk write, rewrites by the update trigger, one
  // row by the insert trigger; an import into an empty table takes the
  // other way (the statistics' key rebuilt): both end equal to a recount.
  ASSERT_TRUE(b.entries().UpsertBatch(Batch(0, 300, "global")).ok());
  EXPECT_EQ(StoredTerms(c, s), RecountedTerms(c, s));
  std::vector<EntryWrite> mixed = Batch(200, 400, "global");
  mixed.push_back({.owner = "u1", .key = "old0", .content = "the lantern moved", .now = 9000});
  ASSERT_TRUE(b.entries().UpsertBatch(mixed).ok());
  ASSERT_TRUE(b.entries()
                  .Upsert({.owner = "u2", .key = "single", .content = "one lantern", .now = 9001})
                  .ok());
  EXPECT_EQ(StoredTerms(c, s), RecountedTerms(c, s));
  ASSERT_TRUE(b.entries().UpsertBatch(Batch(400, 402, "tool-shell")).ok());
  EXPECT_EQ(Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'tool_rules'"),
            tool_rules_before + 1);
  EXPECT_EQ(StoredTerms(c, s), RecountedTerms(c, s));

  const std::string fresh = testing::FreshPostgresSchema();
  const std::string f = QuoteIdentifier(fresh);
  auto empty = internal::PostgresBackend::Open({.url = url, .schema = fresh, .pool_size = 1});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  ASSERT_TRUE((*empty)->entries().UpsertBatch(Batch(0, 12000, "global")).ok());
  EXPECT_EQ(StoredTerms(c, f), RecountedTerms(c, f));
  EXPECT_EQ(Int(c, "SELECT count(*) FROM pg_indexes WHERE schemaname = '" + fresh +
                       "' AND indexname IN ('entry_terms_pkey', 'entries_tsv')"),
            2);
  auto found =
      (*empty)->entries().KeywordSearch({.terms = text::QueryTerms("harbour"), .limit = 5});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->size(), 5u);
  // That load dropped the B-tree indexes of entries and made them again:
  // the same indexes and constraints as the schema's.
  auto shape = [&](const std::string& name) {
    return Text(c, "SELECT string_agg(replace(indexdef, '" + name +
                       "', 'S'), ';' ORDER BY indexname) || '|' || (SELECT string_agg(conname || "
                       "pg_get_constraintdef(oid), ';' ORDER BY conname) FROM pg_constraint WHERE "
                       "conrelid = ('" +
                       name + "' || '.entries')::regclass) FROM pg_indexes WHERE schemaname = '" +
                       name + "' AND tablename = 'entries'");
  };
  EXPECT_EQ(shape(fresh), shape(schema));
  EXPECT_NE(shape(fresh).find("entries_owner_namespace_key_key"), std::string::npos);

  // A load whose rows break a unique constraint, now checked when the
  // index is made again, is refused whole.
  const std::string third = testing::FreshPostgresSchema();
  auto other = internal::PostgresBackend::Open({.url = url, .schema = third, .pool_size = 1});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  std::vector<EntryWrite> clash = Batch(0, 12000, "global");
  clash[5].id = "same-id";
  clash[11000].id = "same-id";
  const auto refused = (*other)->entries().UpsertBatch(clash);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kConflict) << refused.status().ToString();
  EXPECT_EQ(Int(c, "SELECT count(*) FROM " + QuoteIdentifier(third) + ".entries"), 0);
  EXPECT_EQ(shape(third), shape(schema));
}

// A schema at v8 (entries written and their statistics folded as v8 did)
// opened by this mnemo: v9, with the generation of the keyword statistics,
// and every search finds the same hits with the same scores as v8's
// statement computing the statistics itself, from the statistics it reads
// (the first search) and from those it cached (the second); a write moves
// the generation and the cached statistics are not used.
TEST(PgSchema, AVersion8StoreOpensAndSearchesTheSame) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  const std::string s = QuoteIdentifier(schema);
  auto conn = PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  auto v8 = internal::pg::MigrateSchema(c, schema, 8);
  ASSERT_TRUE(v8.ok()) << v8.status().ToString();
  ASSERT_EQ(*v8, 8);
  ASSERT_TRUE(c.Exec("INSERT INTO " + s + ".generations (name, value) VALUES ('text_version', $1)",
                     Params().Add(static_cast<int64_t>(text::kTextVersion)), "as v8 recorded it")
                  .ok());
  for (int i = 0; i < 60; ++i) {
    const std::string key = "old" + std::to_string(i);
    std::string text = "lantern " + std::to_string(i % 7) + " by the harbour";
    if (i % 4 == 0) text += " rope rope";
    if (i % 9 == 0) text += " 灯笼 lighthouse";
    const internal::pg::IndexedText t = internal::pg::IndexText({key, text});
    ASSERT_TRUE(
        c.Exec("INSERT INTO " + s +
                   ".entries (label, id, owner, namespace, key, content, category, "
                   "visibility, created_at, updated_at, doc_length, tsv) VALUES (nextval('" +
                   s +
                   ".labels'), $1, $2, 'global', $3, $4, 'core', $5, 1, $6, $7, "
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
               "write as v8 did")
            .ok());
  }
  ASSERT_TRUE(c.ExecScript("BEGIN; SET LOCAL search_path TO " + s, "fold").ok());
  ASSERT_TRUE(internal::pg::FlushEntryTerms(c, {.logged = false}).ok());
  ASSERT_TRUE(c.ExecScript("COMMIT", "fold").ok());
  const std::vector<std::pair<std::string, ReadScope>> queries = {
      {"harbour lantern", ReadScope{}},
      {"rope lighthouse", ReadScope{}},
      {"灯笼 rope nosuchword", ReadScope{}},
      {"rope harbour", ReadScope{.all = false, .principal = "u1"}},
      {"lighthouse lantern 3", ReadScope{.all = false, .principal = "u2"}}};
  // v8's statement (no cache), run on the v8 schema.
  auto search_v8 = [&](const KeywordQuery& q) {
    EXPECT_TRUE(c.ExecScript("SET search_path TO " + s, "search as v8").ok());
    auto hits = internal::pg::SearchEntries(c, q);
    EXPECT_TRUE(c.ExecScript("RESET search_path", "search as v8").ok());
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    return hits.ok() ? *hits : std::vector<KeywordHit>();
  };
  std::vector<std::vector<KeywordHit>> before;
  for (const auto& [query, scope] : queries) {
    before.push_back(
        search_v8({.terms = text::QueryTerms(query), .filter = {.scope = scope}, .limit = 10}));
    EXPECT_FALSE(before.back().empty()) << query;
  }

  auto opened = internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = KeywordIndexPlace::kServer});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  internal::PostgresBackend& b = **opened;
  EXPECT_EQ(Int(c, "SELECT max(version) FROM " + s + ".schema_version"),
            internal::pg::LatestPgSchemaVersion());
  EXPECT_GE(internal::pg::LatestPgSchemaVersion(), 9);
  const int64_t generation =
      Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'entry_terms'");
  EXPECT_EQ(generation, 0);
  auto same = [&](const std::vector<KeywordHit>& got, const std::vector<KeywordHit>& want,
                  const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].entry.key, want[i].entry.key) << what << " #" << i;
      EXPECT_EQ(got[i].keyword_score, want[i].keyword_score) << what << " #" << i;
    }
  };
  for (int round = 0; round < 2; ++round) {
    for (size_t i = 0; i < queries.size(); ++i) {
      const KeywordQuery q{.terms = text::QueryTerms(queries[i].first),
                           .filter = {.scope = queries[i].second},
                           .limit = 10};
      auto hits = b.entries().KeywordSearch(q);
      ASSERT_TRUE(hits.ok()) << hits.status().ToString();
      same(*hits, before[i], queries[i].first + " round " + std::to_string(round));
    }
  }
  // Read once, all of them (v11: the store mirrors the statistics).
  EXPECT_EQ(b.entries().keyword_stats_reads(), 1);

  // A write moves the generation; the next searches score as the statement
  // computing the statistics itself.
  ASSERT_TRUE(b.entries()
                  .Upsert({.owner = "u1", .key = "new", .content = "rope rope rope", .now = 9000})
                  .ok());
  EXPECT_EQ(Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'entry_terms'"),
            generation + 1);
  const int64_t reads = b.entries().keyword_stats_reads();
  for (const auto& [query, scope] : queries) {
    const KeywordQuery q{.terms = text::QueryTerms(query), .filter = {.scope = scope}, .limit = 10};
    auto hits = b.entries().KeywordSearch(q);
    ASSERT_TRUE(hits.ok()) << hits.status().ToString();
    same(*hits, search_v8(q), query + " after a write");
  }
  // The store's own write is in its mirror once it committed: nothing read.
  EXPECT_EQ(b.entries().keyword_stats_reads() - reads, 0);
  EXPECT_EQ(b.entries().keyword_stats().own_folds(), 1);
}

}  // namespace
}  // namespace mnemo::storage

namespace mnemo::storage {
namespace {

// Issue 45: a v9 store kept every turn's search text beside its content.
// v10 keeps every row, turns the equal copies into NULL and keeps the
// others; search (also after a rebuild of the keyword index for a new text
// version), replace and erasure then read the same texts as a store written
// by this mnemo.
TEST(PgSchema, AVersion9StoreKeepsEveryTurnAndStoresItsSearchTextOnce) {
  const std::string url = testing::PostgresTestUrl();
  if (url.empty()) GTEST_SKIP() << "no PostgreSQL server";
  const std::string schema = testing::FreshPostgresSchema();
  const std::string s = QuoteIdentifier(schema);
  auto conn = PgConn::Connect(url);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  PgConn& c = **conn;
  auto v9 = internal::pg::MigrateSchema(c, schema, 9);
  ASSERT_TRUE(v9.ok()) << v9.status().ToString();
  ASSERT_EQ(*v9, 9);
  ASSERT_TRUE(c.Exec("INSERT INTO " + s + ".generations (name, value) VALUES ('text_version', $1)",
                     Params().Add(static_cast<int64_t>(text::kTextVersion)), "as v9 recorded it")
                  .ok());
  struct Old {
    const char* session;
    const char* role;
    const char* content;
    const char* search_text;
  };
  const std::vector<Old> old = {
      {"s1", "user", "which harbour has the lantern", "which harbour has the lantern"},
      {"s1", "assistant", "the north one", "the north one\nTools that failed: map"},
      {"s2", "user", "灯笼 by the rope", "灯笼 by the rope"},
      {"s2", "assistant", "", ""},
      {"s2", "user", "raw tool output", "lantern rope summary"}};
  int64_t tokens = 0;
  for (size_t i = 0; i < old.size(); ++i) {
    const internal::pg::IndexedText t = internal::pg::IndexText({old[i].search_text});
    tokens += t.length;
    ASSERT_TRUE(c.Exec("INSERT INTO " + s +
                           ".turns (id, owner, session_id, seq, role, content, timestamp_ms, "
                           "search_text, doc_length, tsv) VALUES (nextval('" +
                           s + ".turn_ids'), 'local', $1, $2, $3, $4, 1000, $5, $6, $7::tsvector)",
                       Params()
                           .Add(old[i].session)
                           .Add(static_cast<int64_t>(i))
                           .Add(old[i].role)
                           .Add(old[i].content)
                           .Add(old[i].search_text)
                           .Add(t.length)
                           .Add(internal::pg::TsvectorLiteral(t)),
                       "as v9 wrote it")
                    .ok());
  }
  ASSERT_TRUE(c.Exec("UPDATE " + s +
                         ".text_stats SET documents = documents + $1, total_tokens = "
                         "total_tokens + $2 WHERE name = 'turns'",
                     Params().Add(static_cast<int64_t>(old.size())).Add(tokens), "as v9 counted")
                  .ok());

  auto opened = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  internal::PostgresBackend& b = **opened;
  EXPECT_EQ(Int(c, "SELECT max(version) FROM " + s + ".schema_version"),
            internal::pg::LatestPgSchemaVersion());
  EXPECT_GE(internal::pg::LatestPgSchemaVersion(), 10);
  EXPECT_EQ(Int(c, "SELECT count(*) FROM " + s + ".turns"), 5);
  EXPECT_EQ(Text(c, "SELECT string_agg(id::text, ',' ORDER BY id) FROM " + s +
                        ".turns WHERE search_text IS NULL"),
            "1,3,4");
  EXPECT_EQ(Text(c, "SELECT search_text FROM " + s + ".turns WHERE id = 2"),
            "the north one\nTools that failed: map");
  EXPECT_EQ(Text(c, "SELECT search_text FROM " + s + ".turns WHERE id = 5"),
            "lantern rope summary");

  auto fresh_opened = internal::PostgresBackend::Open(
      {.url = url, .schema = testing::FreshPostgresSchema(), .pool_size = 1});
  ASSERT_TRUE(fresh_opened.ok()) << fresh_opened.status().ToString();
  internal::PostgresBackend& fresh = **fresh_opened;
  for (const Old& o : old) {
    ASSERT_TRUE(fresh.episodic()
                    .AppendTurns(std::vector<TurnWrite>{{.row = {.owner = "local",
                                                                 .session_id = o.session,
                                                                 .role = o.role,
                                                                 .content = o.content,
                                                                 .timestamp_ms = 1000},
                                                         .search_text = o.search_text}})
                    .ok());
  }
  auto same_hits = [](EpisodicStore& got_store, EpisodicStore& want_store, const char* q) {
    auto got = got_store.SearchTurns({.terms = text::QueryTerms(q)});
    auto want = want_store.SearchTurns({.terms = text::QueryTerms(q)});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    EXPECT_FALSE(got->empty()) << q;
    ASSERT_EQ(got->size(), want->size()) << q;
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].row.id, (*want)[i].row.id) << q;
      EXPECT_EQ((*got)[i].row.content, (*want)[i].row.content) << q;
      EXPECT_DOUBLE_EQ((*got)[i].score, (*want)[i].score) << q;
    }
  };
  for (const char* q : {"lantern", "harbour", "灯笼", "failed map", "rope summary", "north"}) {
    same_hits(b.episodic(), fresh.episodic(), q);
  }
  // The keyword index rebuilt for a new text version reads the same texts.
  ASSERT_TRUE(
      c.Exec("UPDATE " + s + ".generations SET value = 1 WHERE name = 'text_version'", "older")
          .ok());
  auto reopened = internal::PostgresBackend::Open({.url = url, .schema = schema, .pool_size = 1});
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  EXPECT_EQ(Int(c, "SELECT value FROM " + s + ".generations WHERE name = 'text_version'"),
            text::kTextVersion);
  for (const char* q : {"lantern", "harbour", "灯笼", "failed map", "rope summary", "north"}) {
    same_hits((*reopened)->episodic(), fresh.episodic(), q);
  }
  // A replace: by the content, NULL; by another text, stored.
  for (internal::PostgresBackend* store : {&b, &fresh}) {
    ASSERT_TRUE(store->episodic().ReplaceTurnSearchText(1, "keeper").ok());
    ASSERT_TRUE(store->episodic().ReplaceTurnSearchText(5, "raw tool output").ok());
  }
  EXPECT_EQ(Text(c, "SELECT string_agg(id::text, ',' ORDER BY id) FROM " + s +
                        ".turns WHERE search_text IS NULL"),
            "3,4,5");
  for (const char* q : {"keeper", "raw output", "rope", "north"}) {
    same_hits(b.episodic(), fresh.episodic(), q);
  }
}

}  // namespace
}  // namespace mnemo::storage

#include "storage/sqlite/migrations.h"

#include <gtest/gtest.h>

#include <vector>

#include "storage/sqlite/fts/fts_rank.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/temp_dir.h"
#include "text/pipeline/query.h"

namespace mnemo::storage::internal {
namespace {

std::unique_ptr<Connection> OpenRaw(const std::string& path) {
  auto conn = Connection::Open(path, /*create=*/true, 1000);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return nullptr;
  EXPECT_TRUE(RegisterFtsTokenizer((*conn)->handle()).ok());
  EXPECT_TRUE(RegisterEntryFunctions((*conn)->handle()).ok());
  return std::move(conn).value();
}

int64_t Count(Connection& conn, const std::string& sql) {
  auto s = conn.Prepare(sql, "count");
  EXPECT_TRUE(s.ok());
  if (!s.ok()) return -1;
  auto row = s->Step("count");
  return row.ok() && *row ? s->ColumnInt(0) : -1;
}

TEST(Migrations, NewDatabaseGetsTheLatestVersionOnce) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  auto v = Migrate(*conn, SchemaMigrations());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, LatestSchemaVersion());
  EXPECT_EQ(LatestSchemaVersion(), 18);
  v = Migrate(*conn, SchemaMigrations());
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 18);
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM schema_version"), 18);
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'entries_fts'"), 1);
}

// Issue 22: the entries' text index keeps 32 MiB of pending terms in memory
// (FTS5's default is 1 MiB), new or upgraded; the other text indexes keep
// FTS5's default.
TEST(Migrations, V14GivesTheEntriesTextIndexALargerBatch) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(13)).ok());
  constexpr const char* kHashSize = "SELECT v FROM entries_fts_config WHERE k = 'hashsize'";
  EXPECT_EQ(Count(*conn, kHashSize), -1);  // no row
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  EXPECT_EQ(Count(*conn, kHashSize), 32 << 20);
  EXPECT_EQ(Count(*conn, "SELECT v FROM turns_fts_config WHERE k = 'hashsize'"), -1);
}

// Issue 42: facets stored before v15 keep their evidence by segment only
// (statements NULL); facets stored after record their statements.
TEST(Migrations, V15LeavesEarlierFacetsWithoutStatements) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(14)).ok());
  ASSERT_TRUE(conn->Exec("INSERT INTO facets (owner, facet_type, key, value, confidence, "
                         "evidence_count, segment_ids, updated_at) VALUES ('u', 'context', "
                         "'location', 'Lisbon', 0.6, 2, '[\"s1\"]', 1)",
                         "store a facet")
                  .ok());
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM facets WHERE statements IS NULL"), 1);
}

// Issue 44: events stored before version 17 are open.
TEST(Migrations, V17LeavesEarlierEventsOpen) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(16)).ok());
  ASSERT_TRUE(conn->Exec("INSERT INTO events (id, owner, session_id, segment_id, type, text, "
                         "confidence, created_at) VALUES ('e1', 'u', 's', 'g', 'commitment', "
                         "'I will paint the fence.', 0.6, 1)",
                         "store an event")
                  .ok());
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM events WHERE closed_at = 0"), 1);
}

// Issue 17: the store's identity, which index files are bound to, is made
// for an existing database at its upgrade, once.
TEST(Migrations, V11GivesAnExistingDatabaseOneStoreId) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(10)).ok());
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM store_info"), 1);
  EXPECT_EQ(Count(*conn, "SELECT length(id) FROM store_info"), 32);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM store_info"), 1);
}

TEST(Migrations, V3CountsToolRuleWritesOfAnExistingV2Database) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(2)).ok());
  ASSERT_TRUE(conn->Exec("INSERT INTO entries (id, owner, namespace, key, content, category, "
                         "tags, visibility, created_at, updated_at, access_count, useful_count, "
                         "archived, doc_length) VALUES ('r1', 'local', 'tool-shell', 'rule/r1', "
                         "'Prefer rg.', 'high', '[]', 'private', 1, 1, 0, 0, 0, 2)",
                         "a v2 rule")
                  .ok());
  auto v = Migrate(*conn, SchemaMigrations());
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, LatestSchemaVersion());
  constexpr const char* kGeneration = "SELECT value FROM generations WHERE name = 'tool_rules'";
  EXPECT_EQ(Count(*conn, kGeneration), 0);
  ASSERT_TRUE(conn->Exec("UPDATE entries SET content = 'Prefer rg!' WHERE id = 'r1'", "u").ok());
  EXPECT_EQ(Count(*conn, kGeneration), 1);
  ASSERT_TRUE(conn->Exec("INSERT INTO entries (id, owner, namespace, key, content, category, "
                         "tags, visibility, created_at, updated_at, access_count, useful_count, "
                         "archived, doc_length) VALUES ('g1', 'local', 'global', 'k', 'v', "
                         "'core', '[]', 'private', 1, 1, 0, 0, 0, 2)",
                         "a global entry")
                  .ok());
  EXPECT_EQ(Count(*conn, kGeneration), 1);
  ASSERT_TRUE(conn->Exec("DELETE FROM entries WHERE id = 'r1'", "d").ok());
  EXPECT_EQ(Count(*conn, kGeneration), 2);
}

// A version-5 database (as mnemo 5 left it: segments with recaps) opens,
// is migrated in place, and its recaps are searchable.
TEST(Migrations, V6IndexesTheRecapsOfAnExistingV5Database) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    auto v = Migrate(*conn, SchemaMigrations().first(5));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_EQ(*v, 5);
    ASSERT_TRUE(conn->Exec("INSERT INTO segments (id, owner, session_id, status, first_seq, "
                           "last_seq, turn_count, started_at, last_turn_at, closed_at, recap, "
                           "recap_source) VALUES "
                           "('seg-1', 'local', 's1', 'closed', 0, 3, 2, 1, 2, 3, "
                           "'We chose PostgreSQL for billing.', 'extractive'), "
                           "('seg-2', 'local', 's1', 'closed', 4, 5, 1, 4, 4, 5, "
                           "'我们决定迁移数据库', 'llm'), "
                           "('seg-3', 'local', 's1', 'open', 6, 7, 1, 6, 6, 0, '', '')",
                           "v5 segments")
                    .ok());
  }
  auto b = internal::SqliteBackend::Open({.path = path});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  internal::SqliteBackend& backend = **b;
  EXPECT_EQ(backend.schema_version(), LatestSchemaVersion());
  auto hits = backend.episodic().SearchSegments({.terms = text::QueryTerms("postgresql")});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].row.id, "seg-1");
  EXPECT_GT((*hits)[0].score, 0.0);
  hits = backend.episodic().SearchSegments({.terms = text::QueryTerms("数据库")});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].row.id, "seg-2");
  // A recap replaced after the migration replaces the migrated index row.
  auto seg = backend.episodic().GetSegment("seg-1");
  ASSERT_TRUE(seg.ok() && seg->has_value());
  SegmentRow replaced = **seg;
  replaced.recap = "An LLM recap about kafka.";
  ASSERT_TRUE(backend.episodic().PutSegment(replaced).ok());
  hits = backend.episodic().SearchSegments({.terms = text::QueryTerms("postgresql")});
  ASSERT_TRUE(hits.ok());
  EXPECT_TRUE(hits->empty());
  hits = backend.episodic().SearchSegments({.terms = text::QueryTerms("kafka")});
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->size(), 1u);
  // The new tables work: documents and recap vectors.
  auto put = backend.documents().PutDocument({.content = "evidence", .search_text = "evidence"});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  EXPECT_TRUE(put->created);
  ASSERT_TRUE(backend.episodic().PutSegmentVector("seg-1", "sig", std::vector<float>{1.0F}).ok());
  auto vectors = backend.episodic().SegmentVectorsSince("sig", 0, 10);
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 1u);
  EXPECT_EQ((*vectors)[0].version, 1);
}

// A version-7 database with documents gains context events in place; the
// documents stay, and the events get seqs from 0.
TEST(Migrations, V8AddsContextEventsToAnExistingV7Database) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    auto v = Migrate(*conn, SchemaMigrations().first(7));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_EQ(*v, 7);
    EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'context_events'"), 0);
  }
  {
    auto b = internal::SqliteBackend::Open({.path = path});
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    ASSERT_TRUE((*b)->documents().PutDocument({.content = "kept", .search_text = "kept"}).ok());
  }
  auto b = internal::SqliteBackend::Open({.path = path});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->schema_version(), LatestSchemaVersion());
  auto e = (*b)->context_events().AppendContextEvent(
      {.session_id = "s", .event_json = "{}", .search_text = "pelican", .timestamp_ms = 1});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->seq, 0);
  auto hits = (*b)->context_events().SearchContextEvents({.terms = text::QueryTerms("pelican")});
  ASSERT_TRUE(hits.ok());
  EXPECT_EQ(hits->size(), 1u);
  auto count = (*b)->documents().CountDocuments(std::nullopt);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, 1);
}

// A version-8 database gains entry fingerprints (NULL for what is stored:
// such entries are candidates of every fingerprint) and the tool registry
// counter, which then moves with registry writes only.
TEST(Migrations, V9AddsFingerprintsAndTheToolRegistryCounterToAnExistingV8Database) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    auto v = Migrate(*conn, SchemaMigrations().first(8));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_EQ(*v, 8);
    ASSERT_TRUE(conn->Exec("INSERT INTO entries (id, owner, namespace, key, content, category, "
                           "created_at, updated_at) VALUES ('e1', 'local', 'tool-shell', "
                           "'rule/1', 'Prefer rg.', 'normal', 1, 1)",
                           "insert")
                    .ok());
  }
  auto b = internal::SqliteBackend::Open({.path = path});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)->schema_version(), LatestSchemaVersion());
  std::vector<std::string> seen;
  auto r = (*b)->entries().Mutate(
      {.owner = "local", .ns = "tool-shell", .fingerprint = "any"},
      [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
        for (const Entry& e : current) seen.push_back(e.key);
        return std::vector<EntryWrite>{};
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(seen, std::vector<std::string>{"rule/1"});
  auto g0 = (*b)->entries().Generation(Counter::kToolRegistry);
  ASSERT_TRUE(g0.ok());
  ASSERT_TRUE((*b)->entries().Upsert({.ns = "global", .key = "k", .content = "x"}).ok());
  EXPECT_EQ(*(*b)->entries().Generation(Counter::kToolRegistry), *g0);
  ASSERT_TRUE(
      (*b)->entries().Upsert({.ns = "tool_registry", .key = "cmd_run", .content = "{}"}).ok());
  EXPECT_NE(*(*b)->entries().Generation(Counter::kToolRegistry), *g0);
}

// Issue 22: a version-12 database gains the narrow search rows of what it
// holds, and every later write to `entries` (insert, the columns a search
// reads, delete) reaches them and each owner's counters; an owner's row
// goes with their last entry.
TEST(Migrations, V13KeepsTheSearchRowsEqualToTheEntries) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(12)).ok());
  ASSERT_TRUE(conn->Exec("INSERT INTO entries (id, owner, namespace, key, content, category, "
                         "created_at, updated_at, doc_length) VALUES ('e1', 'ann', 'global', "
                         "'k1', 'old text', 'normal', 1, 1, 2), ('e2', 'bob', 'tool-shell', "
                         "'k2', 'more', 'critical', 1, 5, 1)",
                         "insert")
                  .ok());
  ASSERT_TRUE(Migrate(*conn, SchemaMigrations()).ok());
  // The search row each entry should have.
  const std::string differing =
      "SELECT COUNT(*) FROM (SELECT e.rowid, e.doc_length, e.updated_at, e.owner, "
      "e.archived | (CASE WHEN e.visibility = 'public' THEN 2 ELSE 0 END) | "
      "(CASE WHEN e.namespace GLOB 'tool-*' OR e.namespace IN ('tool_effectiveness', "
      "'tool_registry') THEN 4 ELSE 0 END) FROM entries e EXCEPT SELECT s.rowid, s.doc_length, "
      "s.updated_at, o.owner, s.flags FROM entries_search s JOIN entry_owners o ON o.id = "
      "s.owner_id)";
  // The counters each owner's row should hold.
  const std::string miscounted =
      "SELECT COUNT(*) FROM (SELECT o.owner, count(e.rowid), COALESCE(sum(e.doc_length), 0), "
      "COALESCE(sum(e.visibility = 'public'), 0), COALESCE(sum(CASE WHEN e.visibility = "
      "'public' THEN e.doc_length ELSE 0 END), 0) FROM entry_owners o LEFT JOIN entries e ON "
      "e.owner = o.owner GROUP BY o.owner EXCEPT SELECT owner, entries, tokens, public_entries, "
      "public_tokens FROM entry_owners)";
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM entries_search"), 2);
  EXPECT_EQ(Count(*conn, differing), 0);
  EXPECT_EQ(Count(*conn, miscounted), 0);
  EXPECT_EQ(Count(*conn, "SELECT tokens FROM entry_owners WHERE owner = 'ann'"), 2);
  EXPECT_EQ(Count(*conn,
                  "SELECT flags FROM entries_search WHERE rowid = (SELECT rowid FROM "
                  "entries WHERE id = 'e2')"),
            4);
  ASSERT_TRUE(conn->Exec("INSERT INTO entries (id, owner, namespace, key, content, category, "
                         "created_at, updated_at) VALUES ('e3', 'ann', 'tool_registry', 'k3', "
                         "'x', 'normal', 2, 2); "
                         "UPDATE entries SET archived = 1, doc_length = 7, updated_at = 9, "
                         "visibility = 'public', namespace = 'n2', owner = 'cy' WHERE id = 'e1'; "
                         "UPDATE entries SET access_count = 4 WHERE id = 'e3'; "
                         "DELETE FROM entries WHERE id = 'e2'",
                         "write")
                  .ok());
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM entries_search"), 2);
  EXPECT_EQ(Count(*conn, differing), 0);
  EXPECT_EQ(Count(*conn, miscounted), 0);
  EXPECT_EQ(Count(*conn, "SELECT public_tokens FROM entry_owners WHERE owner = 'cy'"), 7);
  EXPECT_EQ(Count(*conn, "SELECT flags FROM entries_search WHERE doc_length = 7"), 3);
  // bob's last entry is gone, and so is bob.
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM entry_owners WHERE owner = 'bob'"), 0);
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM entry_owners"), 2);
}

// Issue 45: a version-17 database stored every turn's search text beside its
// content. v18 keeps every row and id, turns the equal copies into NULL and
// keeps the others; search, replace and erasure then read the same texts,
// and the hits score as in a store written by this mnemo.
TEST(Migrations, V18StoresATurnsSearchTextOnceAndKeepsEveryRow) {
  struct Old {
    std::string_view session;
    std::string_view role;
    std::string_view content;
    std::string_view search_text;
  };
  const std::vector<Old> old = {
      {"s1", "user", "which harbour has the lantern", "which harbour has the lantern"},
      {"s1", "assistant", "the north one", "the north one\nTools that failed: map"},
      {"s2", "user", "灯笼 by the rope", "灯笼 by the rope"},
      {"s2", "assistant", "", ""},
      {"s2", "user", "raw tool output", "lantern rope summary"}};
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    ASSERT_TRUE(Migrate(*conn, SchemaMigrations().first(17)).ok());
    for (size_t i = 0; i < old.size(); ++i) {
      const int64_t id = static_cast<int64_t>(i) + 1;
      auto length = IndexFtsRow(*conn, "turns_fts", id, {{"body", old[i].search_text}});
      ASSERT_TRUE(length.ok()) << length.status().ToString();
      auto put = conn->Prepare(
          "INSERT INTO turns (id, owner, session_id, seq, role, content, timestamp_ms, "
          "search_text, doc_length) VALUES (?1, 'local', ?2, ?1, ?3, ?4, 1000, ?5, ?6)",
          "as v17 wrote it");
      ASSERT_TRUE(put.ok());
      put->Bind(1, id);
      put->Bind(2, old[i].session);
      put->Bind(3, old[i].role);
      put->Bind(4, old[i].content);
      put->Bind(5, old[i].search_text);
      put->Bind(6, *length);
      ASSERT_TRUE(put->Run("as v17 wrote it").ok());
    }
  }
  auto opened = SqliteBackend::Open({.path = path});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  SqliteBackend& b = **opened;
  EXPECT_EQ(b.schema_version(), 18);
  auto fresh_opened = SqliteBackend::Open({.path = dir.File("fresh.db")});
  ASSERT_TRUE(fresh_opened.ok());
  SqliteBackend& fresh = **fresh_opened;
  for (const Old& o : old) {
    ASSERT_TRUE(
        fresh.episodic()
            .AppendTurns(std::vector<TurnWrite>{{.row = {.owner = "local",
                                                         .session_id = std::string(o.session),
                                                         .role = std::string(o.role),
                                                         .content = std::string(o.content),
                                                         .timestamp_ms = 1000},
                                                 .search_text = std::string(o.search_text)}})
            .ok());
  }
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM turns"), 5);
    auto nulls = conn->Prepare(
        "SELECT group_concat(id, ',') FROM (SELECT id FROM turns WHERE "
        "search_text IS NULL ORDER BY id)",
        "read");
    ASSERT_TRUE(nulls.ok());
    ASSERT_TRUE(*nulls->Step("read"));
    EXPECT_EQ(nulls->ColumnText(0), "1,3,4");
    EXPECT_EQ(Count(*conn,
                    "SELECT COUNT(*) FROM turns WHERE id = 2 AND search_text = "
                    "'the north one' || char(10) || 'Tools that failed: map'"),
              1);
    EXPECT_EQ(Count(*conn,
                    "SELECT COUNT(*) FROM turns WHERE id = 5 AND search_text = "
                    "'lantern rope summary'"),
              1);
    // The rebuilt table has the columns a new database has.
    EXPECT_EQ(Count(*conn,
                    "SELECT \"notnull\" FROM pragma_table_info('turns') WHERE "
                    "name = 'search_text'"),
              0);
  }
  auto same_hits = [&](const char* q) {
    auto got = b.episodic().SearchTurns({.terms = text::QueryTerms(q)});
    auto want = fresh.episodic().SearchTurns({.terms = text::QueryTerms(q)});
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_FALSE(got->empty()) << q;
    ASSERT_EQ(got->size(), want->size()) << q;
    for (size_t i = 0; i < got->size(); ++i) {
      EXPECT_EQ((*got)[i].row.id, (*want)[i].row.id) << q;
      EXPECT_EQ((*got)[i].row.content, (*want)[i].row.content) << q;
      EXPECT_DOUBLE_EQ((*got)[i].score, (*want)[i].score) << q;
    }
  };
  for (const char* q : {"lantern", "harbour", "灯笼", "failed map", "rope summary", "north"}) {
    same_hits(q);
  }
  // A replace reads the migrated text to take it out of the index.
  for (SqliteBackend* store : {&b, &fresh}) {
    ASSERT_TRUE(store->episodic().ReplaceTurnSearchText(1, "keeper").ok());
    ASSERT_TRUE(store->episodic().ReplaceTurnSearchText(5, "raw tool output").ok());
  }
  for (const char* q : {"keeper", "raw output", "rope", "north"}) same_hits(q);
  // Erasure too.
  for (SqliteBackend* store : {&b, &fresh}) {
    ASSERT_TRUE(store->admin()
                    .EraseSession({.owner = "local", .session_id = SessionId::Parse("s1").value()})
                    .ok());
  }
  for (const char* q : {"raw output", "rope", "灯笼"}) same_hits(q);
}

TEST(Migrations, AppliesOnlyTheMissingOnesInOrder) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  const Migration v1[] = {{1, "t", "CREATE TABLE t (a INTEGER)"}};
  ASSERT_TRUE(Migrate(*conn, v1).ok());
  const Migration v3[] = {{1, "t", "CREATE TABLE t (a INTEGER)"},
                          {2, "t.b", "ALTER TABLE t ADD COLUMN b INTEGER"},
                          {3, "row", "INSERT INTO t (a, b) VALUES (1, 2)"}};
  auto v = Migrate(*conn, v3);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 3);
  EXPECT_EQ(Count(*conn, "SELECT b FROM t"), 2);
  auto read = ReadSchemaVersion(*conn);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, 3);
}

TEST(Migrations, AFailingMigrationLeavesThePreviousVersion) {
  testing::TempDir dir;
  auto conn = OpenRaw(dir.File("db"));
  ASSERT_NE(conn, nullptr);
  const Migration good[] = {{1, "t", "CREATE TABLE t (a INTEGER)"}};
  ASSERT_TRUE(Migrate(*conn, good).ok());
  const Migration bad[] = {{1, "t", "CREATE TABLE t (a INTEGER)"},
                           {2, "u", "CREATE TABLE u (a INTEGER)"},
                           {3, "broken", "CREATE TABLE t (a INTEGER)"}};
  auto v = Migrate(*conn, bad);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message().find("CREATE"), std::string::npos) << v.status().message();
  auto read = ReadSchemaVersion(*conn);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, 1);
  EXPECT_EQ(Count(*conn, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'u'"), 0);
}

TEST(Migrations, ANewerDatabaseIsRefused) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto b = internal::SqliteBackend::Open({.path = path});
    ASSERT_TRUE(b.ok());
  }
  {
    auto conn = OpenRaw(path);
    ASSERT_NE(conn, nullptr);
    ASSERT_TRUE(
        conn->Exec("INSERT INTO schema_version (version, applied_at) VALUES (99, 0)", "bump").ok());
  }
  auto b = internal::SqliteBackend::Open({.path = path});
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(b.status().message().find("99"), std::string::npos) << b.status().message();
  EXPECT_NE(b.status().message().find("newer"), std::string::npos) << b.status().message();
  // Refused untouched: the version is still 99.
  auto conn = OpenRaw(path);
  ASSERT_NE(conn, nullptr);
  auto v = ReadSchemaVersion(*conn);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 99);
}

}  // namespace
}  // namespace mnemo::storage::internal

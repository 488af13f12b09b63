// The keyword index is rebuilt when the text version changed (issue 18
// section 4: the Porter2 stemmer changed every English token).
#include "storage/sqlite/fts/text_version.h"

#include <gtest/gtest.h>

#include <span>

#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/temp_dir.h"
#include "text/pipeline/query.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage {
namespace {

std::unique_ptr<internal::SqliteBackend> Open(const std::string& path) {
  auto r = internal::SqliteBackend::Open({.path = path});
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::unique_ptr<internal::Connection> OpenRaw(const std::string& path) {
  auto conn = internal::Connection::Open(path, /*create=*/false, 1000);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return nullptr;
  EXPECT_TRUE(internal::RegisterFtsTokenizer((*conn)->handle()).ok());
  EXPECT_TRUE(internal::RegisterEntryFunctions((*conn)->handle()).ok());
  return std::move(conn).value();
}

// What an index built by another tokenizer looks like: each FTS row holds
// tokens the current tokenizer does not make of the row's text ("stale").
void MakeStale(const std::string& path, bool forget_version) {
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->Exec("INSERT INTO entries_fts(entries_fts) VALUES ('delete-all');"
                       "INSERT INTO entries_fts(rowid, key, content) "
                       "  SELECT rowid, 'stale', 'stale' FROM entries;"
                       "INSERT INTO turns_fts(turns_fts) VALUES ('delete-all');"
                       "INSERT INTO turns_fts(rowid, body) SELECT id, 'stale' FROM turns;",
                       "make the index stale")
                  .ok());
  if (forget_version) {
    ASSERT_TRUE(
        db->Exec("DELETE FROM generations WHERE name = 'text_version'", "forget the version").ok());
  }
}

size_t Entries(internal::SqliteBackend& b, const std::string& query) {
  auto hits = b.entries().KeywordSearch({.terms = text::QueryTerms(query)});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits->size() : 0;
}

size_t Turns(internal::SqliteBackend& b, const std::string& query) {
  auto hits = b.episodic().SearchTurns({.terms = text::QueryTerms(query)});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  return hits.ok() ? hits->size() : 0;
}

TEST(TextVersion, AnIndexOfAnotherVersionIsRebuiltOnceAtOpen) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto b = Open(path);
    ASSERT_NE(b, nullptr);
    ASSERT_TRUE(b->entries()
                    .Upsert({.key = "rollout", .content = "the deployment of billing", .now = 1})
                    .ok());
    TurnWrite turn;
    turn.row = {.owner = "local", .session_id = "s", .role = "user", .content = "x"};
    turn.row.timestamp_ms = 1;
    turn.search_text = "we deployed billing";
    ASSERT_TRUE(b->episodic().AppendTurns(std::span(&turn, 1)).ok());
    EXPECT_EQ(Entries(*b, "deploy"), 1u);  // Porter2: deployment -> deploy
  }
  // An index of an older version (no version recorded): rebuilt.
  MakeStale(path, /*forget_version=*/true);
  {
    auto b = Open(path);
    ASSERT_NE(b, nullptr);
    EXPECT_EQ(Entries(*b, "stale"), 0u);
    EXPECT_EQ(Entries(*b, "deploys"), 1u);
    EXPECT_EQ(Turns(*b, "stale"), 0u);
    EXPECT_EQ(Turns(*b, "deploying"), 1u);
  }
  // The version is recorded: an index of the current version is left alone.
  MakeStale(path, /*forget_version=*/false);
  auto b = Open(path);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(Entries(*b, "stale"), 1u);
  auto db = OpenRaw(path);
  ASSERT_NE(db, nullptr);
  auto rebuilt = internal::EnsureTextVersion(*db);
  ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().ToString();
  EXPECT_EQ(*rebuilt, 0);
}

}  // namespace
}  // namespace mnemo::storage

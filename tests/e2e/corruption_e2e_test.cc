// Issue 42, item 6, through the real daemon: memory.health sees a damaged
// database (a bounded PRAGMA quick_check) and a damaged vector index file (its
// own checksum) and reports them with the corruption status code; once the
// database is known to be damaged, writes are refused instead of being
// written into it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

// The first page of table `table` of the database at `path`, and its size.
std::pair<int64_t, int64_t> RootPage(const std::string& path, const std::string& table) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  int64_t root = 0;
  int64_t page_size = 0;
  sqlite3_stmt* s = nullptr;
  const std::string sql = "SELECT rootpage FROM sqlite_master WHERE name = '" + table + "'";
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK);
  if (sqlite3_step(s) == SQLITE_ROW) root = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  EXPECT_EQ(sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &s, nullptr), SQLITE_OK);
  if (sqlite3_step(s) == SQLITE_ROW) page_size = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return {root, page_size};
}

// Overwrites `length` bytes of `path` at `offset` with 0xA5.
void Scribble(const std::string& path, int64_t offset, int64_t length) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  ASSERT_TRUE(f) << path;
  f.seekp(offset);
  const std::string junk(static_cast<size_t>(length), '\xA5');
  f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  ASSERT_TRUE(f) << path;
}

// The status of the health check of `part` ("database", "vectors ...").
std::string CheckStatus(const json& health, const std::string& part_prefix) {
  for (const json& c : health["integrity"]["checks"]) {
    if (c["part"].get<std::string>().rfind(part_prefix, 0) == 0) return c["status"];
  }
  return "missing";
}

RunResult Cli(const std::string& workspace, std::vector<std::string> command) {
  std::vector<std::string> args = {"--workspace", workspace};
  args.insert(args.end(), command.begin(), command.end());
  return RunMnemo(args);
}

TEST(CorruptionE2e, HealthReportsADamagedDatabaseAndWritesAreRefused) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  ASSERT_EQ(Cli(ws, {"memory", "store", "k", "the deploy runbook"}).exit_code, 0);
  for (int i = 0; i < 20; ++i) {
    const json doc = {{"content", "billing runbook part " + std::to_string(i) + " " +
                                      std::string(600, static_cast<char>('a' + i % 26))}};
    ASSERT_EQ(Cli(ws, {"rpc", "memory.doc_put", doc.dump()}).exit_code, 0);
  }
  {
    Daemon healthy(ws);
    ASSERT_TRUE(healthy.started()) << healthy.Stderr();
    json health = RpcClient(healthy.port()).Result("memory.health", json::object());
    EXPECT_EQ(health["integrity"]["status"], "ok") << health.dump();
    EXPECT_EQ(CheckStatus(health, "database"), "ok") << health.dump();
    EXPECT_EQ(CheckStatus(health, "vectors "), "ok") << health.dump();
    healthy.Stop(SIGTERM);
  }
  const std::string db = ws + "/mnemo.db";
  const auto [root, page_size] = RootPage(db, "documents");
  ASSERT_GT(root, 1);
  Scribble(db, (root - 1) * page_size, page_size);

  Daemon daemon(ws);
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  RpcClient rpc(daemon.port());
  json health = rpc.Result("memory.health", json::object());
  EXPECT_EQ(health["integrity"]["status"], "corruption") << health.dump();
  EXPECT_EQ(CheckStatus(health, "database"), "corruption") << health.dump();
  // The entry on a sound page still reads.
  EXPECT_EQ(rpc.Result("memory.get", {{"key", "k"}})["content"], "the deploy runbook");
  // A write is refused, and nothing reaches the database or its log.
  const auto wal_before =
      std::filesystem::exists(db + "-wal") ? std::filesystem::file_size(db + "-wal") : 0;
  json store = rpc.Call("memory.store", {{"key", "k2"}, {"value", "written into a damaged file"}});
  ASSERT_TRUE(store.contains("error")) << store.dump();
  EXPECT_EQ(store["error"]["code"], -32000) << store.dump();
  EXPECT_NE(store["error"]["message"].get<std::string>().find("damaged"), std::string::npos)
      << store.dump();
  const auto wal_after =
      std::filesystem::exists(db + "-wal") ? std::filesystem::file_size(db + "-wal") : 0;
  EXPECT_EQ(wal_after, wal_before);
  // Stderr is read by a thread: all of it is in once the daemon has stopped.
  daemon.Stop(SIGTERM);
  EXPECT_NE(daemon.Stderr().find("writes are refused"), std::string::npos) << daemon.Stderr();
}

TEST(CorruptionE2e, HealthReportsAVectorIndexFileFailingItsChecksum) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  for (int i = 0; i < 5; ++i) {
    ASSERT_EQ(
        Cli(ws, {"memory", "store", "k" + std::to_string(i), "fact number " + std::to_string(i)})
            .exit_code,
        0);
  }
  Daemon daemon(ws);
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  RpcClient rpc(daemon.port());
  std::string file;
  for (const auto& e : std::filesystem::recursive_directory_iterator(ws + "/index")) {
    if (e.is_regular_file()) file = e.path().string();
  }
  ASSERT_FALSE(file.empty()) << "no vector index file under " << ws << "/index";
  EXPECT_EQ(CheckStatus(rpc.Result("memory.health", json::object()), "vectors "), "ok");
  const auto size = static_cast<int64_t>(std::filesystem::file_size(file));
  Scribble(file, size - 16, 8);  // inside the payload: the header still parses
  json health = rpc.Result("memory.health", json::object());
  EXPECT_EQ(health["integrity"]["status"], "corruption") << health.dump();
  EXPECT_EQ(CheckStatus(health, "vectors "), "corruption") << health.dump();
  EXPECT_EQ(CheckStatus(health, "database"), "ok") << health.dump();
  daemon.Stop(SIGTERM);
}

}  // namespace
}  // namespace mnemo::e2e

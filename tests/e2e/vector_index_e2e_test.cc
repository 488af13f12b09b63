// Vector index files through the real daemon (issue 17, items 4 and 5).
//
// Item 4: an index file is bound to its database. An older mnemo.db put back
// beside a newer index file, and another workspace's index file copied in,
// were trusted: search answered from vectors the database does not hold
// (entries scored by text they no longer have). Now both are rebuilt, and
// every search answers as a fresh rebuild does.
//
// Item 5: the index file was written only at a clean exit, so a restart
// after a crash rebuilt the index before its first answer. Now the daemon
// writes it every index.save_interval_secs when it fell behind, and a
// restart after SIGKILL loads it and replays the change log since.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "index/index_file.h"
#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::vector<std::string> kQueries = {"zebra migration across the savanna",
                                           "kite festival on the beach",
                                           "topic 3 notes",
                                           "quarterly budget review",
                                           "deploy the billing server",
                                           "topic 17 notes"};

// One search's answer: key -> vector score (-1 when the hit has none).
using Answer = std::map<std::string, double>;

std::vector<Answer> Ask(int port) {
  RpcClient rpc(port);
  std::vector<Answer> out;
  for (const std::string& q : kQueries) {
    json r = rpc.Result("memory.search", {{"query", q}, {"max_results", 10}, {"min_score", 0}});
    Answer a;
    for (const json& hit : r["results"]) {
      a[hit["key"]] = hit.contains("vector_score") && hit["vector_score"].is_number()
                          ? hit["vector_score"].get<double>()
                          : -1.0;
    }
    out.push_back(a);
  }
  return out;
}

void Store(RpcClient& rpc, const std::string& key, const std::string& value) {
  ASSERT_TRUE(rpc.Result("memory.store", {{"key", key}, {"value", value}}).is_object()) << key;
}

void StoreTopics(int port, int from, int to) {
  RpcClient rpc(port);
  for (int i = from; i < to; ++i) {
    Store(rpc, "k" + std::to_string(i),
          "topic " + std::to_string(i) + " notes about " +
              (i % 3 == 0   ? "kites"
               : i % 3 == 1 ? "budgets"
                            : "servers"));
  }
}

// The keys the database holds.
std::set<std::string> KeysInDatabase(const std::string& ws) {
  std::set<std::string> keys;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open((ws + "/mnemo.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT key FROM entries", -1, &s, nullptr), SQLITE_OK);
  while (sqlite3_step(s) == SQLITE_ROW) {
    keys.insert(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)));
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return keys;
}

int64_t VectorWatermark(const std::string& ws) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open((ws + "/mnemo.db").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  EXPECT_EQ(
      sqlite3_prepare_v2(db, "SELECT COALESCE(MAX(seq), 0) FROM vector_changes", -1, &s, nullptr),
      SQLITE_OK);
  int64_t seq = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return seq;
}

// The database with its WAL, if any (the daemon is stopped).
void CopyDatabase(const std::string& from_ws, const std::string& to_ws) {
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const fs::path to = to_ws + "/mnemo.db" + suffix;
    fs::remove(to);
    const fs::path from = from_ws + "/mnemo.db" + suffix;
    if (fs::exists(from)) fs::copy_file(from, to);
  }
}

// What a daemon answers on `ws` after rebuilding its index from storage.
std::vector<Answer> AnswersOfAFreshRebuild(const std::string& ws, testing::TempDir& dir) {
  const std::string fresh = dir.Sub("fresh-" + std::to_string(::getpid()));
  fs::remove_all(fresh);
  fs::create_directories(fresh);
  CopyDatabase(ws, fresh);
  Daemon d(fresh);
  EXPECT_TRUE(d.started()) << d.Stderr();
  std::vector<Answer> answers = Ask(d.port());
  d.Stop(SIGTERM);
  fs::remove_all(fresh);
  return answers;
}

void ExpectAnswersOf(const std::vector<Answer>& got, const std::vector<Answer>& fresh,
                     const std::set<std::string>& keys) {
  ASSERT_EQ(got.size(), fresh.size());
  for (size_t q = 0; q < got.size(); ++q) {
    SCOPED_TRACE("query \"" + kQueries[q] + "\"");
    for (const auto& [key, score] : got[q]) {
      EXPECT_TRUE(keys.contains(key)) << key << " is not in the database";
    }
    EXPECT_EQ(got[q].size(), fresh[q].size());
    for (const auto& [key, score] : fresh[q]) {
      ASSERT_TRUE(got[q].contains(key)) << key << " (a fresh rebuild finds it) is missing";
      EXPECT_NEAR(got[q].at(key), score, 1e-5) << key << ": not the vector score of its text";
    }
  }
}

std::vector<fs::path> IndexFiles(const std::string& ws) {
  std::vector<fs::path> files;
  if (!fs::exists(ws + "/index")) return files;
  for (const auto& f : fs::directory_iterator(ws + "/index")) {
    if (f.path().extension() == ".idx") files.push_back(f.path());
  }
  return files;
}

TEST(VectorIndexE2e, AnOlderDatabaseBesideANewerIndexFileIsNotTrusted) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  fs::create_directories(ws);
  {
    Daemon d(ws);
    ASSERT_TRUE(d.started()) << d.Stderr();
    StoreTopics(d.port(), 0, 30);
    ASSERT_EQ(d.Stop(SIGTERM), 0);
  }
  const std::string aside = dir.Sub("aside");
  fs::create_directories(aside);
  CopyDatabase(ws, aside);
  {
    Daemon d(ws);
    ASSERT_TRUE(d.started()) << d.Stderr();
    RpcClient rpc(d.port());
    // New text under old labels, forgotten entries, new entries.
    for (int i = 0; i < 5; ++i) {
      Store(rpc, "k" + std::to_string(i),
            "zebra migration across the savanna, part " + std::to_string(i));
    }
    for (int i = 5; i < 10; ++i) {
      EXPECT_EQ(rpc.Result("memory.forget", {{"key", "k" + std::to_string(i)}})["forgotten"], true);
    }
    Store(rpc, "n0", "kite festival on the beach");
    Store(rpc, "n1", "quarterly budget review");
    ASSERT_EQ(d.Stop(SIGTERM), 0);
  }
  // The index file now reflects the newer database.
  RunResult reindex = RunMnemo({"--workspace", ws, "reindex"});
  ASSERT_EQ(reindex.exit_code, 0) << reindex.err;
  ASSERT_FALSE(IndexFiles(ws).empty());
  CopyDatabase(aside, ws);

  Daemon d(ws);
  ASSERT_TRUE(d.started()) << d.Stderr();
  const std::vector<Answer> got = Ask(d.port());
  ASSERT_EQ(d.Stop(SIGTERM), 0);
  EXPECT_NE(d.Stderr().find("is ahead of the database"), std::string::npos) << d.Stderr();
  ExpectAnswersOf(got, AnswersOfAFreshRebuild(ws, dir), KeysInDatabase(ws));
}

TEST(VectorIndexE2e, AnotherWorkspacesIndexFileIsNotTrusted) {
  testing::TempDir dir;
  const std::string theirs = dir.Sub("theirs");
  const std::string ours = dir.Sub("ours");
  fs::create_directories(theirs);
  fs::create_directories(ours);
  {
    Daemon d(theirs);
    ASSERT_TRUE(d.started()) << d.Stderr();
    RpcClient rpc(d.port());
    for (int i = 0; i < 40; ++i) {
      Store(rpc, "t" + std::to_string(i),
            i % 2 ? "zebra migration across the savanna" : "deploy the billing server");
    }
    ASSERT_EQ(d.Stop(SIGTERM), 0);
  }
  ASSERT_EQ(RunMnemo({"--workspace", theirs, "reindex"}).exit_code, 0);
  {
    Daemon d(ours);
    ASSERT_TRUE(d.started()) << d.Stderr();
    StoreTopics(d.port(), 0, 20);
    ASSERT_EQ(d.Stop(SIGTERM), 0);
  }
  for (const fs::path& f : IndexFiles(theirs)) {
    fs::copy_file(f, ours + "/index/" + f.filename().string(),
                  fs::copy_options::overwrite_existing);
  }
  Daemon d(ours);
  ASSERT_TRUE(d.started()) << d.Stderr();
  const std::vector<Answer> got = Ask(d.port());
  ASSERT_EQ(d.Stop(SIGTERM), 0);
  EXPECT_NE(d.Stderr().find("was built from another store"), std::string::npos) << d.Stderr();
  ExpectAnswersOf(got, AnswersOfAFreshRebuild(ours, dir), KeysInDatabase(ours));
}

struct FileStamp {
  ino_t inode = 0;
  int64_t mtime_ns = 0;
  uint64_t watermark = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

std::optional<FileStamp> StampOf(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  auto header = index::ReadIndexFileHeader(path);
  if (!header.ok()) return std::nullopt;
  return FileStamp{st.st_ino, st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec,
                   header->watermark};
}

// Above index.hnsw_threshold, killed after the periodic save: the restart
// loads the file (it is not rewritten, and nothing says "rebuilding") and
// replays the writes acknowledged since, which vector search then finds.
TEST(VectorIndexE2e, ARestartAfterACrashLoadsThePeriodicallySavedFile) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  fs::create_directories(ws);
  std::ofstream(ws + "/mnemo.toml") << "[index]\nhnsw_threshold = 50\nsave_interval_secs = 1\n";
  const fs::path hnsw_file = ws + "/index/hash-v2-384.hnsw.idx";
  FileStamp saved;
  {
    Daemon d(ws);
    ASSERT_TRUE(d.started()) << d.Stderr();
    StoreTopics(d.port(), 0, 120);  // past the threshold: an hnsw index
    // Switching to hnsw made the index due for a save (the file on disk is
    // flat); the file appears whole (written aside, then renamed).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    std::optional<FileStamp> stamp;
    while (!(stamp = StampOf(hnsw_file)) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(stamp) << "no periodic save of the hnsw index within 30 s: " << d.Stderr();
    // Acknowledged after the save, not in the file: the change log has them.
    RpcClient rpc(d.port());
    for (int i = 0; i < 10; ++i) {
      Store(rpc, "late" + std::to_string(i),
            "late note " + std::to_string(i) + " about the lighthouse keeper");
    }
    // Too few changes since for another save (kSaveAfterChanges): the file
    // stays as it was through two more periods.
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    ASSERT_EQ(StampOf(hnsw_file), stamp);
    saved = *stamp;
    ASSERT_EQ(d.Stop(SIGKILL), 128 + SIGKILL);
  }
  ASSERT_LT(saved.watermark, static_cast<uint64_t>(VectorWatermark(ws)));
  Daemon d(ws);
  ASSERT_TRUE(d.started()) << d.Stderr();
  RpcClient rpc(d.port());
  EXPECT_EQ(rpc.Result("memory.stats", json::object())["entries"], 130);
  for (int i = 0; i < 10; ++i) {
    json r =
        rpc.Result("memory.search",
                   {{"query", "late note " + std::to_string(i) + " about the lighthouse keeper"},
                    {"max_results", 3},
                    {"min_score", 0}});
    ASSERT_FALSE(r["results"].empty()) << r.dump();
    EXPECT_EQ(r["results"][0]["key"], "late" + std::to_string(i));
    EXPECT_GT(r["results"][0].value("vector_score", 0.0), 0.99) << r.dump();
  }
  for (int i = 0; i < 120; i += 7) {
    json r = rpc.Result("memory.get", {{"key", "k" + std::to_string(i)}});
    EXPECT_TRUE(r.contains("content")) << i;
  }
  const std::optional<FileStamp> after = StampOf(hnsw_file);
  ASSERT_TRUE(after);
  EXPECT_EQ(*after, saved) << "the index was rebuilt and rewritten instead of loaded";
  ASSERT_EQ(d.Stop(SIGTERM), 0);
  EXPECT_EQ(d.Stderr().find("rebuilding"), std::string::npos) << d.Stderr();
}

}  // namespace
}  // namespace mnemo::e2e

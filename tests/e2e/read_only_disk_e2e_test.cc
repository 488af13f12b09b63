// Issue 17, item 6, through the real daemon: a read must not become a
// write. memory.get and memory.doc_get count accesses, and when that count
// cannot be written the read still answers (the count is best effort).
//
// Two real ways to make the daemon's writes fail while its reads work:
// another SQLite connection holding the database's write lock (portable: the
// writer gets SQLITE_BUSY after its 5 s busy timeout while WAL readers go
// on), and, where the test may mount (root), a full tmpfs (SQLITE_FULL, the
// failure the issue saw).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

// Stores one entry and one document; returns the document's id.
std::string Seed(RpcClient& rpc) {
  EXPECT_TRUE(
      rpc.Result("memory.store", {{"key", "k"}, {"value", "the deploy runbook"}}).is_object());
  return rpc.Result("memory.doc_put", {{"content", "a runbook for billing"}})["id"];
}

TEST(ReadOnlyDiskE2e, ReadsAnswerWhileAnotherConnectionHoldsTheWriteLock) {
  testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  RpcClient rpc(daemon.port());
  const std::string doc_id = Seed(rpc);
  EXPECT_EQ(rpc.Result("memory.get", {{"key", "k"}})["access_count"], 1);

  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir.path() + "/mnemo.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);

  json got = rpc.Call("memory.get", {{"key", "k"}});
  ASSERT_TRUE(got.contains("result")) << got.dump();
  EXPECT_EQ(got["result"]["content"], "the deploy runbook");
  EXPECT_EQ(got["result"]["access_count"], 1);  // not counted: the write failed
  json doc = rpc.Call("memory.doc_get", {{"id", doc_id}});
  ASSERT_TRUE(doc.contains("result")) << doc.dump();
  EXPECT_EQ(doc["result"]["content"], "a runbook for billing");
  // A write is still refused: only reads are best effort.
  json store = rpc.Call("memory.store", {{"key", "k2"}, {"value", "v"}});
  EXPECT_TRUE(store.contains("error")) << store.dump();

  ASSERT_EQ(sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_EQ(rpc.Result("memory.get", {{"key", "k"}})["access_count"], 2);
  EXPECT_NE(daemon.Stderr().find("an access count could not be written"), std::string::npos)
      << daemon.Stderr();
}

// A tmpfs of a few MiB under the test's temp dir, unmounted at the end.
class FullDisk {
 public:
  explicit FullDisk(const std::string& path) : path_(path) {
    std::filesystem::create_directories(path);
    mounted_ = ::mount("tmpfs", path.c_str(), "tmpfs", 0, "size=8m,mode=0700") == 0;
    error_ = errno;
  }
  ~FullDisk() {
    if (mounted_) ::umount2(path_.c_str(), MNT_DETACH);
  }
  FullDisk(const FullDisk&) = delete;
  FullDisk& operator=(const FullDisk&) = delete;
  bool mounted() const { return mounted_; }
  int error() const { return error_; }

  // Writes a filler file until the file system is full.
  void Fill() const {
    std::FILE* f = std::fopen((path_ + "/filler").c_str(), "wb");
    ASSERT_NE(f, nullptr);
    const std::string block(4096, 'x');
    while (std::fwrite(block.data(), 1, block.size(), f) == block.size() && std::fflush(f) == 0) {
    }
    std::fclose(f);
  }

 private:
  std::string path_;
  bool mounted_ = false;
  int error_ = 0;
};

TEST(ReadOnlyDiskE2e, ReadsAnswerOnAFullDisk) {
  testing::TempDir dir;
  FullDisk disk(dir.path() + "/disk");
  if (!disk.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(disk.error())
                 << "); the write-lock test covers the same path";
  }
  const std::string workspace = dir.path() + "/disk/ws";
  std::string doc_id;
  {
    Daemon daemon(workspace);
    ASSERT_TRUE(daemon.started()) << daemon.Stderr();
    RpcClient rpc(daemon.port());
    doc_id = Seed(rpc);
    disk.Fill();
    for (int i = 0; i < 3; ++i) {
      json got = rpc.Call("memory.get", {{"key", "k"}});
      ASSERT_TRUE(got.contains("result")) << got.dump();
      EXPECT_EQ(got["result"]["content"], "the deploy runbook");
      json doc = rpc.Call("memory.doc_get", {{"id", doc_id}});
      ASSERT_TRUE(doc.contains("result")) << doc.dump();
    }
    std::filesystem::remove(dir.path() + "/disk/filler");
    daemon.Stop(SIGTERM);
  }
}

}  // namespace
}  // namespace mnemo::e2e

// Issue 17, item 6, through the real daemon: a read must not become a
// write. Issue 42, item 5: a fresh process (the CLI, a daemon) on a
// read-only file system or a full disk answers reads and refuses writes
// naming the cause, and changes no file. memory.get and memory.doc_get count accesses, and when
// that count cannot be written the read still answers (the count is best effort).
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
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

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

// Issue 42, item 5: a fresh process on a workspace that takes no writes.

// Every regular file under `dir` with its bytes.
std::map<std::string, std::string> Snapshot(const std::string& dir) {
  std::map<std::string, std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    files[std::filesystem::relative(e.path(), dir).string()] = bytes.str();
  }
  return files;
}

// `source` bound read-only at `target` (mount --bind, then remount ro).
class ReadOnlyBind {
 public:
  ReadOnlyBind(const std::string& source, const std::string& target) : target_(target) {
    std::filesystem::create_directories(target);
    bound_ = ::mount(source.c_str(), target.c_str(), nullptr, MS_BIND, nullptr) == 0;
    error_ = errno;
    if (bound_ &&
        ::mount(nullptr, target.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) {
      error_ = errno;
      ::umount2(target.c_str(), MNT_DETACH);
      bound_ = false;
    }
  }
  ~ReadOnlyBind() {
    if (bound_) ::umount2(target_.c_str(), MNT_DETACH);
  }
  ReadOnlyBind(const ReadOnlyBind&) = delete;
  ReadOnlyBind& operator=(const ReadOnlyBind&) = delete;
  bool bound() const { return bound_; }
  int error() const { return error_; }

 private:
  std::string target_;
  bool bound_ = false;
  int error_ = 0;
};

RunResult Cli(const std::string& workspace, std::vector<std::string> command) {
  std::vector<std::string> args = {"--workspace", workspace};
  args.insert(args.end(), command.begin(), command.end());
  return RunMnemo(args);
}

// Stores what the reads below look for, with the CLI (a process that ends,
// so the database is checkpointed and its -wal removed).
void SeedWithCli(const std::string& workspace) {
  ASSERT_EQ(Cli(workspace, {"memory", "store", "k", "the deploy runbook"}).exit_code, 0);
  ASSERT_EQ(Cli(workspace, {"memory", "store", "k2", "billing runs on fridays"}).exit_code, 0);
}

// get, search, list and export of a fresh process answer; a write fails
// naming `cause`.
void ExpectReadsAnswerAndWritesNameTheCause(const std::string& workspace,
                                            const std::string& cause) {
  RunResult get = Cli(workspace, {"memory", "get", "k"});
  EXPECT_EQ(get.exit_code, 0) << get.err;
  EXPECT_NE(get.out.find("the deploy runbook"), std::string::npos) << get.out;
  RunResult search = Cli(workspace, {"memory", "search", "deploy runbook"});
  EXPECT_EQ(search.exit_code, 0) << search.err;
  EXPECT_NE(search.out.find("runbook"), std::string::npos) << search.out;
  RunResult list = Cli(workspace, {"memory", "list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("k2"), std::string::npos) << list.out;
  RunResult exported = Cli(workspace, {"export"});
  EXPECT_EQ(exported.exit_code, 0) << exported.err;
  EXPECT_NE(exported.out.find("billing runs on fridays"), std::string::npos);
  RunResult store = Cli(workspace, {"memory", "store", "k3", "a new fact"});
  EXPECT_NE(store.exit_code, 0) << store.out;
  EXPECT_NE(store.err.find(cause), std::string::npos) << store.err;
}

TEST(ReadOnlyDiskE2e, AFreshProcessReadsAReadOnlyFileSystem) {
  testing::TempDir dir;
  const std::string workspace = dir.Sub("ws");
  SeedWithCli(workspace);
  const auto before = Snapshot(workspace);
  ReadOnlyBind ro(workspace, dir.Sub("ro"));
  if (!ro.bound()) {
    GTEST_SKIP() << "cannot bind-mount read-only here (" << std::strerror(ro.error()) << ")";
  }
  ExpectReadsAnswerAndWritesNameTheCause(dir.Sub("ro"), "read-only");
  {
    Daemon daemon(dir.Sub("ro"));
    ASSERT_TRUE(daemon.started()) << daemon.Stderr();
    RpcClient rpc(daemon.port());
    EXPECT_EQ(rpc.Result("memory.get", {{"key", "k"}})["content"], "the deploy runbook");
    json search = rpc.Call("memory.search", {{"query", "billing"}});
    EXPECT_NE(search.dump().find("billing runs on fridays"), std::string::npos) << search.dump();
    json store = rpc.Call("memory.store", {{"key", "k3"}, {"value", "v"}});
    ASSERT_TRUE(store.contains("error")) << store.dump();
    EXPECT_NE(store["error"]["message"].get<std::string>().find("read-only"), std::string::npos)
        << store.dump();
    daemon.Stop(SIGTERM);
  }
  EXPECT_EQ(Snapshot(workspace), before) << "a read changed a file of the workspace";
}

TEST(ReadOnlyDiskE2e, AFreshProcessReadsAFullDisk) {
  testing::TempDir dir;
  FullDisk disk(dir.path() + "/disk");
  if (!disk.mounted()) {
    GTEST_SKIP() << "cannot mount a tmpfs here (" << std::strerror(disk.error()) << ")";
  }
  const std::string workspace = dir.path() + "/disk/ws";
  SeedWithCli(workspace);
  const std::string db_before = Snapshot(workspace)["mnemo.db"];
  disk.Fill();
  ExpectReadsAnswerAndWritesNameTheCause(workspace, "full");
  EXPECT_EQ(Snapshot(workspace)["mnemo.db"], db_before);
  std::filesystem::remove(dir.path() + "/disk/filler");
  RunResult after = Cli(workspace, {"memory", "store", "k3", "a new fact"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(Cli(workspace, {"memory", "get", "k"}).exit_code, 0);
}

}  // namespace
}  // namespace mnemo::e2e

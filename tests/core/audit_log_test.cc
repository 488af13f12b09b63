// The audit log writer (spec 10, "Audit"): whole lines from many threads and
// processes at once, size-based rotation that loses no line when enough
// rotated files are kept, and at most `keep` rotated files otherwise.
#include "core/audit_log.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_util.h"

namespace mnemo::internal {
namespace {

namespace fs = std::filesystem;

void Write(AuditLog& log, const std::string& writer, int lines) {
  const Principal who{.name = "p-" + writer};
  for (int i = 0; i < lines; ++i) {
    log.Append(1795946400000, who,
               {.method = "memory.store",
                .ns = "global",
                .key = writer + "-" + std::to_string(i),
                .category = "daily",
                .outcome = "ok",
                .duration_ms = 0.25});
  }
}

// Every line of the log and its rotated files; fails on a torn line.
std::vector<nlohmann::json> ReadAll(const std::string& dir) {
  std::vector<nlohmann::json> out;
  for (const auto& f : fs::directory_iterator(dir)) {
    const std::string name = f.path().filename().string();
    if (!name.starts_with("audit.log") || name.ends_with(".lock")) continue;
    std::ifstream in(f.path());
    for (std::string line; std::getline(in, line);) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
      EXPECT_TRUE(j.is_object()) << name << ": torn line: " << line;
      if (j.is_object()) out.push_back(std::move(j));
    }
  }
  return out;
}

TEST(AuditLog, ThreadsAndProcessesAppendWholeLinesAndRotationLosesNone) {
  testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  constexpr int kLines = 300;
  constexpr int64_t kMaxBytes = 16 * 1024;  // rotates many times
  // Processes first (fork before any thread exists).
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto log = AuditLog::Open(path, kMaxBytes, 1000);
      if (!log.ok()) _exit(1);
      Write(**log, "proc" + std::to_string(p), kLines);
      _exit(0);
    }
    children.push_back(pid);
  }
  auto log = AuditLog::Open(path, kMaxBytes, 1000);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] { Write(**log, "thread" + std::to_string(t), kLines); });
  }
  for (std::thread& t : threads) t.join();
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::vector<nlohmann::json> lines = ReadAll(dir.path());
  std::set<std::string> keys;
  for (const nlohmann::json& j : lines) {
    keys.insert(j.value("key", ""));
    EXPECT_EQ(j.value("outcome", ""), "ok");
    EXPECT_EQ(j.value("time", ""), "2026-11-29T10:00:00.000Z");
  }
  EXPECT_EQ(lines.size(), 10u * kLines);  // none lost, none twice
  EXPECT_EQ(keys.size(), 10u * kLines);
  EXPECT_TRUE(fs::exists(path + ".1"));  // it did rotate
  EXPECT_LE(fs::file_size(path), static_cast<uintmax_t>(kMaxBytes) + 4096);
}

TEST(AuditLog, ASecretInAnAddressIsRedacted) {
  testing::TempDir dir;
  auto log = AuditLog::Open(dir.File("audit.log"), 1 << 20, 1);
  ASSERT_TRUE(log.ok());
  (*log)->Append(
      1, {},
      {.method = "memory.get", .key = "sk-live-4eC39HqLyjWDarjtT1zdp7dc", .outcome = "not_found"});
  std::ifstream in(dir.File("audit.log"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.find("4eC39HqLyjWDarjtT1zdp7dc"), std::string::npos) << line;
  EXPECT_NE(line.find("[REDACTED]"), std::string::npos) << line;
}

TEST(AuditLog, KeepsAtMostKeepRotatedFiles) {
  testing::TempDir dir;
  const std::string path = dir.File("audit.log");
  auto log = AuditLog::Open(path, 2048, 2);
  ASSERT_TRUE(log.ok());
  Write(**log, "w", 500);
  EXPECT_TRUE(fs::exists(path + ".1"));
  EXPECT_TRUE(fs::exists(path + ".2"));
  EXPECT_FALSE(fs::exists(path + ".3"));
}

TEST(AuditLog, RefusesASymlinkAndCreatesThePrivateFile) {
  testing::TempDir dir;
  fs::create_symlink(dir.File("elsewhere"), dir.File("audit.log"));
  EXPECT_FALSE(AuditLog::Open(dir.File("audit.log"), 1 << 20, 1).ok());
  auto log = AuditLog::Open(dir.File("real.log"), 1 << 20, 1);
  ASSERT_TRUE(log.ok());
  EXPECT_EQ(fs::status(dir.File("real.log")).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace mnemo::internal

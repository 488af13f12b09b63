// Spec 40, end to end under concurrency: 24 client threads over 4 `mnemo
// serve` processes that share one workspace all append turns to one session
// through memory.turn_complete. Every turn must come out as two adjacent rows
// (user at an even seq, its assistant right after), every seq exactly once,
// and the markdown archive must hold one whole file per row.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

constexpr int kProcesses = 4;
constexpr int kThreads = 24;
constexpr int kTurnsEach = 8;
constexpr const char* kSession = "shared-session";

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(ConcurrentTurnsE2e, TwentyFourThreadsOverFourProcessesLoseNoTurnAndNoArchiveFile) {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Daemon>> daemons;
  for (int p = 0; p < kProcesses; ++p) {
    daemons.push_back(std::make_unique<Daemon>(dir.path()));
    ASSERT_TRUE(daemons.back()->started()) << daemons.back()->Stderr();
  }

  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      RpcClient client(daemons[t % kProcesses]->port());
      for (int i = 0; i < kTurnsEach; ++i) {
        const std::string tag = "thread " + std::to_string(t) + " turn " + std::to_string(i);
        json r = client.CallQuietly("memory.turn_complete",
                                    {{"session_id", kSession},
                                     {"user_message", "question from " + tag},
                                     {"assistant_response", "answer to " + tag},
                                     // Equal timestamps everywhere: order comes from seq alone.
                                     {"timestamp", "2026-11-29T10:00:00Z"}});
        if (!r.is_object() || !r.contains("result")) {
          ++failures;
          ADD_FAILURE() << tag << ": " << (r.is_null() ? "no response" : r.dump());
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_EQ(failures.load(), 0);

  // SIGTERM: each daemon writes what its archive writer still has queued.
  for (auto& daemon : daemons) EXPECT_EQ(daemon->Stop(SIGTERM), 0) << daemon->Stderr();

  RunResult r = RunMnemo({"--workspace", dir.path(), "rpc", "memory.session_turns",
                          json{{"session_id", kSession}}.dump()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json turns = json::parse(r.out)["turns"];
  constexpr int kRows = 2 * kThreads * kTurnsEach;
  ASSERT_EQ(turns.size(), static_cast<size_t>(kRows));

  std::set<std::string> questions;
  for (int seq = 0; seq < kRows; ++seq) {
    const json& row = turns[static_cast<size_t>(seq)];
    ASSERT_EQ(row["seq"], seq) << row.dump();
    ASSERT_EQ(row["role"], seq % 2 == 0 ? "user" : "assistant") << row.dump();
    if (seq % 2 == 0) {
      const std::string q = row["content"];
      ASSERT_TRUE(q.starts_with("question from ")) << q;
      EXPECT_TRUE(questions.insert(q).second) << "stored twice: " << q;
      // The assistant row of the same turn follows it directly.
      EXPECT_EQ(turns[static_cast<size_t>(seq) + 1]["content"],
                "answer to " + q.substr(std::string("question from ").size()));
    }
  }
  EXPECT_EQ(questions.size(), static_cast<size_t>(kThreads * kTurnsEach));

  // One archive file per row, named by its seq, each ending with its row.
  const std::filesystem::path folder =
      std::filesystem::path(dir.path()) / "memory_tree/content/episodic" / kSession;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    ASSERT_TRUE(entry.is_regular_file()) << entry.path();
    ++files;
  }
  EXPECT_EQ(files, kRows);
  for (int seq = 0; seq < kRows; ++seq) {
    char name[16];
    std::snprintf(name, sizeof(name), "%06d.md", seq);
    const std::string text = ReadFile(folder / name);
    const json& row = turns[static_cast<size_t>(seq)];
    EXPECT_NE(text.find("\nseq: " + std::to_string(seq) + "\n"), std::string::npos) << name;
    EXPECT_TRUE(text.ends_with("---\n\n" + row["content"].get<std::string>() + "\n"))
        << name << ": " << text;
  }
}

}  // namespace
}  // namespace mnemo::e2e

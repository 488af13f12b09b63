// The markdown archive's queue through the Engine (spec 40,
// learning.archive_queue_rows): 20 000 turns through a small queue never
// hold more rows than the bound, and every file is written.
#include <stdlib.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

// A folder on tmpfs when there is one: the archive fsyncs each file and its
// folder, which costs ~10 ms on a VM disk and nothing on tmpfs, and the test
// is about the queue, not the disk.
class FastDir {
 public:
  FastDir() {
    std::string tmpl = std::filesystem::is_directory("/dev/shm") ? "/dev/shm/mnemo-queue-XXXXXX"
                                                                 : fallback_.Sub("q-XXXXXX");
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : fallback_.Sub("q");
  }
  ~FastDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  FastDir(const FastDir&) = delete;
  FastDir& operator=(const FastDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  testing::TempDir fallback_;
  std::string path_;
};

TEST(ArchiveQueue, TwentyThousandTurnsStayWithinTheBoundAndWriteEveryFile) {
  FastDir dir;
  constexpr int64_t kBound = 16;
  constexpr int kThreads = 4;
  constexpr int kTurnsEach = 5000;
  Config config;
  config.memory.backend = "in_memory";
  config.embedding.provider = "none";
  config.learning.tool_memory_capture_enabled = false;
  config.learning.archive_queue_rows = kBound;
  // No segment closes: the test is about the archive, not finalisation.
  config.learning.max_turns_per_segment = 1000000;
  auto opened = Engine::Open({.workspace = dir.path() + "/ws", .config = config});
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::unique_ptr<Engine> engine = std::move(*opened);
  const Principal me;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const std::string session = "load-" + std::to_string(t);
      for (int i = 0; i < kTurnsEach; ++i) {
        auto r = engine->archivist().TurnComplete(me, {.session_id = session,
                                                       .user_message = "turn " + std::to_string(i),
                                                       .assistant_response = "ok"});
        ASSERT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (std::thread& th : threads) th.join();
  // A sync turn waits for the archive.
  ASSERT_TRUE(engine->archivist()
                  .TurnComplete(me, {.session_id = "last",
                                     .user_message = "done",
                                     .assistant_response = "ok",
                                     .sync = true})
                  .ok());
  const ArchiveQueueStats stats = engine->archivist().ArchiveQueue();
  EXPECT_EQ(stats.bound, kBound);
  EXPECT_LE(stats.peak, kBound);
  EXPECT_GE(stats.peak, 1);
  EXPECT_EQ(stats.depth, 0);
  EXPECT_EQ(stats.written, 2 * kThreads * kTurnsEach + 2);
  EXPECT_EQ(stats.problems, 0);
  const std::filesystem::path root =
      std::filesystem::path(engine->workspace()) / "memory_tree/content/episodic";
  for (int t = 0; t < kThreads; ++t) {
    const auto folder = root / ("load-" + std::to_string(t));
    const auto files = std::distance(std::filesystem::directory_iterator(folder),
                                     std::filesystem::directory_iterator());
    EXPECT_EQ(files, 2 * kTurnsEach) << folder;
  }
}

}  // namespace
}  // namespace mnemo

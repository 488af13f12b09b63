#include "base/background_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace mnemo::internal {
namespace {

class CapturingLogger final : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override {
    std::lock_guard lock(mu_);
    lines_.push_back(std::string(LogLevelName(level)) + " " + std::string(message));
  }
  std::vector<std::string> lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> lines_;
};

TEST(BackgroundWorker, RunsJobsInOrderAndLogsOneDebugLineEach) {
  auto logger = std::make_shared<CapturingLogger>();
  std::vector<int> ran;
  {
    BackgroundWorker worker(logger);
    worker.Post("first job", [&] { ran.push_back(1); });
    worker.Post("second job", [&] { ran.push_back(2); });
    worker.Flush();
  }
  EXPECT_EQ(ran, (std::vector<int>{1, 2}));
  const std::vector<std::string> lines = logger->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_TRUE(lines[0].starts_with("debug background first job: ")) << lines[0];
  EXPECT_TRUE(lines[0].ends_with(" ms, 1 queued") || lines[0].ends_with(" ms, 0 queued"))
      << lines[0];
  EXPECT_TRUE(lines[1].starts_with("debug background second job: ")) << lines[1];
}

TEST(BackgroundWorker, RunsWithoutALogger) {
  int ran = 0;
  BackgroundWorker worker;
  worker.Post("job", [&] { ++ran; });
  worker.Flush();
  EXPECT_EQ(ran, 1);
}

// The daemon's request workers: several threads, a bounded queue.
TEST(BackgroundWorker, TrySubmitRefusesWhenEveryThreadIsBusyAndTheQueueIsFull) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<int> started = 0;
  std::atomic<int> ran = 0;
  auto blocking = [&] {
    ++started;
    released.wait();
    ++ran;
  };
  BackgroundWorker workers(
      BackgroundWorkerOptions{.threads = 2, .max_queued = 1, .low_priority = false});
  ASSERT_TRUE(workers.TrySubmit("a", blocking));
  ASSERT_TRUE(workers.TrySubmit("b", blocking));
  // Both threads take a job at once: the two jobs run side by side.
  while (started.load() < 2) std::this_thread::yield();
  EXPECT_EQ(workers.Queued(), 0);
  EXPECT_TRUE(workers.TrySubmit("c", [&] { ++ran; }));
  EXPECT_EQ(workers.Queued(), 1);
  EXPECT_FALSE(workers.TrySubmit("d", [&] { ran += 100; }));
  EXPECT_EQ(workers.Queued(), 1);
  release.set_value();
  workers.Flush();
  EXPECT_EQ(ran.load(), 3);
  EXPECT_EQ(workers.Queued(), 0);
  EXPECT_TRUE(workers.TrySubmit("e", [&] { ++ran; }));
  workers.Flush();
  EXPECT_EQ(ran.load(), 4);
}

TEST(BackgroundWorker, FlushWaitsForAnEarlierJobStillRunningOnAnotherThread) {
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> slow_done = false;
  std::atomic<bool> slow_started = false;
  BackgroundWorker workers(BackgroundWorkerOptions{.threads = 2});
  workers.Post("slow", [&] {
    slow_started = true;
    released.wait();
    slow_done = true;
  });
  while (!slow_started.load()) std::this_thread::yield();
  std::atomic<bool> fast_done = false;
  workers.Post("fast", [&] { fast_done = true; });
  std::future<void> flushed = std::async(std::launch::async, [&] { workers.Flush(); });
  while (!fast_done.load()) std::this_thread::yield();
  // The later job is done, the earlier one is not: Flush still waits.
  EXPECT_EQ(flushed.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  release.set_value();
  flushed.get();
  EXPECT_TRUE(slow_done.load());
}

TEST(BackgroundWorker, TheDestructorRunsEveryAcceptedJob) {
  std::atomic<int> ran = 0;
  {
    BackgroundWorker workers(BackgroundWorkerOptions{.threads = 3, .max_queued = 100});
    for (int i = 0; i < 20; ++i) ASSERT_TRUE(workers.TrySubmit("job", [&] { ++ran; }));
  }
  EXPECT_EQ(ran.load(), 20);
}

}  // namespace
}  // namespace mnemo::internal

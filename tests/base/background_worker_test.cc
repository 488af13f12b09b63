#include "base/background_worker.h"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
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

}  // namespace
}  // namespace mnemo::internal

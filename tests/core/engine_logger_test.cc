// The engine reports through the logger it is given (mnemo/logger.h), down
// to its storage; without one, MNEMO_LOG chooses the level (spec 60).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

class Recorder final : public Logger {
 public:
  void Log(LogLevel level, std::string_view message) override {
    std::lock_guard lock(mu_);
    lines_.emplace_back(level, std::string(message));
  }
  std::vector<std::pair<LogLevel, std::string>> lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }

 private:
  std::mutex mu_;
  std::vector<std::pair<LogLevel, std::string>> lines_;
};

TEST(EngineLogger, AMalformedLineOfAMemoryFileIsReportedToTheEnginesLogger) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  std::filesystem::create_directories(ws + "/memory");
  std::ofstream(ws + "/memory/core.md") << "# core\n\n- **editor**: helix\n- not an item\n";
  Config config;
  config.memory.backend = "markdown";
  auto recorder = std::make_shared<Recorder>();
  ::testing::internal::CaptureStderr();
  auto e = Engine::Open({.workspace = ws, .config = config, .logger = recorder});
  const std::string stderr_text = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  bool reported = false;
  for (const auto& [level, message] : recorder->lines()) {
    if (level == LogLevel::kWarn &&
        message.find("core.md:4: expected an item") != std::string::npos)
      reported = true;
  }
  EXPECT_TRUE(reported) << "the markdown backend reports to the engine's logger";
  EXPECT_EQ(stderr_text.find("expected an item"), std::string::npos)
      << "nothing bypasses the logger: " << stderr_text;
  EXPECT_EQ(&(*e)->logger(), recorder.get());
}

// Issue 43: when only the default word-vector file is missing, a process
// that opens engine after engine (the benchmark, a host of the library) is
// told once, not at every open.
TEST(EngineLogger, AMissingDefaultWordVectorFileIsReportedOncePerProcess) {
  testing::TempDir dir;
  const char* before = std::getenv("MNEMO_DATA_DIR");
  const std::string saved = before != nullptr ? before : "";
  ::setenv("MNEMO_DATA_DIR", dir.Sub("nothing").c_str(), 1);
  auto recorder = std::make_shared<Recorder>();
  for (const char* ws : {"a", "b", "c"}) {
    auto e = Engine::Open({.workspace = dir.Sub(ws), .logger = recorder});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
  }
  if (before != nullptr) {
    ::setenv("MNEMO_DATA_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("MNEMO_DATA_DIR");
  }
  int warnings = 0;
  for (const auto& [level, message] : recorder->lines()) {
    if (message.find("using the hash embedder") != std::string::npos) ++warnings;
  }
  EXPECT_LE(warnings, 1);
}

TEST(EngineLogger, AnInvalidMnemoLogRefusesToOpenAndNamesTheLevels) {
  testing::TempDir dir;
  ::setenv("MNEMO_LOG", "loud", 1);
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ::unsetenv("MNEMO_LOG");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("use debug, info, warn or error"), std::string::npos)
      << e.status().message();
}

}  // namespace
}  // namespace mnemo

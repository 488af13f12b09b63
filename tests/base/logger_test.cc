// The logger seam (mnemo/logger.h) and MNEMO_LOG (spec 60).
#include "mnemo/logger.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace mnemo {
namespace {

// What a logger wrote to a pipe.
std::string Drain(int fd) {
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  return out;
}

TEST(Logger, LevelNamesRoundTrip) {
  for (LogLevel level : {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    EXPECT_EQ(ParseLogLevel(LogLevelName(level)), level) << LogLevelName(level);
  }
  EXPECT_EQ(LogLevelName(LogLevel::kWarn), "warn");
  EXPECT_FALSE(ParseLogLevel("WARN").has_value());
  EXPECT_FALSE(ParseLogLevel("warning").has_value());
  EXPECT_FALSE(ParseLogLevel("").has_value());
}

TEST(Logger, WritesOneLineAMessageAtItsLevelAndAbove) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    std::shared_ptr<Logger> logger = FdLogger(fds[1], LogLevel::kInfo);
    logger->Log(LogLevel::kDebug, "not shown");
    logger->Log(LogLevel::kInfo, "rebuilt the keyword index");
    logger->Log(LogLevel::kWarn, "cannot write the archive file");
    logger->Log(LogLevel::kError, "request r1 failed");
  }
  ::close(fds[1]);
  EXPECT_EQ(Drain(fds[0]),
            "mnemo: rebuilt the keyword index\n"
            "mnemo: warning: cannot write the archive file\n"
            "mnemo: error: request r1 failed\n");
  ::close(fds[0]);
}

TEST(Logger, MnemoLogChoosesTheLevelAndAnInvalidOneIsNamed) {
  ::unsetenv("MNEMO_LOG");
  EXPECT_EQ(*LogLevelFromEnvironment(), LogLevel::kInfo);
  ::setenv("MNEMO_LOG", "error", 1);
  EXPECT_EQ(*LogLevelFromEnvironment(), LogLevel::kError);
  ::setenv("MNEMO_LOG", "verbose", 1);
  Result<LogLevel> bad = LogLevelFromEnvironment();
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().message(), "MNEMO_LOG=verbose is invalid: use debug, info, warn or error");
  ::unsetenv("MNEMO_LOG");
}

}  // namespace
}  // namespace mnemo

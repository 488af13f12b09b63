#include "mnemo/logger.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <string>

namespace mnemo {
namespace {

constexpr std::string_view kNames[] = {"debug", "info", "warn", "error"};

class FdLoggerImpl final : public Logger {
 public:
  FdLoggerImpl(int fd, LogLevel min) : fd_(fd), min_(min) {}

  void Log(LogLevel level, std::string_view message) override {
    if (level < min_) return;
    std::string line = "mnemo: ";
    switch (level) {
      case LogLevel::kDebug: line += "debug: "; break;
      case LogLevel::kInfo: break;
      case LogLevel::kWarn: line += "warning: "; break;
      case LogLevel::kError: line += "error: "; break;
    }
    line += message;
    line += '\n';
    // One write per line: the kernel keeps a write to a pipe of up to
    // PIPE_BUF bytes whole, and a terminal or file gets the line in one
    // piece in practice. A short write (a longer line) continues.
    size_t done = 0;
    while (done < line.size()) {
      const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;  // nowhere left to report it
      done += static_cast<size_t>(n);
    }
  }

 private:
  const int fd_;
  const LogLevel min_;
};

}  // namespace

std::string_view LogLevelName(LogLevel level) { return kNames[static_cast<size_t>(level)]; }

std::optional<LogLevel> ParseLogLevel(std::string_view name) {
  for (size_t i = 0; i < std::size(kNames); ++i) {
    if (kNames[i] == name) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

std::shared_ptr<Logger> FdLogger(int fd, LogLevel min) {
  return std::make_shared<FdLoggerImpl>(fd, min);
}

Result<LogLevel> LogLevelFromEnvironment() {
  const char* value = std::getenv("MNEMO_LOG");
  if (value == nullptr || *value == '\0') return LogLevel::kInfo;
  if (std::optional<LogLevel> level = ParseLogLevel(value)) return *level;
  return Status(StatusCode::kInvalidArgument,
                "MNEMO_LOG=" + std::string(value) + " is invalid: use debug, info, warn or error");
}

std::shared_ptr<Logger> StderrLogger() {
  static const std::shared_ptr<Logger> kLogger = [] {
    Result<LogLevel> level = LogLevelFromEnvironment();
    return FdLogger(STDERR_FILENO, level.ok() ? *level : LogLevel::kInfo);
  }();
  return kLogger;
}

}  // namespace mnemo

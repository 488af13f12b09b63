// Where the library reports what goes wrong off a request's path (a file it
// could not write, a background pass that failed, an index it rebuilt):
// the engine's one logger, given in EngineOptions. Requests themselves
// answer with a Status; nothing is logged instead of returning an error.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "mnemo/status.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

// In increasing severity; a logger shows its level and the ones above.
enum class LogLevel { kDebug, kInfo, kWarn, kError };

// "debug", "info", "warn", "error": the values of MNEMO_LOG (spec 60).
std::string_view LogLevelName(LogLevel level);
std::optional<LogLevel> ParseLogLevel(std::string_view name);

class Logger {
 public:
  virtual ~Logger() = default;
  // One message, without a trailing line break. Called from any thread:
  // implementations must be thread-safe and must not call back into the
  // engine.
  virtual void Log(LogLevel level, std::string_view message) = 0;
};

// Writes each message of `min` or above to the file descriptor `fd` as one
// line, in one write(2), so lines of concurrent threads never interleave:
//   "mnemo: warning: <message>"   (kWarn; kError "error", kDebug "debug")
//   "mnemo: <message>"            (kInfo)
// The descriptor is not closed.
std::shared_ptr<Logger> FdLogger(int fd, LogLevel min);

// The level MNEMO_LOG names: kInfo when unset or empty; kInvalidArgument
// naming the allowed values otherwise.
Result<LogLevel> LogLevelFromEnvironment();

// The process-wide logger to standard error at MNEMO_LOG's level (kInfo when
// MNEMO_LOG is not a level: Engine::Open reports that), for what runs
// without an engine's logger.
std::shared_ptr<Logger> StderrLogger();

}  // namespace mnemo

#pragma GCC visibility pop

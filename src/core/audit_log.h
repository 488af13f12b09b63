// The audit log (spec 10, "Audit"): one JSON line per memory operation, with
// who did what to which address and how it ended, never the content.
//
// Each line is one write(2) on an O_APPEND descriptor, so lines from threads
// and processes never interleave. When the file reaches its size limit the
// process that notices rotates it under an flock on "<path>.lock"
// (audit.log -> audit.log.1 -> ... -> audit.log.<keep>); every writer checks
// before a write whether the path still names its open file and reopens it
// otherwise, so after a rotation no process keeps writing to a rotated file
// for more than one line. A write that fails is reported to the logger (once per
// distinct error) and never fails the operation.
//
// Thread-safety: Append may be called from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "base/io/file_io.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::internal {

// Where the audit log of `workspace` is: security.audit.path, taken from the
// workspace when relative.
std::string AuditLogPath(const Config& config, const std::string& workspace);

class AuditLog {
 public:
  // Creates the file (mode 0600) when missing; refuses a symlink. A write
  // that fails is reported to `logger` (each distinct problem once). Lines
  // appended without a time are stamped by `clock`.
  static Result<std::unique_ptr<AuditLog>> Open(std::string path, int64_t max_bytes, int64_t keep,
                                                std::shared_ptr<Logger> logger = StderrLogger(),
                                                std::shared_ptr<Clock> clock = SystemClock());

  void Append(TimeMs time, const Principal& who, const AuditEvent& event);
  // The same, at the clock's time.
  void Append(const Principal& who, const AuditEvent& event);

 private:
  AuditLog(std::string path, int64_t max_bytes, int64_t keep, internal::Fd fd,
           std::shared_ptr<Logger> logger, std::shared_ptr<Clock> clock);
  // Reopens when the path no longer names the open file (rotated by another
  // process). Caller holds mu_.
  Status ReopenIfMovedLocked();
  // Rotates when the file reached max_bytes_. Caller holds mu_.
  Status RotateIfFullLocked();
  void Report(const Status& s);

  const std::string path_;
  const int64_t max_bytes_;
  const int64_t keep_;
  const std::shared_ptr<Logger> logger_;
  const std::shared_ptr<Clock> clock_;
  std::mutex mu_;
  internal::Fd fd_;         // guarded by mu_
  std::string last_error_;  // guarded by mu_: reported once
};

}  // namespace mnemo::internal

#include "core/audit_log.h"

#include <filesystem>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/time.h"
#include "text/secrets.h"

namespace mnemo::internal {
namespace {

Result<internal::Fd> OpenForAppend(const std::string& path) {
  internal::Fd fd(
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (fd.get() < 0) {
    return Unavailable("cannot open the audit log " + path + ": " + internal::ErrnoText(errno));
  }
  return fd;
}

}  // namespace

Result<std::unique_ptr<AuditLog>> AuditLog::Open(std::string path, int64_t max_bytes, int64_t keep,
                                                 std::shared_ptr<Logger> logger,
                                                 std::shared_ptr<Clock> clock) {
  MNEMO_ASSIGN_OR_RETURN(internal::Fd fd, OpenForAppend(path));
  return std::unique_ptr<AuditLog>(new AuditLog(std::move(path), max_bytes, keep, std::move(fd),
                                                std::move(logger), std::move(clock)));
}

AuditLog::AuditLog(std::string path, int64_t max_bytes, int64_t keep, internal::Fd fd,
                   std::shared_ptr<Logger> logger, std::shared_ptr<Clock> clock)
    : path_(std::move(path)),
      max_bytes_(max_bytes),
      keep_(keep),
      logger_(std::move(logger)),
      clock_(std::move(clock)),
      fd_(std::move(fd)) {}

void AuditLog::Append(const Principal& who, const AuditEvent& event) {
  Append(clock_->NowMs(), who, event);
}

void AuditLog::Append(TimeMs time, const Principal& who, const AuditEvent& event) {
  nlohmann::json line = {
      {"time", FormatRfc3339(time)}, {"principal", who.name}, {"method", event.method}};
  // Addresses are names, not content, but a key may still carry a secret:
  // the one pattern list redacts it (spec 10).
  int redacted = 0;
  if (!event.ns.empty()) line["namespace"] = text::RedactSecrets(event.ns, &redacted);
  if (!event.key.empty()) line["key"] = text::RedactSecrets(event.key, &redacted);
  if (!event.category.empty()) line["category"] = text::RedactSecrets(event.category, &redacted);
  line["outcome"] = event.outcome;
  if (event.count > 0) line["count"] = event.count;
  if (!event.erased.empty()) {
    nlohmann::json erased = nlohmann::json::object();
    for (const auto& [kind, n] : event.erased) erased[kind] = n;
    line["erased"] = std::move(erased);
  }
  line["duration_ms"] = static_cast<double>(static_cast<int64_t>(event.duration_ms * 1000)) / 1000;
  // Invalid UTF-8 in a key must not throw: replace it.
  std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::lock_guard lock(mu_);
  if (Status s = ReopenIfMovedLocked(); !s.ok()) return Report(s);
  const ssize_t n = ::write(fd_.get(), text.data(), text.size());
  if (n != static_cast<ssize_t>(text.size())) {
    return Report(Unavailable("cannot append to the audit log " + path_ + ": " +
                              (n < 0 ? internal::ErrnoText(errno) : "short write")));
  }
  if (Status s = RotateIfFullLocked(); !s.ok()) Report(s);
}

Status AuditLog::ReopenIfMovedLocked() {
  struct stat named {};
  struct stat open {};
  if (::stat(path_.c_str(), &named) == 0 && ::fstat(fd_.get(), &open) == 0 &&
      named.st_dev == open.st_dev && named.st_ino == open.st_ino) {
    return Status::Ok();
  }
  MNEMO_ASSIGN_OR_RETURN(fd_, OpenForAppend(path_));
  return Status::Ok();
}

Status AuditLog::RotateIfFullLocked() {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0 || st.st_size < max_bytes_) return Status::Ok();
  internal::Fd lock(
      ::open((path_ + ".lock").c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
  if (lock.get() < 0 || ::flock(lock.get(), LOCK_EX) != 0) {
    return Unavailable("cannot lock the audit log for rotation: " + internal::ErrnoText(errno));
  }
  // Another process may have rotated while we waited: only a full file that
  // is still the named one moves.
  struct stat named {};
  if (::stat(path_.c_str(), &named) == 0 && named.st_ino == st.st_ino &&
      named.st_dev == st.st_dev && named.st_size >= max_bytes_) {
    if (keep_ == 0) {
      ::unlink(path_.c_str());
    } else {
      for (int64_t i = keep_ - 1; i >= 1; --i) {
        ::rename((path_ + "." + std::to_string(i)).c_str(),
                 (path_ + "." + std::to_string(i + 1)).c_str());
      }
      ::rename(path_.c_str(), (path_ + ".1").c_str());
    }
  }
  MNEMO_ASSIGN_OR_RETURN(fd_, OpenForAppend(path_));
  return Status::Ok();  // the flock goes with `lock`
}

void AuditLog::Report(const Status& s) {
  if (s.message() == last_error_) return;
  last_error_ = s.message();
  logger_->Log(LogLevel::kWarn, s.message());
}

std::string AuditLogPath(const Config& config, const std::string& workspace) {
  std::filesystem::path path(config.security.audit.path);
  if (path.is_relative()) path = std::filesystem::path(workspace) / path;
  return path.string();
}

}  // namespace mnemo::internal

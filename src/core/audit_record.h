// How a service audits one memory operation (spec 10, "Audit"): every
// public service method that is a memory operation opens an AuditRecord
// with the caller, the operation's name (the wire method's, "memory.store",
// stated once there) and the address it touches, and ends it with its
// result. So every door (JSON-RPC, MCP, the CLI, a C++ caller) gets the same
// line for the same operation, once.
//
// The seam is the engine's AuditLog, handed to each service by Engine::Open:
// null when [security.audit] is disabled, and then a record is one branch
// and nothing else (no clock read, no string).
//
// Only the outermost record of a thread writes: a service method that calls
// another service's public method gives one line, its own. The method table
// audits only the calls that reached no service (refused by the parameter
// schema, or about the table itself): it asks AuditLinesOnThisThread before
// and after a call.
//
// Thread-safety: a record belongs to the thread that made it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/audit_log.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::internal {

// What an operation touched: addresses, never content ("" when it has none).
struct AuditAddress {
  std::string_view ns;
  std::string_view key;
  std::string_view category;
};

// An optional address field: its text, "" when absent.
inline std::string_view AuditText(const std::optional<std::string>& field) {
  return field ? std::string_view(*field) : std::string_view();
}

// The outcome of a status, the one mapping: ok, not_found, denied, invalid,
// error.
std::string AuditOutcome(const Status& status);

// How many audit lines this thread has written.
int64_t AuditLinesOnThisThread();

class AuditRecord {
 public:
  AuditRecord(AuditLog* log, const Principal& who, std::string_view method,
              AuditAddress address = {});
  ~AuditRecord();
  AuditRecord(const AuditRecord&) = delete;
  AuditRecord& operator=(const AuditRecord&) = delete;

  // Writes the line with the outcome of `result` and hands `result` back.
  template <typename T>
  Result<T> End(Result<T> result) {
    if (writes_) Write(result.status());
    return result;
  }
  Status End(Status status) {
    if (writes_) Write(status);
    return status;
  }

  // Before End: an operation that succeeded but found nothing to act on
  // (memory.forget of a missing key) is audited not_found.
  void Missed() { missed_ = true; }
  // Before End: an erasure's counts, written with its line (spec 10,
  // "Erasure").
  void Erased(const ErasureCounts& counts);
  // Before End: secrets redacted from what the operation stored (spec 40),
  // written as a second line with outcome `redacted` and the count.
  void Redacted(int64_t count) { redacted_ = count; }

 private:
  void Write(const Status& status);

  AuditLog* const log_;
  const bool writes_;  // the log is on and this is the thread's outermost record
  const Principal* who_ = nullptr;
  AuditEvent event_;
  std::chrono::steady_clock::time_point start_;
  bool missed_ = false;
  int64_t redacted_ = 0;
};

}  // namespace mnemo::internal

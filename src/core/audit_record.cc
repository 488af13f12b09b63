#include "core/audit_record.h"

namespace mnemo::internal {
namespace {

thread_local int open_records = 0;  // AuditRecords alive on this thread with a log
thread_local int64_t lines_written = 0;

}  // namespace

std::string AuditOutcome(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kNotFound: return "not_found";
    case StatusCode::kPermissionDenied: return "denied";
    case StatusCode::kInvalidArgument: return "invalid";
    default: return "error";
  }
}

int64_t AuditLinesOnThisThread() { return lines_written; }

AuditRecord::AuditRecord(AuditLog* log, const Principal& who, std::string_view method,
                         AuditAddress address)
    : log_(log), writes_(log != nullptr && open_records == 0) {
  if (log_ == nullptr) return;
  ++open_records;
  if (!writes_) return;
  who_ = &who;
  event_.method = method;
  event_.ns = address.ns;
  event_.key = address.key;
  event_.category = address.category;
  start_ = std::chrono::steady_clock::now();
}

AuditRecord::~AuditRecord() {
  if (log_ != nullptr) --open_records;
}

void AuditRecord::Erased(const ErasureCounts& counts) {
  if (writes_) event_.erased = counts.Named();
}

void AuditRecord::Write(const Status& status) {
  event_.outcome = status.ok() && missed_ ? "not_found" : AuditOutcome(status);
  event_.duration_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  log_->Append(*who_, event_);
  ++lines_written;
  if (status.ok() && redacted_ > 0) {
    event_.erased.clear();
    event_.outcome = "redacted";
    event_.count = redacted_;
    log_->Append(*who_, event_);
    ++lines_written;
  }
}

}  // namespace mnemo::internal

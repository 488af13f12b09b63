// The memory service's hygiene (spec 10; core/services/memory_options.h): `core` is permanent;
// `daily` and custom categories are archived after memory.archive_after_days without a write;
// `conversation` entries are deleted after memory.conversation_retention_days; entries with
// useful_count >= 3 and system namespaces are exempt. Runs at start-up when
// due, every 12 hours in the daemon, and on `mnemo hygiene run`.
#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/access.h"
#include "core/services/memory_options.h"
#include "mnemo/memory.h"

namespace mnemo {
namespace {

constexpr TimeMs kDayMs = 24LL * 60 * 60 * 1000;
constexpr int64_t kUsefulExempt = 3;
constexpr size_t kApplyBatch = 256;  // entries per write transaction

// What the entry's namespace, category and age call for, useful_count aside.
storage::HygieneAction AgeAction(const Entry& e, const Config::Memory& memory, TimeMs now) {
  if (storage::IsSystemNamespace(e.ns) || e.category == "core") {
    return storage::HygieneAction::kKeep;
  }
  const TimeMs age = now - e.updated_at;
  if (e.category == "conversation") {
    const int64_t days = memory.conversation_retention_days;
    return days > 0 && age > days * kDayMs ? storage::HygieneAction::kDelete
                                           : storage::HygieneAction::kKeep;
  }
  const int64_t days = memory.archive_after_days;
  return days > 0 && !e.archived && age > days * kDayMs ? storage::HygieneAction::kArchive
                                                        : storage::HygieneAction::kKeep;
}

storage::HygieneAction ActionFor(const Entry& e, const Config::Memory& memory, TimeMs now) {
  return e.useful_count >= kUsefulExempt ? storage::HygieneAction::kKeep
                                         : AgeAction(e, memory, now);
}

// Would the entry be archived or deleted but for its useful_count?
bool ExemptAsUseful(const Entry& e, const Config::Memory& memory, TimeMs now) {
  return e.useful_count >= kUsefulExempt &&
         AgeAction(e, memory, now) != storage::HygieneAction::kKeep;
}

}  // namespace

Result<HygieneReport> Memory::RunHygiene(const Principal& who) {
  if (!IsAdmin(who, options_->acl_enabled))
    return PermissionDenied("hygiene needs the admin role: it reaches every entry");
  return RunHygieneNow(clock_->NowMs());
}

Result<HygieneReport> Memory::RunHygieneNow(TimeMs now) {
  HygieneReport report{.ran_at = now};
  // Candidates from a read; each is judged again as it is inside the write
  // (ApplyHygiene), so an entry written meanwhile is not archived or lost.
  std::vector<std::string> ids;
  MNEMO_RETURN_IF_ERROR(entries_.ForEach({.all = true}, "", [&](const Entry& e) -> Status {
    ++report.scanned;
    if (ExemptAsUseful(e, options_->memory, now)) ++report.exempt_useful;
    if (ActionFor(e, options_->memory, now) != storage::HygieneAction::kKeep) ids.push_back(e.id);
    return Status::Ok();
  }));
  for (size_t at = 0; at < ids.size(); at += kApplyBatch) {
    const std::span<const std::string> batch(ids.data() + at,
                                             std::min(kApplyBatch, ids.size() - at));
    MNEMO_ASSIGN_OR_RETURN(storage::HygieneCounts counts,
                           entries_.ApplyHygiene(batch, [&](const Entry& e) {
                             return ActionFor(e, options_->memory, now);
                           }));
    report.archived += counts.archived;
    report.deleted += counts.deleted;
  }
  // Words of entries deleted since the last run (forgotten, or by this run)
  // leave the keyword index here (spec 10, "Erasure").
  MNEMO_RETURN_IF_ERROR(entries_.CompactEntryIndex());
  return report;
}

Result<std::optional<HygieneReport>> Memory::RunHygieneIfDue() {
  if (!options_->memory.enabled || !options_->memory.hygiene_enabled) {
    return std::optional<HygieneReport>();
  }
  const TimeMs now = clock_->NowMs();
  MNEMO_ASSIGN_OR_RETURN(bool due, entries_.ClaimHygieneRun(now, kHygieneIntervalMs));
  if (!due) return std::optional<HygieneReport>();
  MNEMO_ASSIGN_OR_RETURN(HygieneReport report, RunHygieneNow(now));
  // A scheduled run has no caller to show the report to: the log has it
  // (only when it changed something, so idle runs stay quiet).
  if (report.archived > 0 || report.deleted > 0) {
    logger_->Log(LogLevel::kInfo, "hygiene: " + std::to_string(report.archived) + " archived, " +
                                      std::to_string(report.deleted) + " deleted, " +
                                      std::to_string(report.exempt_useful) + " kept as useful, " +
                                      std::to_string(report.scanned) + " entries scanned");
  }
  return std::optional<HygieneReport>(report);
}

}  // namespace mnemo

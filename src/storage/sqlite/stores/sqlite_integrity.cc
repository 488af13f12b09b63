// The SQLite backend's integrity check (AdminStore::CheckIntegrity, for
// memory.health): PRAGMA quick_check on a reader connection, bounded in time
// by a progress handler. quick_check reads every page and checks each
// b-tree's structure (not that indexes match their tables, which
// integrity_check adds at several times the cost).
#include <chrono>
#include <string>
#include <vector>

#include "storage/sqlite/stores/sqlite_admin_store.h"

namespace mnemo::storage::internal {
namespace {

using SteadyClock = std::chrono::steady_clock;

struct Deadline {
  SteadyClock::time_point at;
  bool hit = false;
};

// SQLite calls this every kProgressSteps virtual machine steps; non-zero
// interrupts the statement.
int PastDeadline(void* arg) {
  auto* deadline = static_cast<Deadline*>(arg);
  if (SteadyClock::now() < deadline->at) return 0;
  deadline->hit = true;
  return 1;
}

constexpr int kProgressSteps = 10000;

}  // namespace

Status SqliteAdminStore::CheckIntegrity(std::chrono::milliseconds budget) {
  constexpr std::string_view kWhat = "check the database's integrity";
  ReaderLease reader = db_->AcquireReader();
  Deadline deadline{.at = SteadyClock::now() + budget};
  sqlite3_progress_handler(reader->handle(), kProgressSteps, PastDeadline, &deadline);
  std::vector<std::string> problems;
  Status ran = [&]() -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        reader->Prepare("PRAGMA quick_check(" + std::to_string(kMaxIntegrityProblems) + ")",
                        kWhat));
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step(kWhat));
      if (!row) return Status::Ok();
      std::string line(s.ColumnText(0));
      if (line != "ok") problems.push_back(std::move(line));
    }
  }();
  sqlite3_progress_handler(reader->handle(), 0, nullptr, nullptr);
  if (deadline.hit) {
    return Unavailable("the integrity check did not finish within " +
                       std::to_string(budget.count()) +
                       " ms (a large database); nothing was found damaged in what it read");
  }
  if (!ran.ok()) return ran;  // a corruption status has set the latch already
  if (problems.empty()) return Status::Ok();
  std::string found = "PRAGMA quick_check found " + std::to_string(problems.size()) +
                      (problems.size() >= static_cast<size_t>(kMaxIntegrityProblems)
                           ? " or more problems: "
                           : (problems.size() == 1 ? " problem: " : " problems: "));
  for (size_t i = 0; i < problems.size(); ++i) found += (i == 0 ? "" : "; ") + problems[i];
  db_->damage().Set(found);
  return Corruption("the database is damaged: " + found);
}

}  // namespace mnemo::storage::internal

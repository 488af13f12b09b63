// The memory service (spec 10): the entry tools (store, get, forget,
// mark_useful, list, stats) and hygiene. It owns the count of access counts
// that could not be written, and takes only the entry store, the vectors
// service (a stored text is embedded), the clock, the logger and its
// options. The caller checks that memory is enabled.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "core/search/vectors_service.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"
#include "storage/stores.h"

namespace mnemo {

// Built by MemoryOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct MemoryOptions {
  bool acl_enabled{};              // memory.acl_enabled
  std::string secrets;             // security.secrets
  Config::Memory memory;           // [memory]: hygiene's ages and switches
  std::string backend;             // what stats report
  std::string embedding_provider;  // embedding.provider, as configured
  int schema_version{};
};

MemoryOptions MemoryOptionsOf(const Config& config, const storage::Stores& stores);

class MemoryService {
 public:
  // How often hygiene runs when due (start-up, and the daemon's timer).
  static constexpr TimeMs kHygieneIntervalMs = 12LL * 60 * 60 * 1000;

  MemoryService(storage::EntryStore& entries, VectorsService& vectors, std::shared_ptr<Clock> clock,
                std::shared_ptr<Logger> logger, MemoryOptions options);

  // Memory::Store and its siblings (mnemo/memory.h says what each does).
  Result<StoreResult> Store(const Principal& who, const StoreRequest& req);
  Result<Entry> Get(const Principal& who, const GetRequest& req);
  Result<bool> Forget(const Principal& who, const ForgetRequest& req);
  Result<Entry> MarkUseful(const Principal& who, const GetRequest& req);
  Result<ListPage> List(const Principal& who, const ListRequest& req);
  Result<Stats> GetStats(const Principal& who);

  // Admin::RunHygiene (admin role) and Admin::RunHygieneIfDue.
  Result<HygieneReport> RunHygiene(const Principal& who);
  Result<std::optional<HygieneReport>> RunHygieneIfDue();

  // Access counts are best effort: a read whose count cannot be written (a
  // full or read-only disk, a write lock held elsewhere) still answers.
  // Counts the failure and logs a warning at most once a minute.
  void NoteAccessCountFailure(const Status& s);

 private:
  Result<HygieneReport> RunHygieneNow(TimeMs now);
  Result<std::optional<Entry>> ResolveForRead(const Principal& who, const GetRequest& req);

  storage::EntryStore& entries_;
  VectorsService& vectors_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const MemoryOptions options_;
  std::atomic<int64_t> access_count_failures_{0};
  std::atomic<TimeMs> access_warning_at_{0};  // when the last warning was logged
};

}  // namespace mnemo

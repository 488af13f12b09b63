// mnemo::Memory — the memory tools of spec 10 over the entries: store, get,
// forget, search (spec 20), recall, list, useful marks and statistics.
//
// The memory service itself: made by Engine::Open over the engine's entry
// store, the vectors service (a stored text is embedded) and the search and
// recall services (core/search, which Search and Recall hand the request
// to), and handed out by Engine::memory(); it lives as long as its Engine.
// It owns the count of access counts that could not be written. Every call
// answers kDisabled while memory.enabled = false, then checks the request
// against include/mnemo/limits.h (kInvalidArgument naming the field and
// what is allowed): the wire and C++ callers obey the same rules, checked
// here once.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "mnemo/clock.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage); no caller can make one. Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace internal {
class AuditLog;  // src/core/audit_log.h: null when [security.audit] is off
}  // namespace internal
namespace storage {
class EntryStore;
}  // namespace storage
struct MemoryOptions;  // src/core/services/memory_options.h
class RecallService;
class SearchService;
class VectorsService;
#pragma GCC visibility pop
class Admin;
class Engine;

class Memory {
 public:
  // Made by Engine::Open: the store, the services and the options are the
  // engine's.
  [[gnu::visibility("hidden")]] Memory(storage::EntryStore& entries, VectorsService& vectors,
                                       SearchService& search, RecallService& recall,
                                       internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                                       std::shared_ptr<Logger> logger, MemoryOptions options);
  ~Memory();
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

  Result<StoreResult> Store(const Principal& who, const StoreRequest& req);
  // Counts an access, best effort: when the count cannot be written (a full
  // or read-only disk) the entry is returned uncounted and a warning is
  // printed. kNotFound when missing or not readable by `who`.
  Result<Entry> Get(const Principal& who, const GetRequest& req);
  // Returns whether an entry was deleted.
  Result<bool> Forget(const Principal& who, const ForgetRequest& req);
  Result<SearchResponse> Search(const Principal& who, const SearchRequest& req);
  // kDisabled when ACL is on.
  Result<RecallResponse> Recall(const Principal& who, const RecallRequest& req);
  // Increments useful_count (exempts an entry from hygiene at >= 3).
  Result<Entry> MarkUseful(const Principal& who, const GetRequest& req);
  Result<ListPage> List(const Principal& who, const ListRequest& req);
  Result<Stats> GetStats(const Principal& who);

 private:
  // Hygiene is Admin's (Admin::RunHygiene, RunHygieneIfDue) and runs at
  // open (Engine::Open), which also hands Documents the access-count hook.
  friend class Admin;
  friend class Engine;

  // How often hygiene runs when due (start-up, and the daemon's timer).
  static constexpr TimeMs kHygieneIntervalMs = 12LL * 60 * 60 * 1000;

  // Admin::RunHygiene (admin role) and Admin::RunHygieneIfDue
  // (admin/memory_hygiene.cc).
  Result<HygieneReport> RunHygiene(const Principal& who);
  Result<std::optional<HygieneReport>> RunHygieneIfDue();
  // Access counts are best effort: a read whose count cannot be written (a
  // full or read-only disk, a write lock held elsewhere) still answers.
  // Counts the failure and logs a warning at most once a minute.
  void NoteAccessCountFailure(const Status& s);

  Result<HygieneReport> RunHygieneNow(TimeMs now);
  Result<std::optional<Entry>> ResolveForRead(const Principal& who, const GetRequest& req);

  storage::EntryStore& entries_;
  VectorsService& vectors_;
  SearchService& search_;
  RecallService& recall_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::unique_ptr<const MemoryOptions> options_;
  std::atomic<int64_t> access_count_failures_{0};
  std::atomic<TimeMs> access_warning_at_{0};  // when the last warning was logged
};

}  // namespace mnemo

#pragma GCC visibility pop

// mnemo::Memory — the memory tools of spec 10 over the entries: store, get,
// forget, search (spec 20), recall, list, useful marks and statistics.
//
// Made by Engine::Open and handed out by Engine::memory(); it lives as long
// as its Engine. Every call checks the request against include/mnemo/limits.h
// (kInvalidArgument naming the field and what is allowed) and answers
// kDisabled while memory.enabled = false: the wire and C++ callers obey the
// same rules, checked here once.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

class Memory {
 public:
  // Made by Engine::Open only (internal::Services is private to libmnemo).
  explicit Memory(const internal::Services& services) : services_(services) {}
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
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop

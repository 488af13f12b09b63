// The narrow storage contract every backend implements (sqlite, in_memory;
// later postgres, markdown). The conformance suite in
// tests/storage/conformance_test.cc is the executable form of this contract
// and runs unchanged against every implementation.
//
// Thread-safety: every method may be called from many threads at once.
// Writes are serialised by the backend; reads run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::storage {

// Whose entries a read may see. `all` for admins and whenever ACL is off;
// otherwise the principal's own entries plus public ones. Backends apply it
// inside the query, before any limit.
struct ReadScope {
  bool all = true;
  std::string principal;
};

struct EntryFilter {
  std::optional<std::string> category;
  std::optional<std::string> ns;  // absent: every namespace but the system ones
  std::vector<std::string> tags;  // all must be present
  bool include_archived = false;
  ReadScope scope;
};

// True for the system namespaces `tool-*` and `tool_effectiveness` (spec 10):
// left out of unfiltered search and list.
bool IsSystemNamespace(std::string_view ns);

// A write of one entry, addressed by (owner, ns, key).
struct EntryWrite {
  std::string owner = "local";
  std::string ns = "global";
  std::string key;
  std::string content;
  std::string category = "core";
  std::optional<std::vector<std::string>> tags;  // absent: keep (empty when new)
  std::optional<Visibility> visibility;          // absent: keep (private when new)
  TimeMs now = 0;                                // becomes updated_at, and created_at when new

  // Import only: restore these exactly when present.
  std::optional<std::string> id;
  std::optional<TimeMs> created_at;
  std::optional<int64_t> access_count;
  std::optional<int64_t> useful_count;
  std::optional<bool> archived;
};

struct UpsertResult {
  Entry entry;  // as stored
  bool created = false;
};

struct KeywordQuery {
  // Index tokens produced by text::QueryTerms (already normalised, distinct).
  std::vector<std::string> terms;
  EntryFilter filter;
  int limit = 20;
};

struct KeywordHit {
  Entry entry;
  // min(1, bm25 / sum of the query terms' idf), spec 20.
  double keyword_score = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  virtual int schema_version() const = 0;

  // Insert or update by (owner, ns, key). An update keeps id and created_at
  // (unless the write restores them) and replaces content, category and
  // updated_at; tags and visibility only when given.
  virtual Result<UpsertResult> Upsert(const EntryWrite& write) = 0;

  // All writes in one transaction: either every one is applied or none.
  // Returns how many created a new entry.
  virtual Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes) = 0;

  // The entry of exactly this (owner, ns, key), if any.
  virtual Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                                 std::string_view key) = 0;

  // The most recently updated entry with this (ns, key) visible in `scope`,
  // preferring the scope principal's own entry.
  virtual Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                               const ReadScope& scope) = 0;

  // Deletes by id; returns whether it existed.
  virtual Result<bool> Delete(std::string_view id) = 0;

  // Adds to the counters of one entry by id and returns it (nullopt: gone).
  virtual Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                                   int64_t useful_delta) = 0;

  // Ordered by updated_at descending, then key, then owner.
  virtual Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) = 0;

  // Best `limit` entries matching any term, ordered by keyword score
  // descending, then updated_at descending, then key ascending. Filters are
  // applied inside the search, so results are never short because of them.
  virtual Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) = 0;

  // Counts of entries visible in `scope` (archived included in `entries`).
  virtual Result<Stats> GetStats(const ReadScope& scope) = 0;

  // Calls `fn` for every entry visible in `scope` in (ns, key, owner) order,
  // system namespaces and archived entries included. Stops at the first error.
  virtual Status ForEach(const ReadScope& scope, const std::function<Status(const Entry&)>& fn) = 0;
};

struct SqliteOptions {
  std::string path;  // the database file; created when missing
  int readers = 4;   // reader connections kept open
};

Result<std::unique_ptr<Backend>> OpenSqliteBackend(const SqliteOptions& options);
std::unique_ptr<Backend> NewMemoryBackend();

}  // namespace mnemo::storage

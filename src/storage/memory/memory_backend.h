// The in-memory backend (`in_memory`): nothing persisted; for tests and
// ephemeral agents. It keeps its own inverted index over the same tokens the
// SQLite FTS5 table indexes (key and content tokenised separately by
// text::Tokenize, document length counted like FTS5 counts it) and scores with
// bm25.h, so both backends return the same hits with the same scores.
//
// Thread-safety: a std::shared_mutex; reads share it, writes hold it alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/backend.h"

namespace mnemo::storage::internal {

class MemoryBackend final : public Backend {
 public:
  std::string_view name() const override { return "in_memory"; }
  // Nothing is persisted, so there is no schema to version.
  int schema_version() const override { return 0; }

  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                         std::string_view key) override;
  Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Status ForEach(const ReadScope& scope, const std::function<Status(const Entry&)>& fn) override;

 private:
  using Row = uint64_t;
  using Address = std::tuple<std::string, std::string, std::string>;  // owner, ns, key
  using Name = std::pair<std::string, std::string>;                   // ns, key

  struct Doc {
    Entry entry;
    int64_t length = 0;                                  // tokens, as FTS5 counts them
    std::unordered_map<std::string, int64_t> frequency;  // token -> occurrences
  };
  // What a write replaced, so a failed batch can be undone.
  struct Undo {
    Row row;
    std::optional<Doc> before;  // absent: the write created the row
  };

  static Doc MakeDoc(Entry entry, const Doc* previous);
  void Insert(Row row, Doc doc);
  Doc Erase(Row row);
  Result<UpsertResult> ApplyLocked(const EntryWrite& write, std::vector<Undo>& undo);
  void RollBackLocked(std::vector<Undo>& undo);
  std::vector<const Entry*> MatchingLocked(const EntryFilter& filter) const;

  mutable std::shared_mutex mu_;
  Row next_row_ = 1;
  std::unordered_map<Row, Doc> docs_;
  std::unordered_map<std::string, Row> by_id_;
  std::map<Address, Row> by_address_;
  std::map<Name, std::set<Row>> by_name_;
  std::unordered_map<std::string, std::unordered_set<Row>> postings_;
  int64_t total_tokens_ = 0;
};

}  // namespace mnemo::storage::internal

// The SQLite entry store: rows of table entries, their keyword index on the
// contentless FTS5 table entries_fts (tokenizer `mnemo`, rank function
// mnemo_score, every filter in the same statement), labels as rowids, and
// vectors in entry_vectors with their change log in vector_changes.
// Files: sqlite_entry_store.cc (writes, reads, hygiene),
// sqlite_keyword_search.cc, sqlite_vectors.cc (vectors and reads by label).
// UpsertBatch is one transaction for the whole batch.
#pragma once

#include <atomic>
#include <memory>

#include "storage/entry_store.h"
#include "storage/sqlite/sqlite_database.h"

namespace mnemo::storage::internal {

class SqliteEntryStore final : public EntryStore {
 public:
  explicit SqliteEntryStore(std::shared_ptr<SqliteDatabase> db);

  std::string_view store_id() const override { return db_->store_id(); }
  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                              std::vector<Label>* labels = nullptr) override;
  Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                           const MutateFn& decide) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, const Namespace& ns,
                                         const Key& key) override;
  Result<std::optional<Entry>> Resolve(const Namespace& ns, const Key& key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Result<int64_t> Generation(Counter which) override;
  Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                     const HygieneFn& decide) override;
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override;
  Result<std::optional<TimeMs>> LastHygieneRun() override;
  Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                 const std::function<Status(const Entry&)>& fn) override;
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override;
  Status ForEachVector(std::string_view signature,
                       const std::function<Status(const LabeledVector&)>& fn) override;
  Result<std::vector<LabeledVector>> VectorsFor(std::string_view signature,
                                                std::span<const Label> labels) override;
  Result<std::vector<MissingVector>> MissingVectors(std::string_view signature, Label after_label,
                                                    int limit) override;
  Result<int64_t> CountMissingVectors(std::string_view signature) override;
  Result<int64_t> VectorWatermark(std::string_view signature) override;
  Result<std::vector<VectorChange>> VectorChangesSince(std::string_view signature, int64_t seq,
                                                       int limit) override;
  Result<int64_t> CountVectors(std::string_view signature) override;
  Result<std::vector<KeywordHit>> FetchByLabels(std::span<const Label> labels,
                                                const EntryFilter& filter,
                                                const std::vector<std::string>& terms) override;
  Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                            const EntryFilter& filter) override;
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;
  Status CompactEntryIndex() override;
  // How the keyword searches that tried to prune (fts_rank.h, PrunedMatch)
  // went since the open: answered by the first try, by the second, or run
  // again in full.
  struct KeywordPruneCounts {
    int64_t first = 0;
    int64_t second = 0;
    int64_t full = 0;
  };
  KeywordPruneCounts keyword_prune_counts() const;

 private:
  std::atomic<int64_t> pruned_first_{0};
  std::atomic<int64_t> pruned_second_{0};
  std::atomic<int64_t> pruned_full_{0};
  const std::shared_ptr<SqliteDatabase> db_;
};

}  // namespace mnemo::storage::internal

// The in-memory entry store: its own inverted index over the same tokens
// the SQLite FTS5 table indexes (key and content tokenised separately by
// text::Tokenize, document length counted like FTS5 counts it), scored with
// bm25.h, so both backends return the same hits with the same scores.
// Labels are a counter, never reused. Vectors and their change log follow
// the same rules as the SQLite tables (vector_rules.h): memory_vectors.cc.
#pragma once

#include <memory>

#include "storage/entry_store.h"
#include "storage/memory/memory_state.h"

namespace mnemo::storage::internal {

class MemoryEntryStore final : public EntryStore {
 public:
  explicit MemoryEntryStore(std::shared_ptr<MemoryState> state) : state_(std::move(state)) {}

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
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;

 private:
  using Row = MemoryState::Row;
  using Doc = MemoryState::Doc;
  using Undo = MemoryState::Undo;
  using VectorSpace = MemoryState::VectorSpace;
  using KeywordScorer = MemoryState::KeywordScorer;
  using TurnDoc = MemoryState::TurnDoc;
  using EventDoc = MemoryState::EventDoc;
  using StoredSegmentVector = MemoryState::StoredSegmentVector;
  using LogRow = MemoryState::LogRow;

  const std::shared_ptr<MemoryState> state_;
};

}  // namespace mnemo::storage::internal

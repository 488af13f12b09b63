// AdminStore::Restore in memory: the one restore driver (RestoreRows,
// restore.h) under the one exclusive lock. Everything that can fail is
// checked before the first row is written (an entry write that fails is
// rolled back like UpsertBatch), so a failed restore changes nothing.
#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "storage/memory/memory_admin_store.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::storage::internal {

// The rows of a restore in `state`, with its lock held exclusively.
class MemoryRestoreTarget final : public RestoreTarget {
 public:
  explicit MemoryRestoreTarget(MemoryState& state) : s_(state) {}

  Result<int64_t> WriteEntries(std::span<const EntryWrite> entries,
                               std::vector<Label>& labels) override {
    std::vector<MemoryState::Undo> undo;
    const int64_t first_seq = s_.next_seq_;
    int64_t created = 0;
    for (const EntryWrite& write : entries) {
      Result<UpsertResult> r = s_.ApplyLocked(write, undo);
      if (!r.ok()) {
        s_.RollBackLocked(undo, first_seq);
        return r.status();
      }
      if (r->created) ++created;
      labels.push_back(r->label);
    }
    return created;
  }
  // Dimensions were checked against the stored ones before the first write.
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override {
    MemoryState::VectorSpace& space = s_.spaces_.try_emplace(std::string(signature)).first->second;
    for (const LabeledVector& v : vectors) {
      space.vectors[v.label] = v.vector;
      s_.LogLocked(space, v.label, kChangePresent);
    }
    return Status::Ok();
  }

  Result<bool> HasTurn(const TurnRow& row) override {
    return s_.turns_by_session_.contains({row.owner, row.session_id, row.seq});
  }
  Result<bool> HasSegment(const SegmentRow& seg) override {
    return s_.segments_.contains(seg.id) ||
           (seg.status == "open" && s_.open_segments_.contains({seg.owner, seg.session_id}));
  }
  Result<bool> HasEvent(const EventRow& e) override {
    return s_.event_ids_.contains(e.id) || s_.event_texts_.contains({e.owner, e.type, e.text});
  }
  Result<bool> HasFacet(const FacetRow& f) override {
    return s_.facets_.contains({f.facet_type, f.key, f.owner});
  }
  Result<bool> HasDocument(const DocumentRow& doc) override {
    return s_.document_rows_.contains(doc.id) ||
           s_.document_hashes_.contains({doc.owner, doc.content_hash});
  }
  Result<bool> HasContextEvent(const ContextEventRow& row) override {
    return s_.context_by_session_.contains({row.owner, row.session_id, row.seq});
  }
  Result<bool> HasTriple(const TripleRow& t) override {
    return std::any_of(s_.triples_.begin(), s_.triples_.end(), [&](const auto& stored_row) {
      const TripleRow& s = stored_row.second;
      return s.id == t.id ||
             (t.valid_to == 0 && s.valid_to == 0 && s.owner == t.owner &&
              s.predicate == t.predicate && TripleTermKey(s.subject) == TripleTermKey(t.subject) &&
              TripleTermKey(s.object) == TripleTermKey(t.object));
    });
  }

  Status InsertTurn(const TurnWrite& w) override {
    TurnRow row = w.row;
    if (row.id <= 0 || s_.turns_.contains(row.id)) row.id = s_.next_turn_id_;
    s_.InsertTurnLocked(row, w.SearchText(row));
    return Status::Ok();
  }
  Status InsertSegment(const SegmentRow& row) override { return s_.PutSegmentLocked(row); }
  Status InsertEvent(const EventRow& row) override {
    s_.InsertEventLocked(row);
    return Status::Ok();
  }
  Status InsertFacet(const FacetRow& row) override {
    s_.facets_.try_emplace({row.facet_type, row.key, row.owner}, row);
    return Status::Ok();
  }
  Status InsertDocument(const DocumentRow& row) override {
    s_.InsertDocumentLocked(row);
    return Status::Ok();
  }
  Status InsertContextEvent(const ContextEventRow& given) override {
    ContextEventRow row = given;
    if (row.id <= 0 || s_.context_events_.contains(row.id)) row.id = s_.next_context_id_;
    s_.InsertContextEventLocked(row);
    return Status::Ok();
  }
  Status InsertTriple(const TripleRow& row) override {
    s_.triples_[s_.next_triple_row_++] = row;
    return Status::Ok();
  }

 private:
  MemoryState& s_;
};

Result<RestoreReport> MemoryAdminStore::Restore(const RestoreBatch& batch) {
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  std::unique_lock lock(state_->mu_);
  std::map<std::string, std::vector<LabeledVector>> by_signature;
  for (const RestoreVector& v : batch.vectors) {
    by_signature[v.signature].push_back({0, v.vector});
  }
  for (const auto& [signature, vectors] : by_signature) {
    const VectorSpace* existing = state_->FindSpaceLocked(signature);
    std::optional<size_t> stored_dim;
    if (existing != nullptr && !existing->vectors.empty()) {
      stored_dim = existing->vectors.begin()->second.size();
    }
    MNEMO_RETURN_IF_ERROR(CheckVectorDimensions(signature, vectors, stored_dim));
  }
  const int64_t first_seq = state_->next_seq_;
  MemoryRestoreTarget target(*state_);
  MNEMO_ASSIGN_OR_RETURN(RestoreReport report, RestoreRows(batch, target));
  state_->LoggedLocked(state_->next_seq_ - first_seq);
  return report;
}

}  // namespace mnemo::storage::internal

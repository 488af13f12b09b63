// AdminStore::Restore in memory: the rules of restore.h under one exclusive
// lock. Everything that can fail is checked before the first row is
// written (an entry write that fails is rolled back like UpsertBatch), so
// a failed restore changes nothing.
#include <algorithm>
#include <map>
#include <mutex>
#include <shared_mutex>

#include "storage/document_rules.h"
#include "storage/graph_rules.h"
#include "storage/memory/memory_admin_store.h"

namespace mnemo::storage::internal {

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
  RestoreReport report;
  std::vector<Undo> undo;
  const int64_t first_seq = state_->next_seq_;
  std::vector<Label> labels;
  for (const EntryWrite& write : batch.entries) {
    Result<UpsertResult> r = state_->ApplyLocked(write, undo);
    if (!r.ok()) {
      state_->RollBackLocked(undo, first_seq);
      return r.status();
    }
    if (r->created) ++report.entries_created;
    labels.push_back(r->label);
  }
  for (const RestoreVector& v : batch.vectors) {
    VectorSpace& space = state_->spaces_.try_emplace(v.signature).first->second;
    space.vectors[labels[v.entry]] = v.vector;
    state_->LogLocked(space, labels[v.entry], kChangePresent);
  }
  state_->LoggedLocked(state_->next_seq_ - first_seq);

  for (const TurnWrite& w : batch.turns) {
    if (state_->turns_by_session_.contains({w.row.owner, w.row.session_id, w.row.seq})) {
      ++report.skipped;
      continue;
    }
    TurnRow row = w.row;
    if (row.id <= 0 || state_->turns_.contains(row.id)) row.id = state_->next_turn_id_;
    state_->InsertTurnLocked(row, w.search_text);
  }
  for (const SegmentRow& seg : batch.segments) {
    if (state_->segments_.contains(seg.id) ||
        (seg.status == "open" && state_->open_segments_.contains({seg.owner, seg.session_id}))) {
      ++report.skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(state_->PutSegmentLocked(seg));  // cannot conflict: checked above
  }
  for (const EventRow& e : batch.events) {
    if (state_->event_ids_.contains(e.id) ||
        state_->event_texts_.contains({e.owner, e.type, e.text})) {
      ++report.skipped;
      continue;
    }
    state_->InsertEventLocked(e);
  }
  for (const FacetRow& f : batch.facets) {
    auto [it, fresh] = state_->facets_.try_emplace({f.facet_type, f.key, f.owner}, f);
    if (!fresh) ++report.skipped;
  }
  for (const DocumentRow& given : batch.documents) {
    DocumentRow doc = given;
    doc.content_hash = ContentHash(doc.content);
    if (state_->document_rows_.contains(doc.id) ||
        state_->document_hashes_.contains({doc.owner, doc.content_hash})) {
      ++report.skipped;
      ++report.documents_skipped;
      continue;
    }
    state_->InsertDocumentLocked(doc);
  }
  for (const ContextEventRow& given : batch.context_events) {
    if (state_->context_by_session_.contains({given.owner, given.session_id, given.seq})) {
      ++report.skipped;
      continue;
    }
    ContextEventRow row = given;
    if (row.id <= 0 || state_->context_events_.contains(row.id)) row.id = state_->next_context_id_;
    state_->InsertContextEventLocked(row);
  }
  for (const TripleRow& t : batch.triples) {
    const bool stored =
        std::any_of(state_->triples_.begin(), state_->triples_.end(), [&](const auto& stored_row) {
          const TripleRow& s = stored_row.second;
          return s.id == t.id || (t.valid_to == 0 && s.valid_to == 0 && s.owner == t.owner &&
                                  s.predicate == t.predicate &&
                                  TripleTermKey(s.subject) == TripleTermKey(t.subject) &&
                                  TripleTermKey(s.object) == TripleTermKey(t.object));
        });
    if (stored) {
      ++report.skipped;
      ++report.triples_skipped;
      continue;
    }
    state_->triples_[state_->next_triple_row_++] = t;
  }
  return report;
}

}  // namespace mnemo::storage::internal

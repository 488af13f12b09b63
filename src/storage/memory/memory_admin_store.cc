// Erasure in memory (admin_store.h "Erasure"): the rows and their index
// entries leave the maps under one exclusive lock, so no reader sees half.
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "storage/memory/memory_admin_store.h"
#include "storage/rules/erasure_rules.h"

namespace mnemo::storage::internal {
namespace {

bool InScope(const std::string& owner, const std::string& session_id, std::string_view o,
             std::optional<std::string_view> s) {
  return owner == o && (!s || session_id == *s);
}

}  // namespace

int64_t MemoryState::EraseContextLocked(std::string_view owner,
                                        std::optional<std::string_view> session_id) {
  std::vector<int64_t> doomed;
  for (const auto& [id, row] : context_events_) {
    if (InScope(row.owner, row.session_id, owner, session_id)) doomed.push_back(id);
  }
  for (const int64_t id : doomed) EraseContextEventLocked(id);
  std::erase_if(context_next_seq_, [&](const auto& s) {
    return InScope(s.first.first, s.first.second, owner, session_id);
  });
  return static_cast<int64_t>(doomed.size());
}

Result<ErasureCounts> MemoryAdminStore::EraseSession(const SessionErasure& what) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(what.owner));
  std::unique_lock lock(state_->mu_);
  ErasureCounts counts;
  state_->EraseEpisodicLocked(what.owner, what.session_id.view(), counts);
  counts.context_events = state_->EraseContextLocked(what.owner, what.session_id.view());
  for (const std::string& id : what.document_ids) {
    auto row = state_->document_rows_.find(id);
    if (row == state_->document_rows_.end() ||
        state_->documents_.at(row->second).owner != what.owner)
      continue;
    if (state_->DropDocumentLocked(id)) ++counts.documents;
    counts.triples += static_cast<int64_t>(std::erase_if(state_->triples_, [&](const auto& t) {
      return t.second.owner == what.owner && t.second.source == id;
    }));
  }
  return counts;
}

Result<ErasureCounts> MemoryAdminStore::ErasePrincipal(std::string_view owner) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(owner));
  std::unique_lock lock(state_->mu_);
  ErasureCounts counts;
  std::vector<Row> entries;
  for (const auto& [row, doc] : state_->docs_) {
    if (doc.entry.owner == owner) entries.push_back(row);
  }
  int64_t logged = 0;
  for (const Row row : entries) {
    state_->Erase(row);
    const int64_t dropped = state_->DropVectorsLocked(row, nullptr);
    counts.entry_vectors += dropped;
    logged += dropped;
  }
  state_->LoggedLocked(logged);
  counts.entries = static_cast<int64_t>(entries.size());
  state_->EraseEpisodicLocked(owner, std::nullopt, counts);
  counts.facets_removed += static_cast<int64_t>(
      std::erase_if(state_->facets_, [&](const auto& f) { return f.second.owner == owner; }));
  counts.context_events = state_->EraseContextLocked(owner, std::nullopt);
  std::vector<std::string> documents;
  for (const auto& [row, doc] : state_->documents_) {
    if (doc.owner == owner) documents.push_back(doc.id);
  }
  for (const std::string& id : documents) {
    if (state_->DropDocumentLocked(id)) ++counts.documents;
  }
  counts.triples = static_cast<int64_t>(
      std::erase_if(state_->triples_, [&](const auto& t) { return t.second.owner == owner; }));
  return counts;
}

}  // namespace mnemo::storage::internal

// Documents in memory: the semantics, scores and order of the SQLite table
// `documents` and its index `documents_fts`.
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "storage/memory/memory_document_store.h"
#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

// ListDocuments order: newest first, then id.
bool NewerFirst(const DocumentRow& a, const DocumentRow& b) {
  if (a.created_at != b.created_at) return a.created_at > b.created_at;
  return a.id < b.id;
}

}  // namespace

Result<DocumentPut> MemoryDocumentStore::PutDocument(const DocumentRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateDocument(row));
  DocumentRow doc = NewDocumentRow(row);
  std::unique_lock lock(state_->mu_);
  auto same = state_->document_hashes_.find({doc.owner, doc.content_hash});
  if (same != state_->document_hashes_.end()) {
    return DocumentPut{.row = state_->documents_.at(same->second), .created = false};
  }
  if (state_->document_rows_.contains(doc.id)) {
    return Conflict("document id " + doc.id + " is already used");
  }
  state_->InsertDocumentLocked(doc);
  return DocumentPut{.row = std::move(doc), .created = true};
}

void MemoryState::InsertDocumentLocked(const DocumentRow& doc) {
  const int64_t r = next_document_row_++;
  document_index_.Add(r, {doc.search_text, doc.summary, TagsText(doc.tags)});
  document_rows_[doc.id] = r;
  document_hashes_[{doc.owner, doc.content_hash}] = r;
  documents_[r] = doc;
}

Result<std::optional<DocumentRow>> MemoryDocumentStore::GetDocument(std::string_view id,
                                                                    bool count_access) {
  if (!count_access) {
    std::shared_lock lock(state_->mu_);
    auto it = state_->document_rows_.find(std::string(id));
    if (it == state_->document_rows_.end()) return std::optional<DocumentRow>();
    return std::optional<DocumentRow>(state_->documents_.at(it->second));
  }
  std::unique_lock lock(state_->mu_);
  auto it = state_->document_rows_.find(std::string(id));
  if (it == state_->document_rows_.end()) return std::optional<DocumentRow>();
  DocumentRow& doc = state_->documents_.at(it->second);
  ++doc.access_count;
  return std::optional<DocumentRow>(doc);
}

Result<std::vector<DocumentHit>> MemoryDocumentStore::SearchDocuments(const DocumentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<DocumentHit>();
  std::shared_lock lock(state_->mu_);
  std::vector<DocumentHit> hits;
  const auto owned = [&](int64_t row) {
    return !query.owner || state_->documents_.at(row).owner == *query.owner;
  };
  for (const auto& [row, score] : state_->document_index_.Score(
           terms, owned, query.owner ? std::function<bool(int64_t)>(owned) : nullptr)) {
    hits.push_back({.row = state_->documents_.at(row), .score = score});
  }
  std::sort(hits.begin(), hits.end(), [](const DocumentHit& a, const DocumentHit& b) {
    if (a.score != b.score) return a.score > b.score;
    return NewerFirst(a.row, b.row);
  });
  if (hits.size() > static_cast<size_t>(query.limit)) hits.resize(static_cast<size_t>(query.limit));
  return hits;
}

Result<std::vector<DocumentRow>> MemoryDocumentStore::ListDocuments(
    std::optional<std::string> owner, std::optional<std::string> source_prefix, int limit,
    int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  std::vector<DocumentRow> out;
  if (limit <= 0) return out;
  std::shared_lock lock(state_->mu_);
  std::vector<const DocumentRow*> matching;
  for (const auto& [row, doc] : state_->documents_) {
    if (owner && doc.owner != *owner) continue;
    if (source_prefix && !doc.source.starts_with(*source_prefix)) continue;
    matching.push_back(&doc);
  }
  std::sort(matching.begin(), matching.end(),
            [](const DocumentRow* a, const DocumentRow* b) { return NewerFirst(*a, *b); });
  for (size_t i = static_cast<size_t>(std::min<int64_t>(offset, std::ssize(matching)));
       i < matching.size() && out.size() < static_cast<size_t>(limit); ++i) {
    out.push_back(*matching[i]);
  }
  return out;
}

Result<bool> MemoryDocumentStore::DeleteDocument(std::string_view id) {
  std::unique_lock lock(state_->mu_);
  return state_->DropDocumentLocked(id);
}

bool MemoryState::DropDocumentLocked(std::string_view id) {
  auto it = document_rows_.find(std::string(id));
  if (it == document_rows_.end()) return false;
  const int64_t r = it->second;
  const DocumentRow& doc = documents_.at(r);
  document_index_.Remove(r);
  document_hashes_.erase({doc.owner, doc.content_hash});
  document_rows_.erase(it);
  documents_.erase(r);
  return true;
}

Result<int64_t> MemoryDocumentStore::CountDocuments(std::optional<std::string> owner) {
  std::shared_lock lock(state_->mu_);
  if (!owner) return static_cast<int64_t>(state_->documents_.size());
  return static_cast<int64_t>(
      std::count_if(state_->documents_.begin(), state_->documents_.end(),
                    [&](const auto& d) { return d.second.owner == *owner; }));
}

Result<std::vector<int64_t>> MemoryDocumentStore::DocumentFrequencies(
    std::span<const std::string> terms) {
  std::shared_lock lock(state_->mu_);
  std::vector<int64_t> counts;
  counts.reserve(terms.size());
  for (const std::string& t : terms) counts.push_back(state_->document_index_.DocumentsWith(t));
  return counts;
}

Status MemoryDocumentStore::UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                                                  std::string_view summary,
                                                  std::span<const std::string> tags,
                                                  std::span<const std::string> entities,
                                                  TimeMs updated_at) {
  std::unique_lock lock(state_->mu_);
  auto it = state_->document_rows_.find(std::string(id));
  if (it == state_->document_rows_.end()) return NotFound("no document " + std::string(id));
  DocumentRow& doc = state_->documents_.at(it->second);
  doc.search_text = search_text;
  doc.summary = summary;
  doc.tags.assign(tags.begin(), tags.end());
  doc.entities.assign(entities.begin(), entities.end());
  doc.updated_at = updated_at;
  state_->document_index_.Remove(it->second);
  state_->document_index_.Add(it->second, {doc.search_text, doc.summary, TagsText(doc.tags)});
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

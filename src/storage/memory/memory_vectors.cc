// The vector half of the in-memory backend (entry_store.h, "Vectors"), with the
// semantics of the SQLite tables entry_vectors and vector_changes
// (docs/storage.md), so the conformance suite holds for both.
#include <algorithm>
#include <mutex>
#include <unordered_set>

#include "storage/memory/memory_entry_store.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

// Vectors copied out per lock: memory stays flat however many there are.
constexpr size_t kForEachVectorPage = 1024;

}  // namespace

const MemoryState::VectorSpace* MemoryState::FindSpaceLocked(std::string_view signature) const {
  auto it = spaces_.find(signature);
  return it == spaces_.end() ? nullptr : &it->second;
}

void MemoryState::LogLocked(VectorSpace& space, Label label, int present) {
  space.log.push_back({next_seq_++, label, present});
}

int64_t MemoryState::DropVectorsLocked(Row row, Undo* undo) {
  int64_t dropped = 0;
  for (auto& [signature, space] : spaces_) {
    auto it = space.vectors.find(row);
    if (it == space.vectors.end()) continue;
    if (undo != nullptr) undo->vectors.emplace_back(signature, std::move(it->second));
    space.vectors.erase(it);
    LogLocked(space, row, kChangeRemoved);
    ++dropped;
  }
  return dropped;
}

void MemoryState::LoggedLocked(int64_t changes) {
  if (changes <= 0 || !trim_.Logged(changes)) return;
  const auto limit = static_cast<size_t>(trim_.limit());
  for (auto& [signature, space] : spaces_) {
    if (space.log.size() <= limit) continue;
    // The newest row beyond the kept ones becomes the marker; older ones go.
    const size_t marker = space.log.size() - 1 - limit;
    space.log.erase(space.log.begin(), space.log.begin() + static_cast<std::ptrdiff_t>(marker));
    space.log.front().present = kTrimMarker;
  }
}

std::optional<size_t> MemoryState::StoredDimensionLocked(std::string_view signature) const {
  const VectorSpace* existing = FindSpaceLocked(signature);
  if (existing == nullptr || existing->vectors.empty()) return std::nullopt;
  return existing->vectors.begin()->second.size();
}

void MemoryState::PutVectorLocked(std::string_view signature, Row row, std::vector<float> vector) {
  auto space = spaces_.find(signature);
  if (space == spaces_.end()) space = spaces_.try_emplace(std::string(signature)).first;
  space->second.vectors[row] = std::move(vector);
  LogLocked(space->second, row, kChangePresent);
}

Status MemoryEntryStore::PutVectors(std::string_view signature,
                                    std::span<const LabeledVector> vectors) {
  std::unique_lock lock(state_->mu_);
  MNEMO_RETURN_IF_ERROR(
      CheckVectorDimensions(signature, vectors, state_->StoredDimensionLocked(signature)));
  if (vectors.empty()) return Status::Ok();
  int64_t logged = 0;
  for (const LabeledVector& v : vectors) {
    if (!state_->docs_.contains(v.label)) continue;
    state_->PutVectorLocked(signature, v.label, v.vector);
    ++logged;
  }
  state_->LoggedLocked(logged);
  return Status::Ok();
}

Status MemoryEntryStore::ForEachVector(std::string_view signature,
                                       const std::function<Status(const LabeledVector&)>& fn) {
  Label after = 0;
  while (true) {
    std::vector<LabeledVector> page;
    {
      std::shared_lock lock(state_->mu_);
      const VectorSpace* space = state_->FindSpaceLocked(signature);
      if (space == nullptr) return Status::Ok();
      for (auto it = space->vectors.upper_bound(after);
           it != space->vectors.end() && page.size() < kForEachVectorPage; ++it) {
        page.push_back({it->first, it->second});
      }
    }
    // `fn` runs unlocked, so it may call back into the backend.
    for (const LabeledVector& v : page) MNEMO_RETURN_IF_ERROR(fn(v));
    if (page.size() < kForEachVectorPage) return Status::Ok();
    after = page.back().label;
  }
}

Result<std::vector<LabeledVector>> MemoryEntryStore::VectorsFor(std::string_view signature,
                                                                std::span<const Label> labels) {
  std::shared_lock lock(state_->mu_);
  std::vector<LabeledVector> out;
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  if (space == nullptr) return out;
  std::unordered_set<Label> seen;
  for (Label label : labels) {
    auto it = space->vectors.find(label);
    if (it != space->vectors.end() && seen.insert(label).second) {
      out.push_back({label, it->second});
    }
  }
  return out;
}

Result<std::vector<MissingVector>> MemoryEntryStore::MissingVectors(std::string_view signature,
                                                                    Label after_label, int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<MissingVector> out;
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  for (auto it = state_->docs_.upper_bound(after_label);
       it != state_->docs_.end() && static_cast<int64_t>(out.size()) < limit; ++it) {
    if (space != nullptr && space->vectors.contains(it->first)) continue;
    out.push_back({it->first, it->second.entry.key, it->second.entry.content});
  }
  return out;
}

Result<int64_t> MemoryEntryStore::CountMissingVectors(std::string_view signature) {
  std::shared_lock lock(state_->mu_);
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  int64_t missing = 0;
  for (const auto& [row, doc] : state_->docs_) {
    if (space == nullptr || !space->vectors.contains(row)) ++missing;
  }
  return missing;
}

Result<int64_t> MemoryEntryStore::VectorWatermark(std::string_view signature) {
  std::shared_lock lock(state_->mu_);
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  return space == nullptr || space->log.empty() ? int64_t{0} : space->log.back().seq;
}

Result<int64_t> MemoryEntryStore::CountVectors(std::string_view signature) {
  std::shared_lock lock(state_->mu_);
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  return space == nullptr ? int64_t{0} : static_cast<int64_t>(space->vectors.size());
}

Result<std::vector<VectorChange>> MemoryEntryStore::VectorChangesSince(std::string_view signature,
                                                                       int64_t seq, int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<VectorChange> out;
  const VectorSpace* space = state_->FindSpaceLocked(signature);
  if (space == nullptr || space->log.empty()) return out;
  const LogRow& oldest = space->log.front();
  if (oldest.present == kTrimMarker && seq < oldest.seq) {
    return TrimmedLogError(signature, seq, oldest.seq);
  }
  auto it = std::upper_bound(space->log.begin(), space->log.end(), seq,
                             [](int64_t s, const LogRow& row) { return s < row.seq; });
  for (; it != space->log.end() && static_cast<int64_t>(out.size()) < limit; ++it) {
    if (it->present == kTrimMarker) continue;
    VectorChange change{.seq = it->seq, .label = it->label, .vector = {}};
    // Like the SQLite join: a present row carries the label's current vector.
    if (it->present == kChangePresent) {
      auto v = space->vectors.find(it->label);
      if (v != space->vectors.end()) change.vector = v->second;
    }
    out.push_back(std::move(change));
  }
  return out;
}

Result<std::vector<KeywordHit>> MemoryEntryStore::FetchByLabels(
    std::span<const Label> labels, const EntryFilter& filter,
    const std::vector<std::string>& terms) {
  std::shared_lock lock(state_->mu_);
  KeywordScorer scorer(*state_, DistinctTerms(terms), filter.scope);
  std::vector<KeywordHit> out;
  std::unordered_set<Label> seen;
  for (Label label : labels) {
    auto it = state_->docs_.find(label);
    if (it == state_->docs_.end() || !MatchesFilter(filter, it->second.entry)) continue;
    if (!seen.insert(label).second) continue;
    out.push_back(
        {.entry = it->second.entry, .keyword_score = scorer.Score(it->second), .label = label});
  }
  return out;
}

Result<std::vector<Label>> MemoryEntryStore::MatchingLabels(const EntryFilter& filter, int limit) {
  std::shared_lock lock(state_->mu_);
  std::vector<Label> out;
  for (auto it = state_->docs_.begin();
       it != state_->docs_.end() && static_cast<int64_t>(out.size()) < limit; ++it) {
    if (MatchesFilter(filter, it->second.entry)) out.push_back(it->first);
  }
  return out;
}

Result<std::vector<std::string>> MemoryEntryStore::VectorSignatures() {
  std::shared_lock lock(state_->mu_);
  std::vector<std::string> out;
  for (const auto& [signature, space] : state_->spaces_) {
    if (!space.vectors.empty()) out.push_back(signature);
  }
  return out;
}

}  // namespace mnemo::storage::internal

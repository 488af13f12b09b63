// Search over segment recaps and recap vectors in memory: the semantics of
// the SQLite tables segment_recaps, segment_recaps_fts and segment_vectors.
#include <algorithm>
#include <mutex>
#include <shared_mutex>

#include "storage/memory/memory_episodic_store.h"
#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {

void MemoryState::SyncRecapLocked(const SegmentRow& segment) {
  auto row = recap_rows_.find(segment.id);
  if (row != recap_rows_.end()) {
    auto stored = segments_.find(segment.id);
    if (stored != segments_.end() && stored->second.recap == segment.recap) return;
    recap_index_.Remove(row->second);
    recap_segments_.erase(row->second);
    recap_rows_.erase(row);
  }
  if (segment.recap.empty()) return;
  const int64_t r = next_recap_row_++;
  recap_index_.Add(r, {segment.recap});
  recap_rows_[segment.id] = r;
  recap_segments_[r] = segment.id;
}

Result<std::vector<SegmentHit>> MemoryEpisodicStore::SearchSegments(const SegmentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<SegmentHit>();
  std::shared_lock lock(state_->mu_);
  auto segment = [&](int64_t row) -> const SegmentRow& {
    return state_->segments_.at(state_->recap_segments_.at(row));
  };
  std::vector<SegmentHit> hits;
  for (const auto& [row, score] : state_->recap_index_.Score(terms, [&](int64_t row) {
         const SegmentRow& s = segment(row);
         return s.status == "closed" && (!query.owner || s.owner == *query.owner) &&
                (!query.session_id || s.session_id == *query.session_id);
       })) {
    hits.push_back({.row = segment(row), .score = score});
  }
  std::sort(hits.begin(), hits.end(), [](const SegmentHit& a, const SegmentHit& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.row.closed_at != b.row.closed_at) return a.row.closed_at > b.row.closed_at;
    return a.row.id < b.row.id;
  });
  if (hits.size() > static_cast<size_t>(query.limit)) hits.resize(static_cast<size_t>(query.limit));
  return hits;
}

Status MemoryEpisodicStore::PutSegmentVector(std::string_view segment_id,
                                             std::string_view signature,
                                             std::span<const float> vector) {
  MNEMO_RETURN_IF_ERROR(CheckSegmentVector(signature, vector, std::nullopt));
  std::unique_lock lock(state_->mu_);
  if (!state_->segments_.contains(std::string(segment_id))) {
    return NotFound("no segment " + std::string(segment_id));
  }
  const std::string sig(signature);
  auto same_signature = state_->segment_vectors_.lower_bound({sig, ""});
  if (same_signature != state_->segment_vectors_.end() && same_signature->first.first == sig) {
    MNEMO_RETURN_IF_ERROR(
        CheckSegmentVector(signature, vector, same_signature->second.vector.size()));
  }
  StoredSegmentVector& stored = state_->segment_vectors_[{sig, std::string(segment_id)}];
  if (stored.version != 0) state_->segment_vector_versions_.erase({sig, stored.version});
  stored.version = ++state_->segment_vector_version_;
  stored.vector.assign(vector.begin(), vector.end());
  state_->segment_vector_versions_[{sig, stored.version}] = std::string(segment_id);
  return Status::Ok();
}

Result<std::vector<SegmentVector>> MemoryEpisodicStore::SegmentVectorsSince(
    std::string_view signature, int64_t after_version, int limit) {
  std::vector<SegmentVector> out;
  if (limit <= 0) return out;
  std::shared_lock lock(state_->mu_);
  const std::string sig(signature);
  for (auto it = state_->segment_vector_versions_.upper_bound({sig, after_version});
       it != state_->segment_vector_versions_.end() && it->first.first == sig &&
       out.size() < static_cast<size_t>(limit);
       ++it) {
    const SegmentRow& s = state_->segments_.at(it->second);
    out.push_back({.segment_id = s.id,
                   .owner = s.owner,
                   .session_id = s.session_id,
                   .version = it->first.second,
                   .vector = state_->segment_vectors_.at({sig, s.id}).vector});
  }
  return out;
}

}  // namespace mnemo::storage::internal

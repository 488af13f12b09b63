#include "core/archivist/recap_vectors.h"

#include <algorithm>

#include "embed/embedder.h"

namespace mnemo {
namespace {

constexpr int kCatchUpBatch = 1000;

}  // namespace

Status RecapVectors::CatchUp() {
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::SegmentVector> batch,
                           episodic_.SegmentVectorsSince(signature_, version_, kCatchUpBatch));
    for (storage::SegmentVector& v : batch) {
      version_ = std::max(version_, v.version);
      items_[v.segment_id] = Item{.owner = std::move(v.owner), .vector = std::move(v.vector)};
    }
    if (batch.size() < static_cast<size_t>(kCatchUpBatch)) return Status::Ok();
  }
}

Result<std::vector<RecapVectors::Hit>> RecapVectors::Nearest(
    std::span<const float> q, size_t k, const std::optional<std::string>& owner) {
  std::lock_guard lock(mu_);
  MNEMO_RETURN_IF_ERROR(CatchUp());
  std::vector<Hit> hits;
  for (const auto& [id, item] : items_) {
    if (item.vector.size() != q.size() || (owner && item.owner != *owner)) continue;
    hits.push_back({.segment_id = id, .cosine = embed::Dot(item.vector, q)});
  }
  const auto better = [](const Hit& a, const Hit& b) {
    if (a.cosine != b.cosine) return a.cosine > b.cosine;
    return a.segment_id < b.segment_id;
  };
  if (hits.size() > k) {
    std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(),
                      better);
    hits.resize(k);
  } else {
    std::sort(hits.begin(), hits.end(), better);
  }
  return hits;
}

std::optional<double> RecapVectors::Cosine(std::span<const float> q,
                                           const std::string& segment_id) const {
  std::lock_guard lock(mu_);
  auto it = items_.find(segment_id);
  if (it == items_.end() || it->second.vector.size() != q.size()) return std::nullopt;
  return embed::Dot(it->second.vector, q);
}

void RecapVectors::Forget(std::span<const std::string> segment_ids,
                          const std::optional<std::string>& owner) {
  std::lock_guard lock(mu_);
  for (const std::string& id : segment_ids) items_.erase(id);
  if (owner) std::erase_if(items_, [&](const auto& item) { return item.second.owner == *owner; });
}

}  // namespace mnemo

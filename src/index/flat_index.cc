#include "index/flat_index.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_set>

#include "index/vector_math.h"

namespace mnemo::index {

Result<std::unique_ptr<FlatIndex>> FlatIndex::Make(size_t dims) {
  if (dims == 0) return InvalidArgument("an index needs at least 1 dimension");
  return std::unique_ptr<FlatIndex>(new FlatIndex(dims));
}

size_t FlatIndex::size() const {
  std::shared_lock lock(mu_);
  return ids_.size();
}

bool FlatIndex::Contains(uint64_t id) const {
  std::shared_lock lock(mu_);
  return slots_.contains(id);
}

void FlatIndex::UpsertLocked(uint64_t id, const float* v) {
  auto [it, inserted] = slots_.try_emplace(id, ids_.size());
  if (inserted) {
    ids_.push_back(id);
    vectors_.insert(vectors_.end(), v, v + dims_);
  } else {
    std::copy(v, v + dims_, vectors_.begin() + static_cast<ptrdiff_t>(it->second * dims_));
  }
}

Status FlatIndex::Upsert(uint64_t id, std::span<const float> v) {
  MNEMO_RETURN_IF_ERROR(CheckVector(v, dims_, "vector"));
  std::unique_lock lock(mu_);
  UpsertLocked(id, v.data());
  return Status::Ok();
}

Status FlatIndex::UpsertBatch(std::span<const uint64_t> ids, std::span<const float> vectors) {
  if (vectors.size() != ids.size() * dims_) {
    return InvalidArgument("a batch of " + std::to_string(ids.size()) + " ids needs " +
                           std::to_string(ids.size() * dims_) + " floats, got " +
                           std::to_string(vectors.size()));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(CheckVector(vectors.subspan(i * dims_, dims_), dims_, "vector"));
  }
  std::unique_lock lock(mu_);
  // Geometric growth: reserving exactly the new size made every single
  // insert reallocate and copy all stored vectors (O(n) per store).
  auto grow = [](auto& v, size_t need) {
    if (need > v.capacity()) v.reserve(std::max(need, v.capacity() * 2));
  };
  grow(ids_, ids_.size() + ids.size());
  grow(vectors_, vectors_.size() + vectors.size());
  for (size_t i = 0; i < ids.size(); ++i) UpsertLocked(ids[i], vectors.data() + i * dims_);
  return Status::Ok();
}

Status FlatIndex::Remove(uint64_t id) {
  std::unique_lock lock(mu_);
  auto it = slots_.find(id);
  if (it == slots_.end()) return Status::Ok();
  // Swap-remove: the last slot moves into the hole, storage stays dense.
  const size_t slot = it->second;
  const size_t last = ids_.size() - 1;
  if (slot != last) {
    ids_[slot] = ids_[last];
    std::copy(vectors_.begin() + static_cast<ptrdiff_t>(last * dims_), vectors_.end(),
              vectors_.begin() + static_cast<ptrdiff_t>(slot * dims_));
    slots_[ids_[slot]] = slot;
  }
  slots_.erase(it);
  ids_.pop_back();
  vectors_.resize(last * dims_);
  return Status::Ok();
}

Result<std::vector<Neighbor>> FlatIndex::Search(std::span<const float> q, size_t k,
                                                const SearchFilter& filter) const {
  MNEMO_RETURN_IF_ERROR(CheckVector(q, dims_, "query"));
  std::shared_lock lock(mu_);
  std::vector<Neighbor> scored;
  if (filter.subset) {
    std::unordered_set<uint64_t> seen;
    scored.reserve(std::min(filter.subset->size(), ids_.size()));
    for (uint64_t id : *filter.subset) {
      auto it = slots_.find(id);
      if (it == slots_.end() || !seen.insert(id).second) continue;
      scored.push_back({id, Dot(q.data(), vectors_.data() + it->second * dims_, dims_)});
    }
  } else {
    scored.resize(ids_.size());
    const float* v = vectors_.data();
    for (size_t slot = 0; slot < ids_.size(); ++slot, v += dims_) {
      scored[slot] = {ids_[slot], Dot(q.data(), v, dims_)};
    }
  }
  return TopKAccepted(scored, k, filter.accept);
}

void FlatIndex::ForEach(const std::function<void(uint64_t, std::span<const float>)>& fn) const {
  std::shared_lock lock(mu_);
  for (size_t slot = 0; slot < ids_.size(); ++slot) {
    fn(ids_[slot], std::span<const float>(vectors_.data() + slot * dims_, dims_));
  }
}

Status FlatIndex::WritePayload(PayloadWriter& out, uint64_t* live_count) const {
  std::shared_lock lock(mu_);
  *live_count = ids_.size();
  out.WritePod(static_cast<uint64_t>(ids_.size()));
  for (size_t slot = 0; slot < ids_.size(); ++slot) {
    out.WritePod(ids_[slot]);
    out.Write(vectors_.data() + slot * dims_, dims_ * sizeof(float));
  }
  return Status::Ok();
}

Result<std::unique_ptr<FlatIndex>> FlatIndex::ReadPayload(PayloadReader& in, size_t dims,
                                                          uint64_t expected_count) {
  uint64_t count = 0;
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&count));
  const uint64_t record = sizeof(uint64_t) + dims * sizeof(float);
  if (count != expected_count) {
    return Corrupt("the payload holds " + std::to_string(count) + " vectors, the header says " +
                   std::to_string(expected_count));
  }
  // Checked before allocating: a corrupt count must not ask for terabytes.
  if (count > in.remaining() / record) return Corrupt("truncated: fewer vectors than counted");
  auto index = std::unique_ptr<FlatIndex>(new FlatIndex(dims));
  index->ids_.resize(count);
  index->vectors_.resize(count * dims);
  index->slots_.reserve(count);
  for (uint64_t slot = 0; slot < count; ++slot) {
    float* v = index->vectors_.data() + slot * dims;
    MNEMO_RETURN_IF_ERROR(in.ReadPod(&index->ids_[slot]));
    MNEMO_RETURN_IF_ERROR(in.Read(v, dims * sizeof(float)));
    if (!AllFinite(v, dims)) return Corrupt("a stored vector has a non-finite component");
    if (!index->slots_.emplace(index->ids_[slot], slot).second) {
      return Corrupt("id " + std::to_string(index->ids_[slot]) + " is stored twice");
    }
  }
  if (in.remaining() != 0) return Corrupt("the payload is longer than its contents");
  return index;
}

}  // namespace mnemo::index

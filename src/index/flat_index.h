// FlatIndex: exact scan over contiguous vectors. The correctness oracle and
// the choice for small stores (index_factory.h).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "index/payload_io.h"
#include "index/rw_lock.h"
#include "index/vector_index.h"

namespace mnemo::index {

class FlatIndex final : public VectorIndex {
 public:
  // dims >= 1 (kInvalidArgument otherwise, from Make).
  static Result<std::unique_ptr<FlatIndex>> Make(size_t dims);

  IndexKind kind() const override { return IndexKind::kFlat; }
  size_t dimensions() const override { return dims_; }
  size_t size() const override;
  bool Contains(uint64_t id) const override;

  Status Upsert(uint64_t id, std::span<const float> v) override;
  Status UpsertBatch(std::span<const uint64_t> ids, std::span<const float> vectors) override;
  Status Remove(uint64_t id) override;

  Result<std::vector<Neighbor>> Search(std::span<const float> q, size_t k,
                                       const SearchFilter& filter = {}) const override;
  Result<std::vector<Neighbor>> SearchExact(std::span<const float> q, size_t k,
                                            const SearchFilter& filter = {}) const override {
    return Search(q, k, filter);
  }
  void ForEach(const std::function<void(uint64_t, std::span<const float>)>& fn) const override;

  // Payload of an index file (index_file.h): u64 count, then count x
  // (u64 id, dims x f32), little-endian, in slot order.
  // Sets *live_count to the number of vectors written (under the same lock).
  Status WritePayload(PayloadWriter& out, uint64_t* live_count) const;
  // Reads what WritePayload wrote; kCorruption ("… is corrupt: …") for a
  // count that disagrees with `expected_count`, a duplicate id, a
  // non-finite component or too few bytes.
  static Result<std::unique_ptr<FlatIndex>> ReadPayload(PayloadReader& in, size_t dims,
                                                        uint64_t expected_count);

 private:
  explicit FlatIndex(size_t dims) : dims_(dims) {}
  void UpsertLocked(uint64_t id, const float* v);

  const size_t dims_;
  mutable RwLock mu_;
  std::vector<uint64_t> ids_;                   // slot -> id
  std::vector<float> vectors_;                  // slot * dims_ -> vector
  std::unordered_map<uint64_t, size_t> slots_;  // id -> slot
};

}  // namespace mnemo::index

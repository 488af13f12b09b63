// VectorIndex: nearest-neighbour search over the vectors of one embedding
// space (spec 20, "Vector index"). Implementations: FlatIndex (exact scan,
// flat_index.h) and HnswIndex (hnswlib graph, hnsw_index.h); index_factory.h
// chooses between them and index_file.h saves and loads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::index {

enum class IndexKind { kFlat = 1, kHnsw = 2 };

// "flat" or "hnsw" (also the kind part of an index file's name).
inline std::string_view IndexKindName(IndexKind kind) {
  return kind == IndexKind::kFlat ? "flat" : "hnsw";
}

struct Neighbor {
  uint64_t id = 0;
  float score = 0;  // cosine similarity = dot product of unit vectors
  friend bool operator==(const Neighbor&, const Neighbor&) = default;
};

// The order of every result list: score descending, then id ascending, so
// equal inputs always give the same output.
inline bool NeighborBefore(const Neighbor& a, const Neighbor& b) {
  return a.score > b.score || (a.score == b.score && a.id < b.id);
}

// Restricts a search without making it come back short: the index keeps
// looking until k allowed ids are found or none are left.
struct SearchFilter {
  // Batch predicate: sets (*accepted)[i] to non-zero when ids[i] is allowed.
  // `accepted` arrives sized like `ids` and zero-filled. It is called on the
  // searching thread, possibly several times per search, never twice for the
  // same id within one search, while the index holds its read lock: it must
  // not write to the same index. Empty = every id is allowed.
  std::function<void(std::span<const uint64_t> ids, std::vector<char>* accepted)> accept;
  // The exact allowed ids, for a caller that knows the filter is selective;
  // the index then scores just these (ids it does not hold are ignored,
  // duplicates count once). Combined with `accept` when both are set.
  std::optional<std::vector<uint64_t>> subset;
};

// Ids are the storage's entry rowids; every vector has dimensions() float32
// components, is L2-normalised by the caller (not checked) and finite
// (checked). score = dot product = cosine (an HnswIndex with the int8
// encoding stores quantised vectors: its scores and ForEach's vectors are
// within quantisation error of the originals, hnsw_index.h).
//
// Thread-safety: const methods (Search, ForEach, size, ...) may run
// concurrently with each other; Upsert, UpsertBatch and Remove take an
// exclusive lock, so they wait for running searches and searches wait for
// them. Implementations hold an RwLock (rw_lock.h) for this: a waiting
// writer goes before new searches, so a busy index still takes writes.
class VectorIndex {
 public:
  virtual ~VectorIndex() = default;

  virtual IndexKind kind() const = 0;
  virtual size_t dimensions() const = 0;
  // Live vectors (removed ones do not count).
  virtual size_t size() const = 0;
  virtual bool Contains(uint64_t id) const = 0;

  // Adds `v` under `id`, replacing the vector `id` had. kInvalidArgument for
  // a wrong dimension or a non-finite component (the index is unchanged).
  virtual Status Upsert(uint64_t id, std::span<const float> v) = 0;
  // Upserts ids[i] -> vectors[i*dims, (i+1)*dims); a repeated id keeps its
  // last vector. All or nothing on invalid input. HnswIndex builds with
  // several threads here (bulk loads, rebuilds).
  virtual Status UpsertBatch(std::span<const uint64_t> ids, std::span<const float> vectors) = 0;
  // Removes `id`; removing an absent id is OK. A removed id is never
  // returned by a search again (unless upserted again).
  virtual Status Remove(uint64_t id) = 0;

  // The k live vectors most similar to `q` that pass `filter`, ordered by
  // NeighborBefore. Fewer than k only when fewer than k live ids pass the
  // filter. k = 0 gives an empty list. kInvalidArgument for a wrong
  // dimension or a non-finite query.
  virtual Result<std::vector<Neighbor>> Search(std::span<const float> q, size_t k,
                                               const SearchFilter& filter = {}) const = 0;
  // Like Search, always by an exact scan of the stored vectors (for HnswIndex:
  // without walking the graph, so it is also the safe path while a loaded
  // graph's checksum is still being verified; see index_file.h).
  virtual Result<std::vector<Neighbor>> SearchExact(std::span<const float> q, size_t k,
                                                    const SearchFilter& filter = {}) const = 0;

  // Calls `fn` for every live vector, in no particular order, under the read
  // lock (`fn` must not write to this index).
  virtual void ForEach(
      const std::function<void(uint64_t id, std::span<const float> v)>& fn) const = 0;
};

}  // namespace mnemo::index

// HnswIndex: approximate search on hnswlib 0.6.2's HierarchicalNSW graph
// (inner-product space: distance = 1 - dot), behind the VectorIndex
// interface. hnswlib's types stay in hnsw_index.cc: its header defines
// non-inline functions and may be included by one translation unit only.
//
// Filtered search (0.6.2 has no filter hook) is planned per query:
// - `subset` given and cheap to scan (an estimate: |subset| dot products
//   against ~2M distance computations per result the graph must produce to
//   find k members) -> exact scan of those ids;
// - otherwise the graph is asked for k' = max(4k, ef_search) results, the
//   new ones are offered to the batch `accept`, and k' grows 4x until k pass
//   or the graph returns fewer than asked (exhausted); ids the graph cannot
//   reach are then scanned exactly, so a search is never short.
// The graph's ef is set once (ef_search): hnswlib 0.6.2's setEf writes state
// that concurrent searches read, so a search is widened through searchKnn's
// k (hnswlib uses max(ef, k)), never by changing ef.
//
// Deletions: Remove marks the element deleted (hnswlib's markDelete); it
// stays in the graph as a waypoint and is never returned; upserting the id
// again revives its slot. deleted_count() tracks the tombstones; Compact()
// rebuilds the graph without them (index_factory.h's NeedsMaintenance says
// when: more than IndexOptions::compact_fraction of the slots).
//
// Vectors are not copied: hnswlib keeps each one beside its level-0 links
// and the exact paths read them there (no second copy of 150 MB at 100k).
#pragma once

#include <cstdint>
#include <memory>

#include "index/payload_io.h"
#include "index/rw_lock.h"
#include "index/vector_index.h"

namespace mnemo::index {

// How the graph stores each vector. kInt8 (scalar quantisation, one float
// scale and one byte per component: 388 bytes at 384 dimensions instead of
// 1536) makes Search's scores the dot product of the float query with the
// dequantised vector (within ~1e-3 of the exact cosine for unit vectors),
// ForEach hand out dequantised vectors, and the graph walk rank by the
// quantised query; callers that need exact scores rescore from their own
// float copy (VectorSpace does, from storage).
enum class VectorEncoding : uint32_t { kFloat32 = 0, kInt8 = 1 };

// Where a format 4 payload puts the level-0 block in the file: a multiple
// of every page size Linux uses (4, 16 or 64 KiB), so it can be mapped.
inline constexpr uint64_t kLevel0Alignment = 65536;

struct HnswParams {
  size_t m = 16;                 // links per node (2x on level 0); [2, 1024]
  size_t ef_construction = 100;  // build-time beam width; >= 1
  size_t ef_search = 64;         // query-time beam width, set once; >= 1
  size_t build_threads = 2;      // UpsertBatch threads (1 = serial, deterministic)
  uint64_t seed = 100;           // level generator seed
  VectorEncoding encoding = VectorEncoding::kFloat32;
};

class HnswIndex final : public VectorIndex {
 public:
  // kInvalidArgument for dims = 0 or params out of range. `capacity` is a
  // hint; the graph grows (doubling) when full.
  static Result<std::unique_ptr<HnswIndex>> Make(size_t dims, const HnswParams& params,
                                                 size_t capacity = 0);
  ~HnswIndex() override;

  IndexKind kind() const override { return IndexKind::kHnsw; }
  size_t dimensions() const override { return dims_; }
  size_t size() const override;
  bool Contains(uint64_t id) const override;

  Status Upsert(uint64_t id, std::span<const float> v) override;
  // New ids are inserted by params.build_threads threads (hnswlib's
  // addPoint is safe for distinct labels; its level generator is shared
  // unlocked, which only perturbs level draws, the same as hnswlib's own
  // Python binding). Ids already present are updated serially first.
  Status UpsertBatch(std::span<const uint64_t> ids, std::span<const float> vectors) override;
  Status Remove(uint64_t id) override;

  Result<std::vector<Neighbor>> Search(std::span<const float> q, size_t k,
                                       const SearchFilter& filter = {}) const override;
  Result<std::vector<Neighbor>> SearchExact(std::span<const float> q, size_t k,
                                            const SearchFilter& filter = {}) const override;
  void ForEach(const std::function<void(uint64_t, std::span<const float>)>& fn) const override;

  const HnswParams& params() const { return params_; }
  // Removed elements still held by the graph.
  size_t deleted_count() const;
  // Rebuilds the graph from the live vectors, dropping tombstones. Holds the
  // exclusive lock throughout (about as long as building the index anew):
  // run it from a maintenance thread.
  Status Compact();

  // Payload of an index file (format 4): a u32 VectorEncoding, hnswlib
  // 0.6.2's 13 saveIndex header fields, a u32 p and p zero bytes that put
  // the level-0 block at a multiple of kLevel0Alignment in the file, then
  // exactly the rest of what saveIndex writes (the level-0 block, then per
  // element a u32 size and its upper-level links).
  // Sets *live_count to the number of vectors written (under the same lock).
  Status WritePayload(PayloadWriter& out, uint64_t* live_count) const;
  // Reads that payload without hnswlib's loadIndex, which trusts its input
  // (it takes allocation sizes and graph links from the file unchecked) and
  // leaves num_deleted_ uninitialised in 0.6.2. Every layout field is
  // checked against what M (from the payload) and `dims` imply, every
  // link against the element count and levels, labels for duplicates and
  // vectors for finiteness, so no byte sequence can make a later search read
  // out of bounds. Corrupt(...) on any mismatch, or when the live count is
  // not `expected_count`. ef_search, build_threads and seed come from
  // `params`; M, ef_construction and the encoding from the payload.
  // `format_version` is the index file's: 2 had no encoding field
  // (float32), 3 no padding. The level-0 block of a format 4 payload is
  // mapped (copy-on-write) instead of copied: the file must then not be
  // truncated in place while the index lives (mnemo only ever replaces it
  // by rename, index_file.h).
  static Result<std::unique_ptr<HnswIndex>> ReadPayload(PayloadReader& in, size_t dims,
                                                        uint64_t expected_count,
                                                        const HnswParams& params,
                                                        uint32_t format_version);
  // Whether the level-0 block is still mapped from the file it was loaded from.
  bool maps_file() const;

  // The graph and its space (defined and used in hnsw_index.cc only).
  struct Graph;

 private:
  HnswIndex(size_t dims, const HnswParams& params, std::unique_ptr<Graph> graph);

  const size_t dims_;
  HnswParams params_;
  mutable RwLock mu_;
  std::unique_ptr<Graph> graph_;
};

}  // namespace mnemo::index

// Which index a vector space gets (spec 20, `[index]` in spec 15) and when
// a live index must be switched or compacted.
//
// kind = "auto": flat up to hnsw_threshold live vectors, hnsw above. A live
// index never changes kind by itself; its owner (the engine) calls
// NeedsMaintenance after a batch of writes and, on kSwitchKind, builds the
// other kind with RebuildAs (from the index's own vectors, or from storage)
// off the request path and swaps it in. To keep a store hovering around the
// threshold from flapping, an hnsw index goes back to flat only below half
// the threshold.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>

#include "index/hnsw_index.h"
#include "index/vector_index.h"

namespace mnemo::index {

enum class KindChoice { kAuto, kFlat, kHnsw };

struct IndexOptions {
  KindChoice kind = KindChoice::kAuto;
  size_t hnsw_threshold = 20000;
  // Quantised by default: an engine's index holds a quarter of the float
  // bytes (1M x 384 dims: ~0.5 GB instead of ~1.7 GB) and VectorSpace
  // rescores its results exactly from storage.
  HnswParams hnsw{.encoding = VectorEncoding::kInt8};
  // Compact an hnsw index when deleted slots exceed this share of all slots
  // (searches walk tombstones: past ~20 % they cost more and recall drops).
  double compact_fraction = 0.2;
  // Index files with a payload of at least this many bytes are opened
  // without their checksum and count checks, which VectorSpace's
  // maintenance thread runs right after (spec 20: at 1M entries the open
  // must stay fast); searches scan the loaded vectors exactly until they
  // pass. Smaller files are checked before they are used. Tests set 0.
  uint64_t verify_in_background_bytes = uint64_t{64} << 20;
};

// The kind an index of `live_count` vectors should be. `current` (the kind
// it is now) adds the hysteresis described above.
IndexKind ChooseKind(const IndexOptions& options, size_t live_count,
                     std::optional<IndexKind> current = std::nullopt);

// An empty index of `kind`; `capacity` is a size hint.
Result<std::unique_ptr<VectorIndex>> MakeIndex(IndexKind kind, size_t dims,
                                               const IndexOptions& options, size_t capacity = 0);

// A new index of `kind` holding every live vector of `source` (which stays
// usable: this holds only its read lock while copying).
Result<std::unique_ptr<VectorIndex>> RebuildAs(const VectorIndex& source, IndexKind kind,
                                               const IndexOptions& options);

enum class Maintenance {
  kNone,
  kSwitchKind,  // ChooseKind disagrees with index.kind(): RebuildAs the other kind
  kCompact,     // an hnsw index with too many tombstones: HnswIndex::Compact
};
Maintenance NeedsMaintenance(const VectorIndex& index, const IndexOptions& options);

}  // namespace mnemo::index

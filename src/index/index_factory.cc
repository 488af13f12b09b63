#include "index/index_factory.h"

#include <string>

#include "index/flat_index.h"

namespace mnemo::index {

IndexKind ChooseKind(const IndexOptions& options, size_t live_count,
                     std::optional<IndexKind> current) {
  switch (options.kind) {
    case KindChoice::kFlat: return IndexKind::kFlat;
    case KindChoice::kHnsw: return IndexKind::kHnsw;
    case KindChoice::kAuto: break;
  }
  if (current == IndexKind::kHnsw) {
    return live_count < options.hnsw_threshold / 2 ? IndexKind::kFlat : IndexKind::kHnsw;
  }
  return live_count > options.hnsw_threshold ? IndexKind::kHnsw : IndexKind::kFlat;
}

Result<std::unique_ptr<VectorIndex>> MakeIndex(IndexKind kind, size_t dims,
                                               const IndexOptions& options, size_t capacity) {
  if (kind == IndexKind::kFlat) {
    MNEMO_ASSIGN_OR_RETURN(auto flat, FlatIndex::Make(dims));
    return std::unique_ptr<VectorIndex>(std::move(flat));
  }
  MNEMO_ASSIGN_OR_RETURN(auto hnsw, HnswIndex::Make(dims, options.hnsw, capacity));
  return std::unique_ptr<VectorIndex>(std::move(hnsw));
}

Result<std::unique_ptr<VectorIndex>> RebuildAs(const VectorIndex& source, IndexKind kind,
                                               const IndexOptions& options) {
  const size_t dims = source.dimensions();
  std::vector<uint64_t> ids;
  std::vector<float> vectors;
  ids.reserve(source.size());
  vectors.reserve(source.size() * dims);
  source.ForEach([&](uint64_t id, std::span<const float> v) {
    ids.push_back(id);
    vectors.insert(vectors.end(), v.begin(), v.end());
  });
  MNEMO_ASSIGN_OR_RETURN(auto index, MakeIndex(kind, dims, options, ids.size()));
  MNEMO_RETURN_IF_ERROR(index->UpsertBatch(ids, vectors));
  return index;
}

Maintenance NeedsMaintenance(const VectorIndex& index, const IndexOptions& options) {
  if (ChooseKind(options, index.size(), index.kind()) != index.kind()) {
    return Maintenance::kSwitchKind;
  }
  if (const auto* hnsw = dynamic_cast<const HnswIndex*>(&index)) {
    const double deleted = static_cast<double>(hnsw->deleted_count());
    const double slots = deleted + static_cast<double>(hnsw->size());
    if (deleted > 0 && deleted > options.compact_fraction * slots) return Maintenance::kCompact;
  }
  return Maintenance::kNone;
}

}  // namespace mnemo::index

// How HnswIndex plans a filtered search (hnsw_index.h): whether a subset is
// scanned exactly, and the growing over-fetch that offers the graph's
// results to the filter until k pass. Apart from the graph itself, so that
// hnswlib's header stays in one translation unit (hnsw_index.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <unordered_set>
#include <vector>

#include "index/hnsw_index.h"
#include "index/vector_math.h"

namespace mnemo::index {

// Whether scanning `subset_size` ids beats walking the graph until k of them
// turn up: the graph must produce about want / selectivity results, each
// costing ~2M distance computations. An estimate, not a measurement.
bool SubsetIsCheap(size_t subset_size, size_t live, size_t k, const HnswParams& p);

struct WalkPlan {
  size_t k = 0;           // results wanted
  size_t first_want = 0;  // the first walk's width, growing 4x
  size_t live = 0;        // live elements in the graph
};

// The k best ids `accept` passes: walks of growing width (`walk`, the
// graph's best `want` in score order), every new id offered to `accept`
// once, until k passed or the graph has nothing more to give; then, when
// ids remain the walks did not reach or a walk would be wider than half the
// graph, `scan_rest` (the exact scores of every id not in the set it gets)
// for the rest.
Result<std::vector<Neighbor>> WalkUntilAccepted(
    const WalkPlan& plan, const AcceptFn& accept,
    const std::function<Result<std::vector<Neighbor>>(size_t want)>& walk,
    const std::function<std::vector<Neighbor>(const std::unordered_set<uint64_t>& checked)>&
        scan_rest);

}  // namespace mnemo::index

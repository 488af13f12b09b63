// The checks on input vectors and the filtered top k every index shares; the
// scoring kernels are base/dot_product.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "base/dot_product.h"
#include "index/vector_index.h"
#include "mnemo/status.h"

namespace mnemo::index {

using ::mnemo::Dot;
using ::mnemo::DotFloatInt8;
using ::mnemo::DotInt8;
using ::mnemo::QuantizeInt8;

// kInvalidArgument unless v has `dims` finite components. `what` names the
// vector in the message ("vector", "query").
Status CheckVector(std::span<const float> v, size_t dims, const char* what);

// True when all n floats are finite.
bool AllFinite(const float* v, size_t n);

using AcceptFn = std::function<void(std::span<const uint64_t>, std::vector<char>*)>;

// The first k candidates (by NeighborBefore) that `accept` allows; all
// candidates when `accept` is empty. Candidates are offered to `accept` in
// score order, in windows that start at max(4k, 64) and grow 4x, so a
// permissive filter sees few ids and a strict one still yields k results
// when k exist. `candidates` is reordered.
std::vector<Neighbor> TopKAccepted(std::vector<Neighbor>& candidates, size_t k,
                                   const AcceptFn& accept);

}  // namespace mnemo::index

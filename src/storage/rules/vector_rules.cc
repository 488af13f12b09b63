#include "storage/rules/vector_rules.h"

#include <algorithm>
#include <string>

namespace mnemo::storage::internal {

Status CheckVectorDimensions(std::string_view signature, std::span<const LabeledVector> vectors,
                             std::optional<size_t> stored_dim) {
  if (vectors.empty()) return Status::Ok();
  const size_t dim = stored_dim.value_or(vectors.front().vector.size());
  const char* why = stored_dim ? " (the dimension of its stored vectors)" : "";
  if (dim == 0) {
    return InvalidArgument("vectors of signature " + std::string(signature) +
                               " must not be empty: expected dimension > 0, got 0",
                           "vector");
  }
  for (const LabeledVector& v : vectors) {
    if (v.vector.size() != dim) {
      return InvalidArgument("vector of label " + std::to_string(v.label) + " for signature " +
                                 std::string(signature) + " has the wrong dimension: expected " +
                                 std::to_string(dim) + why + ", got " +
                                 std::to_string(v.vector.size()),
                             "vector");
    }
  }
  return Status::Ok();
}

Status TrimmedLogError(std::string_view signature, int64_t seq, int64_t marker_seq) {
  return NotFound("the vector change log of signature " + std::string(signature) +
                  " no longer reaches back to seq " + std::to_string(seq) + " (changes up to seq " +
                  std::to_string(marker_seq) +
                  " were trimmed): rebuild the index from the stored vectors");
}

VectorLogTrimPolicy::VectorLogTrimPolicy(int64_t limit)
    : limit_(std::max<int64_t>(1, limit)), interval_(std::max<int64_t>(1, limit_ / 8)) {}

bool VectorLogTrimPolicy::Logged(int64_t changes) {
  pending_ += changes;
  if (pending_ < interval_) return false;
  pending_ = 0;
  return true;
}

}  // namespace mnemo::storage::internal

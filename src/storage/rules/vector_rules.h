// Backend-independent rules of the vector part of the storage contract
// (entry_store.h, "Vectors"), shared so that the backends cannot drift apart: what
// a PutVectors call must satisfy, how long the change log is kept and when it
// is trimmed, and the error a reader of a trimmed log gets.
//
// The change log of a signature keeps its newest `limit` changes. Trimming
// deletes the older ones except the newest of them, which stays as a marker
// (kTrimMarker) saying "every change up to this seq is gone": a reader whose
// seq is older than the marker missed changes and must rebuild. Sequence
// numbers are shared by all signatures, so the marker is exact where "oldest
// kept seq − 1" would not be.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "storage/entry_store.h"

namespace mnemo::storage::internal {

// Changes kept per signature: a day of heavy writing for an index that lives
// in another process; older readers rebuild (a few seconds at 100k).
inline constexpr int64_t kDefaultVectorLogLimit = 200000;

// Values of a change-log row's `present`.
inline constexpr int kChangeRemoved = 0;
inline constexpr int kChangePresent = 1;
inline constexpr int kTrimMarker = -1;

// Vectors of one PutVectors call must all have the same, non-zero dimension,
// equal to `stored_dim` (the dimension of the signature's existing vectors)
// when there are any. kInvalidArgument naming what was expected and got.
Status CheckVectorDimensions(std::string_view signature, std::span<const LabeledVector> vectors,
                             std::optional<size_t> stored_dim);

// The items of `by_label` in the order of `labels`, each once; labels
// without an item are left out. Reads by label (VectorsFor, FetchByLabels)
// answer in the caller's order whatever order the store returned.
template <typename T>
std::vector<T> InLabelOrder(std::span<const Label> labels, std::unordered_map<Label, T>& by_label) {
  std::vector<T> out;
  out.reserve(std::min(labels.size(), by_label.size()));
  for (Label label : labels) {
    auto it = by_label.find(label);
    if (it == by_label.end()) continue;
    out.push_back(std::move(it->second));
    by_label.erase(it);  // a repeated label is returned once
  }
  return out;
}

// kNotFound for a reader at `seq` of a log trimmed through `marker_seq`.
Status TrimmedLogError(std::string_view signature, int64_t seq, int64_t marker_seq);

// When to trim: after every `limit / 8` (at least 1) changes logged by this
// backend, so the log holds at most about 9/8 × limit rows per signature and
// trimming (a walk of `limit` index entries) stays rare. Not thread-safe: the
// backend calls it under its writer lock.
class VectorLogTrimPolicy {
 public:
  explicit VectorLogTrimPolicy(int64_t limit);

  int64_t limit() const { return limit_; }

  // Counts `changes` just logged; true when a trim is due (the count restarts).
  bool Logged(int64_t changes);

 private:
  int64_t limit_;
  int64_t interval_;
  int64_t pending_ = 0;
};

}  // namespace mnemo::storage::internal

// The recap vectors of one embedder signature (spec 40, "When a segment
// closes", point 3), held in memory for recall. Storage is the truth: the
// cache only ever catches up with EpisodicStore::SegmentVectorsSince, so recaps
// embedded by other processes, and replaced ones, arrive the same way.
// Recaps are few (one per segment), so the nearest ones are found by an
// exact scan.
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "storage/episodic_store.h"

namespace mnemo {

class RecapVectors {
 public:
  RecapVectors(storage::EpisodicStore& episodic, std::string signature)
      : episodic_(episodic), signature_(std::move(signature)) {}

  struct Hit {
    std::string segment_id;
    double cosine = 0;
  };

  // The k recaps most similar to the unit vector `q` (cosine descending,
  // then segment id), after catching up with storage; only `owner`'s when
  // given. Vectors of another dimension are skipped.
  Result<std::vector<Hit>> Nearest(std::span<const float> q, size_t k,
                                   const std::optional<std::string>& owner);
  // The cosine of `q` with the stored recap vector of `segment_id`, if any
  // (as of the last catch-up).
  std::optional<double> Cosine(std::span<const float> q, const std::string& segment_id) const;
  // Drops the cached vectors of erased segments (memory.session_forget):
  // `segment_ids`, or every one of `owner` when given. Another process's
  // cache keeps them until it restarts, but their segments are gone from
  // storage, so recall never returns them.
  void Forget(std::span<const std::string> segment_ids, const std::optional<std::string>& owner);

 private:
  struct Item {
    std::string owner;
    std::vector<float> vector;
  };
  Status CatchUp();

  storage::EpisodicStore& episodic_;
  const std::string signature_;
  mutable std::mutex mu_;
  int64_t version_ = 0;
  std::map<std::string, Item> items_;  // by segment id
};

}  // namespace mnemo

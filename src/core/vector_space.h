// One embedding space (spec 20): the vectors of one signature ("hash-v1-384",
// "external:768", ...) in storage, and the in-process VectorIndex over them.
//
// Storage is the truth: the index is only ever changed by replaying the
// storage's vector change log (Sync), so our own writes, other processes'
// writes, deletions and text changes all reach it the same way, and a saved
// index file is just a snapshot at a watermark.
//
// Thread-safe: Search runs concurrently; Sync and Put serialise on a mutex.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "index/index_factory.h"
#include "index/vector_index.h"
#include "storage/backend.h"

namespace mnemo {

class VectorSpace {
 public:
  // Loads `<dir>/<signature>.*.idx` when it is intact and matches, then
  // catches up with storage; otherwise (missing, stale beyond the change
  // log, corrupt) rebuilds from storage and logs why. `dir` empty: no file.
  static Result<std::unique_ptr<VectorSpace>> Open(storage::Backend& backend, std::string signature,
                                                   size_t dims, index::IndexOptions options,
                                                   std::filesystem::path dir);

  const std::string& signature() const { return signature_; }
  size_t dims() const { return dims_; }
  size_t size() const;

  // Stores vectors in storage, then (with `sync`) brings the index up to
  // date. Bulk writers pass false for each batch and Sync once at the end.
  Status Put(std::span<const storage::LabeledVector> vectors, bool sync = true);

  // Applies storage changes newer than the index (cheap when none).
  Status Sync();

  // The k nearest labels passing `filter` (after a Sync).
  Result<std::vector<index::Neighbor>> Search(std::span<const float> q, size_t k,
                                              const index::SearchFilter& filter);

  // Writes the index file (atomically); a no-op without a folder.
  Status Save();

  // Rebuilds the index from storage and rewrites its file now (erasure): an
  // hnsw index only marks a removed vector deleted and still writes it to
  // its file, so an erased vector leaves memory and disk only this way.
  // Costs a full rebuild.
  Status Purge();

 private:
  VectorSpace(storage::Backend& backend, std::string signature, size_t dims,
              index::IndexOptions options, std::filesystem::path dir)
      : backend_(backend),
        signature_(std::move(signature)),
        dims_(dims),
        options_(options),
        dir_(std::move(dir)) {}

  Status Rebuild();
  Status SaveLocked();  // mu_ held; writes the file whatever changed
  Status ApplyChanges(std::span<const storage::VectorChange> changes);
  Status Maintain();

  storage::Backend& backend_;
  const std::string signature_;
  const size_t dims_;
  const index::IndexOptions options_;
  const std::filesystem::path dir_;

  std::shared_ptr<index::VectorIndex> Current() const;

  mutable std::mutex mu_;  // Sync, Put, Rebuild, Save; guards index_ swaps
  std::shared_ptr<index::VectorIndex> index_;
  std::atomic<int64_t> watermark_{0};  // storage change seq the index reflects
  bool dirty_ = false;                 // changed since load or save
  // Watermark of the index file on disk (-1: none usable). A few changes
  // past it are cheaper to replay from the change log at the next open
  // than to rewrite the whole file (1.6 GB at 1M vectors) on every close.
  int64_t file_watermark_ = -1;
};

}  // namespace mnemo

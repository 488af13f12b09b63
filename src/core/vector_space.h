// One embedding space (spec 20): the vectors of one signature ("hash-v2-384",
// "external:768", ...) in storage, and the in-process VectorIndex over them.
//
// Storage is the truth: the index is only ever changed by replaying the
// storage's vector change log (Sync), so our own writes, other processes'
// writes, deletions and text changes all reach it the same way, and a saved
// index file is just a snapshot at a watermark.
//
// Thread-safe: Search runs concurrently; Sync and Put serialise on a mutex;
// Save writes the file without holding it (searches go on, writes to the
// index wait for the payload to be written, index_file.h).
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
#include "mnemo/logger.h"
#include "storage/entry_store.h"

namespace mnemo {

class VectorSpace {
 public:
  // Loads `<dir>/<signature>.*.idx` when it is intact and describes this
  // store, then catches up with storage; otherwise rebuilds from storage,
  // logs why, and writes the file at once, so that a crash
  // later finds one (a failure to write it is a warning). Not trusted: a
  // file of another store (its store id is not entries.store_id(): copied
  // from another workspace), a file ahead of the store's change log (its
  // watermark is past VectorWatermark: an older database restored beside
  // it), one older than the log kept, a corrupt one, and one whose live
  // count after catching up is not the store's CountVectors (an older
  // database that has since moved past the file's watermark). `dir` empty:
  // no file. Refusals and failed saves are reported to `logger`.
  static Result<std::unique_ptr<VectorSpace>> Open(storage::EntryStore& entries,
                                                   std::string signature, size_t dims,
                                                   index::IndexOptions options,
                                                   std::filesystem::path dir,
                                                   std::shared_ptr<Logger> logger);

  const std::string& signature() const { return signature_; }
  size_t dims() const { return dims_; }
  size_t size() const;
  // The kind of index serving it now ("flat" or "hnsw").
  std::string_view kind() const;

  // Stores vectors in storage, then (with `sync`) brings the index up to
  // date. Bulk writers pass false for each batch and Sync once at the end.
  Status Put(std::span<const storage::LabeledVector> vectors, bool sync = true);

  // Applies storage changes newer than the index (cheap when none).
  Status Sync();

  // The k nearest labels passing `filter` (after a Sync), scored exactly
  // (a quantised hnsw index's results are rescored from storage).
  Result<std::vector<index::Neighbor>> Search(std::span<const float> q, size_t k,
                                              const index::SearchFilter& filter);

  // Writes the index file (atomically) when enough changed since the file
  // was written (SaveDue); a no-op without a folder.
  Status Save();

  // Rebuilds the index from storage and rewrites its file now (erasure): an
  // hnsw index only marks a removed vector deleted and still writes it to
  // its file, so an erased vector leaves memory and disk only this way.
  // Costs a full rebuild.
  Status Purge();

 private:
  VectorSpace(storage::EntryStore& entries, std::string signature, size_t dims,
              index::IndexOptions options, std::filesystem::path dir,
              std::shared_ptr<Logger> logger)
      : entries_(entries),
        signature_(std::move(signature)),
        dims_(dims),
        options_(options),
        dir_(std::move(dir)),
        logger_(std::move(logger)) {}
  void LogWarning(const std::string& message) const { logger_->Log(LogLevel::kWarn, message); }

  Status Rebuild();
  // `found` with the exact scores of the stored vectors, re-sorted.
  Result<std::vector<index::Neighbor>> Rescore(std::span<const float> q,
                                               std::vector<index::Neighbor> found);
  // Whether Save would write: changed since the file was written, and
  // either no usable file or max(kSaveAfterChanges, size / 8) changes
  // behind. mu_ held.
  bool SaveDueLocked() const;
  // Writes the file whatever changed. Takes save_mu_ then mu_ (briefly, to
  // take the index and its watermark, and to record the result). mu_ must
  // not be held.
  Status WriteFile();
  // Loads the first usable file and catches up with storage (see Open);
  // false when there is none (each refusal logged). mu_ held.
  Result<bool> LoadFile();
  Status ApplyChanges(std::span<const storage::VectorChange> changes);
  Status Maintain();

  storage::EntryStore& entries_;
  const std::string signature_;
  const size_t dims_;
  const index::IndexOptions options_;
  const std::filesystem::path dir_;
  const std::shared_ptr<Logger> logger_;

  std::shared_ptr<index::VectorIndex> Current() const;
  void SetIndex(std::shared_ptr<index::VectorIndex> index);  // mu_ held

  std::mutex save_mu_;     // one file write at a time; taken before mu_
  mutable std::mutex mu_;  // Sync, Put, Rebuild; index_ changes only under it
  // Guards the index_ pointer alone, so a search takes the index while a
  // save or a catch-up holds mu_.
  mutable std::mutex index_mu_;
  std::shared_ptr<index::VectorIndex> index_;
  std::atomic<int64_t> watermark_{0};  // storage change seq the index reflects
  bool dirty_ = false;                 // changed since load or save (mu_)
  // Watermark of the index file on disk (-1: none usable). A few changes
  // past it are cheaper to replay from the change log at the next open
  // than to rewrite the whole file (1.6 GB at 1M vectors) on every close.
  int64_t file_watermark_ = -1;  // mu_
};

}  // namespace mnemo

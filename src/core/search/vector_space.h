// One embedding space (spec 20): the vectors of one signature ("hash-v2-384",
// "external:768", ...) in storage, and the in-process VectorIndex over them.
//
// Storage is the truth: the index is only ever changed by replaying the
// storage's vector change log (Sync), so our own writes, other processes'
// writes, deletions and text changes all reach it the same way, and a saved
// index file is just a snapshot at a watermark.
//
// Switching kind (flat <-> hnsw at IndexOptions::hnsw_threshold) and
// compacting tombstones rebuild the whole index: seconds at the threshold,
// minutes at 1M. Requests never wait for that. Sync notices the need and
// queues a job for a maintenance thread of the space's own; meanwhile the
// current index keeps serving searches and taking changes (flat is exact,
// so a flat index a little past the threshold answers right, only slower).
// The job builds the new index from storage, catches it up with the change
// log and swaps it in under the mutex; an index replaced meanwhile (Purge,
// a rebuild) makes it discard its result.
//
// Thread-safe: Search runs concurrently; Sync and Put serialise on a mutex;
// Save writes the file without holding it (searches go on, writes to the
// index wait for the payload to be written, index_file.h).
#pragma once

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "index/index_factory.h"
#include "index/index_file.h"
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
  //
  // A file of at least options.verify_in_background_bytes is used before its
  // checksum and count are checked (spec 20: opening 1M vectors must stay
  // fast): the maintenance thread checks them right after the open, and
  // until they pass, searches scan the loaded vectors exactly instead of
  // walking the graph, and the file is not rewritten. When they fail the
  // index is rebuilt from storage on that thread (logged) and swapped in;
  // the loaded vectors answer, exactly, until then. Tests only:
  // `before_verification` runs on that thread before the checks.
  static Result<std::unique_ptr<VectorSpace>> Open(storage::EntryStore& entries,
                                                   std::string signature, size_t dims,
                                                   index::IndexOptions options,
                                                   std::filesystem::path dir,
                                                   std::shared_ptr<Logger> logger,
                                                   std::function<void()> before_verification = {});
  // Stops the maintenance thread: a running rebuild is abandoned at its next
  // batch of vectors (a swap already under way completes), then joined. The
  // entry store must outlive the space.
  ~VectorSpace();
  VectorSpace(const VectorSpace&) = delete;
  VectorSpace& operator=(const VectorSpace&) = delete;

  const std::string& signature() const { return signature_; }
  size_t dims() const { return dims_; }
  size_t size() const;
  // The kind of index serving it now ("flat" or "hnsw").
  std::string_view kind() const;
  // False while a loaded file's deferred checks have not passed (see Open):
  // searches scan the loaded vectors exactly meanwhile.
  bool verified() const;

  // Stores vectors in storage, then (with `sync`) brings the index up to
  // date. Bulk writers pass false for each batch and Sync once at the end.
  Status Put(std::span<const storage::LabeledVector> vectors, bool sync = true);

  // Who catches the index up. kRequest: a store or a search, which never
  // waits for a kind switch. kBulk: a bulk writer catching up with what it
  // wrote itself (an import, a reindex, on its own thread or at its end):
  // a flat index it takes past the threshold is converted then and there,
  // so the rest of the fill goes into the graph and the fill ends with the
  // index it needs (left to the maintenance thread, a freshly imported
  // 100k store was searched through a flat index, beside the graph build,
  // for the first ten seconds: hybrid p50 1.5 -> 9 ms in mnemo bench).
  enum class SyncMode { kRequest, kBulk };

  // Applies storage changes newer than the index (cheap when none: one read
  // of the watermark), and queues a kind switch or a compaction when the index now needs one (it
  // never runs one itself). A backlog of at least hnsw_threshold changes (a
  // bulk import by another process) onto a flat index that it takes past the
  // threshold, or any such backlog with kBulk, goes straight into a new hnsw
  // index instead, in this call: growing a flat index by that much first
  // would hold every float vector twice while the graph is built. Callers
  // that find the index behind at once wait for one catch-up and share it:
  // one that finds the index at its watermark under the lock reads nothing.
  Status Sync(SyncMode mode = SyncMode::kRequest);
  // Sync with storage's watermark already read by the caller (`newest`,
  // read in a round trip it needed anyway): no read of its own when the
  // index is at it.
  Status SyncTo(int64_t newest, SyncMode mode = SyncMode::kRequest);
  // Sync in one read for a search that expects the index behind (another
  // process writes all the time): the changes after the index's watermark,
  // read with no lock held, so searches never queue behind one another's
  // round trip; true when there were any (the index was behind). Sync reads
  // the watermark, then the changes under the lock: two round trips where
  // this takes one. Changes another search applied meanwhile are skipped
  // (a later snapshot holds every change an earlier one does), so the index
  // ends as a Sync leaves it. A backlog of a page or more, or a log trimmed
  // past the index, goes to Sync.
  Result<bool> SyncFromLog();

  // Stored vectors by label, read by the caller meanwhile.
  using KnownVectors = std::unordered_map<storage::Label, std::vector<float>>;

  // The k nearest labels passing `filter` (after a Sync), scored exactly
  // (a quantised hnsw index's results are rescored from storage, or from
  // `known` for the labels it holds: what `filter` read along, say).
  Result<std::vector<index::Neighbor>> Search(std::span<const float> q, size_t k,
                                              const index::SearchFilter& filter,
                                              const KnownVectors* known = nullptr);

  // Search without the Sync: the index as it is now. For a caller that
  // reads the change log's watermark along with rows it needs anyway (one
  // round trip on a server instead of two): it takes watermark() before,
  // and when storage's watermark turns out to differ, Syncs and searches
  // again, so the answer is Search's.
  Result<std::vector<index::Neighbor>> SearchUnsynced(std::span<const float> q, size_t k,
                                                      const index::SearchFilter& filter,
                                                      const KnownVectors* known = nullptr);
  // The change log seq the index reflects: every change up to it is in it
  // (and perhaps later ones, replayed meanwhile).
  int64_t watermark() const { return watermark_.load(); }
  // Whether a search should walk the index as it is and check it after
  // (SearchUnsynced) rather than Sync first: when at most one of the last
  // 16 searches found the index behind (NoteSearch). Where other nodes write
  // all the time most searches find it behind, and each would walk it twice.
  bool ExpectsCurrent() const;
  // Records whether a search found the index behind storage's watermark.
  void NoteSearch(bool behind);

  // Whether Search rescores from stored vectors now (a quantised hnsw
  // index): a caller reading the candidates' rows can read their vectors
  // along and pass them as `known`.
  bool RescoresFromStorage() const;

  // Writes the index file (atomically) when enough changed since the file
  // was written (SaveDue); a no-op without a folder.
  Status Save();

  // Checks this space's index files on disk against their own checksums
  // (index::VerifyIndexFile), for memory.health: OK when they match or there
  // is none; else the first file's kCorruption or kUnavailable. The index in
  // memory is not touched (a damaged file is rebuilt from storage at the
  // next open, and replaced at the next Save).
  Status VerifyFiles() const;

  // Rebuilds the index from storage and rewrites its file now (erasure): an
  // hnsw index only marks a removed vector deleted and still writes it to
  // its file, so an erased vector leaves memory and disk only this way.
  // Costs a full rebuild.
  Status Purge();

  // For tests and admin tools (requests never wait for maintenance): waits
  // until no kind switch or compaction is queued or running, and returns how
  // the last one ended (OK when none ran). A failed job is logged and
  // retried later (after 1 s, doubling up to a minute); this returns its
  // error without waiting for the retry.
  Status WaitForMaintenance();
  // Tests only: `hook` runs on the maintenance thread after a job has built
  // the new index and before it catches it up and swaps it in, so a test can
  // hold the job there while it writes and searches. Set it before the first
  // job is queued.
  void SetMaintenanceHookForTest(std::function<void()> hook);

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

  // A new index holding every vector of the signature in storage, and the
  // change log's watermark read before the first vector was: every change
  // up to it is in the index, some later ones may be (replaying those is
  // idempotent). `kind` absent: the kind the stored count calls for.
  struct Built {
    std::shared_ptr<index::VectorIndex> index;
    int64_t watermark = 0;
  };
  Result<Built> BuildFromStorage(std::optional<index::IndexKind> kind);
  // BuildFromStorage into index_ (its old contents dropped). Caller holds mu_.
  Status Rebuild();
  // `found` with the exact scores of the stored vectors, re-sorted.
  Result<std::vector<index::Neighbor>> Rescore(std::span<const float> q,
                                               std::vector<index::Neighbor> found,
                                               const KnownVectors* known);
  // Whether Save would write: changed since the file was written, and
  // either no usable file or max(kSaveAfterChanges, size / 8) changes
  // behind. mu_ held.
  bool SaveDueLocked() const;
  // Writes the file whatever changed. Takes save_mu_ then mu_ (briefly, to
  // take the index and its watermark, and to record the result). mu_ must
  // not be held.
  Status WriteFile();
  // Loads the first usable file and catches up with storage (see Open);
  // false when there is none (each refusal logged). A large file's checks
  // are left in pending_. mu_ held.
  Result<bool> LoadFile();
  // The checks LoadFile left for later, on the maintenance thread: passed,
  // the index is verified; failed, it is distrusted (logged) and the
  // following RunMaintenance rebuilds it. A no-op when none are pending or
  // the index they were for was replaced meanwhile. mu_ must not be held.
  void RunVerification();
  // The file's checksum, then the live count against storage's CountVectors.
  Status CheckLoaded(const index::PendingVerification& pending);
  // Applies the change log after *watermark to `index` page by page and
  // moves *watermark to the last change applied (also when a later page
  // fails: what was applied is in the index). kNotFound when the log no
  // longer reaches back to *watermark (trimmed): the caller rebuilds.
  Status CatchUp(index::VectorIndex& index, int64_t* watermark);
  // CatchUp of index_; marks it dirty when anything changed. mu_ held.
  // With `read` (the log after some earlier watermark, up to its end,
  // read by SyncFromLog) it applies those of them past the index's
  // watermark instead of reading.
  Status CatchUpLocked(const std::vector<storage::VectorChange>* read = nullptr);
  // SyncTo, with the changes up to `newest` already read (SyncFromLog) or
  // not (null).
  Status SyncToWith(int64_t newest, SyncMode mode, const std::vector<storage::VectorChange>* read);

  // Queues a maintenance job unless one is queued or running; starts the
  // thread on first use. mu_ may be held (job_mu_ is taken after it).
  void ScheduleMaintenance();
  void MaintenanceLoop();
  // Switches the kind or compacts, if the index needs it (else a no-op):
  // builds from storage with no lock held, then catches up and swaps under
  // mu_. Open runs it directly (startup); otherwise only the maintenance
  // thread does. mu_ must not be held.
  Status RunMaintenance(const std::function<void()>& before_swap);

  storage::EntryStore& entries_;
  const std::string signature_;
  const size_t dims_;
  const index::IndexOptions options_;
  const std::filesystem::path dir_;
  const std::shared_ptr<Logger> logger_;

  std::shared_ptr<index::VectorIndex> Current(bool* verified = nullptr) const;
  // mu_ held. An index built from storage is verified; LoadFile's may not be.
  void SetIndex(std::shared_ptr<index::VectorIndex> index, bool verified = true);

  std::mutex save_mu_;     // one file write at a time; taken before mu_
  mutable std::mutex mu_;  // Sync, Put, Rebuild; index_ changes only under it
  // Guards the index_ pointer alone, so a search takes the index while a
  // save or a catch-up holds mu_.
  mutable std::mutex index_mu_;
  std::shared_ptr<index::VectorIndex> index_;
  bool index_verified_ = true;  // index_mu_; see verified()
  // index_ failed its deferred checks: the next RunMaintenance rebuilds it
  // from storage whatever NeedsMaintenance says (mu_; SetIndex clears it).
  bool index_distrusted_ = false;
  std::atomic<int64_t> watermark_{0};  // storage change seq the index reflects
  // One bit a search, newest lowest: 1 when it found the index behind.
  std::atomic<uint32_t> behind_history_{0};
  bool dirty_ = false;  // changed since load or save (mu_)
  // Watermark of the index file on disk (-1: none usable). A few changes
  // past it are cheaper to replay from the change log at the next open
  // than to rewrite the whole file (1.6 GB at 1M vectors) on every close.
  int64_t file_watermark_ = -1;  // mu_

  // The maintenance thread and its queue of at most one job. Lock order:
  // mu_, then job_mu_ (Sync queues with mu_ held); the thread never holds
  // job_mu_ while it takes mu_.
  std::mutex job_mu_;
  std::condition_variable job_cv_;
  bool job_queued_ = false;                 // job_mu_
  bool job_running_ = false;                // job_mu_
  Status job_status_;                       // how the last job ended (job_mu_)
  std::function<void()> maintenance_hook_;  // job_mu_
  // LoadFile's deferred checks and the index they are for (job_mu_).
  std::optional<index::PendingVerification> pending_;
  std::weak_ptr<index::VectorIndex> pending_for_;
  std::function<void()> verification_hook_;  // set by Open before the thread starts
  // Set (under job_mu_) by the destructor; read without it by a running
  // build, which stops at its next batch.
  std::atomic<bool> stopping_{false};
  std::thread worker_;  // started by the first ScheduleMaintenance
};

}  // namespace mnemo

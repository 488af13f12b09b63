// Writes the markdown archive files of episodic rows (spec 40) on a
// background thread, so memory.turn_complete does not wait for file creation
// and fsync (the archive is best effort: the database holds every row).
// Flush() waits for everything queued so far ("sync": true, tests, close).
// The queue is bounded (learning.archive_queue_rows): when turns arrive
// faster than files can be written, Enqueue waits for room (back-pressure)
// instead of growing without limit or dropping a file; the queue and the
// batch being written never hold more than the bound together. The writer
// takes what has queued up (at most kMaxBatch rows) as one batch
// (WriteArchiveFiles: one folder fsync per session folder, not per file);
// Flush() returns once the batch's folders are fsynced.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "archivist/archive/markdown_archive.h"
#include "mnemo/logger.h"

namespace mnemo::archivist {

class ArchiveWriter {
 public:
  // Rows waiting at most (the default of learning.archive_queue_rows).
  static constexpr size_t kDefaultMaxBacklog = 8192;
  // Rows written per batch at most: bounds how many new names a crash can
  // lose before their folder's fsync (the database still holds the rows).
  static constexpr size_t kMaxBatch = 64;

  // A row that cannot be written, or whose file already exists, is reported
  // to `logger`.
  explicit ArchiveWriter(std::string archive_root, size_t max_backlog = kDefaultMaxBacklog,
                         std::shared_ptr<Logger> logger = StderrLogger());
  // Writes what is queued, then stops.
  ~ArchiveWriter();
  ArchiveWriter(const ArchiveWriter&) = delete;
  ArchiveWriter& operator=(const ArchiveWriter&) = delete;

  // Queues the rows, each as soon as there is room (so rows of one call may
  // be written before the last one is queued).
  void Enqueue(std::vector<ArchiveRow> rows);
  // Returns once every row queued before the call is written (or failed).
  void Flush();
  // Rows that failed or already existed so far (each one logged).
  int64_t problems() const;
  // The longest the queue has been (tests of the bound).
  size_t peak_backlog() const;

  struct Counts {
    size_t bound = 0;
    size_t depth = 0;  // rows waiting now
    size_t peak = 0;   // peak_backlog()
    int64_t written = 0;
    int64_t problems = 0;
    int64_t folder_syncs = 0;  // folder fsyncs so far (one per folder per batch)
  };
  Counts counts() const;

 private:
  void Run();

  const std::string root_;
  const size_t max_backlog_;
  const std::shared_ptr<Logger> logger_;
  mutable std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<ArchiveRow> queue_;
  size_t in_flight_ = 0;  // rows of the batch being written
  int64_t queued_ = 0;    // rows ever queued
  int64_t written_ = 0;   // rows ever handled
  int64_t problems_ = 0;
  int64_t folder_syncs_ = 0;
  size_t peak_backlog_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mnemo::archivist

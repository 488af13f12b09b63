#include "archivist/archive/archive_writer.h"

#include <algorithm>
#include <utility>

#include "base/background_worker.h"

namespace mnemo::archivist {

ArchiveWriter::ArchiveWriter(std::string archive_root, size_t max_backlog,
                             std::shared_ptr<Logger> logger)
    : root_(std::move(archive_root)),
      max_backlog_(std::max<size_t>(max_backlog, 1)),
      logger_(std::move(logger)),
      thread_([this] {
        mnemo::internal::LowerThisThreadPriority();
        Run();
      }) {}

ArchiveWriter::~ArchiveWriter() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

void ArchiveWriter::Enqueue(std::vector<ArchiveRow> rows) {
  // As many rows as there is room for go in under one lock, so the writer
  // finds a turn's two rows together and writes them as one batch.
  size_t next = 0;
  while (next < rows.size()) {
    {
      std::unique_lock lock(mu_);
      auto room = [&] { return stop_ || queue_.size() + in_flight_ < max_backlog_; };
      done_cv_.wait(lock, room);
      do {
        queue_.push_back(std::move(rows[next++]));
        ++queued_;
      } while (next < rows.size() && room());
      peak_backlog_ = std::max(peak_backlog_, queue_.size());
    }
    work_cv_.notify_one();
  }
}

void ArchiveWriter::Flush() {
  std::unique_lock lock(mu_);
  const int64_t target = queued_;
  done_cv_.wait(lock, [&] { return written_ >= target; });
}

int64_t ArchiveWriter::problems() const {
  std::lock_guard lock(mu_);
  return problems_;
}

size_t ArchiveWriter::peak_backlog() const {
  std::lock_guard lock(mu_);
  return peak_backlog_;
}

ArchiveWriter::Counts ArchiveWriter::counts() const {
  std::lock_guard lock(mu_);
  return {.bound = max_backlog_,
          .depth = queue_.size(),
          .peak = peak_backlog_,
          .written = written_,
          .problems = problems_,
          .folder_syncs = folder_syncs_};
}

void ArchiveWriter::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    // What has queued up meanwhile goes as one batch: one folder fsync per
    // session folder instead of one per file.
    std::vector<ArchiveRow> batch;
    const size_t n = std::min(queue_.size(), kMaxBatch);
    batch.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
    in_flight_ = n;
    lock.unlock();
    const ArchiveBatch written = WriteArchiveFiles(root_, batch);
    int64_t problems = 0;
    for (size_t i = 0; i < n; ++i) {
      const Result<ArchiveOutcome>& outcome = written.outcomes[i];
      if (!outcome.ok()) {
        ++problems;
        logger_->Log(LogLevel::kWarn,
                     "cannot write the archive file of session " + batch[i].session_id + " seq " +
                         std::to_string(batch[i].seq) + ": " + outcome.status().message());
      } else if (*outcome == ArchiveOutcome::kAlreadyExisted) {
        ++problems;
        logger_->Log(LogLevel::kWarn,
                     "archive file " + ArchivePath(root_, batch[i]) + " already exists (kept)");
      }
    }
    lock.lock();
    in_flight_ = 0;
    written_ += static_cast<int64_t>(n);
    problems_ += problems;
    folder_syncs_ += written.folders_synced;
    done_cv_.notify_all();
  }
}

}  // namespace mnemo::archivist

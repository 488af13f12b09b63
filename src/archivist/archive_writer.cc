#include "archivist/archive_writer.h"

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
  for (ArchiveRow& r : rows) {
    {
      std::unique_lock lock(mu_);
      done_cv_.wait(lock, [&] { return stop_ || queue_.size() < max_backlog_; });
      queue_.push_back(std::move(r));
      ++queued_;
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
          .problems = problems_};
}

void ArchiveWriter::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopping, and everything is written
    ArchiveRow row = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    Result<ArchiveOutcome> written = WriteArchiveFile(root_, row);
    bool problem = false;
    if (!written.ok()) {
      problem = true;
      logger_->Log(LogLevel::kWarn, "cannot write the archive file of session " + row.session_id +
                                        " seq " + std::to_string(row.seq) + ": " +
                                        written.status().message());
    } else if (*written == ArchiveOutcome::kAlreadyExisted) {
      problem = true;
      logger_->Log(LogLevel::kWarn,
                   "archive file " + ArchivePath(root_, row) + " already exists (kept)");
    }
    lock.lock();
    ++written_;
    if (problem) ++problems_;
    done_cv_.notify_all();
  }
}

}  // namespace mnemo::archivist

#include "base/background_worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <utility>

#include "base/request_trace.h"

namespace mnemo::internal {

void LowerThisThreadPriority() {
  // Linux applies nice per thread: PRIO_PROCESS with the thread id.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

BackgroundWorker::BackgroundWorker(std::shared_ptr<Logger> logger)
    : BackgroundWorker(BackgroundWorkerOptions{.logger = std::move(logger)}) {}

BackgroundWorker::BackgroundWorker(BackgroundWorkerOptions options) : options_(std::move(options)) {
  const size_t n = std::max<size_t>(options_.threads, 1);
  idle_ = n;
  for (size_t i = 0; i < n; ++i) {
    threads_.emplace_back([this] {
      if (options_.low_priority) LowerThisThreadPriority();
      Run();
    });
  }
}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void BackgroundWorker::Enqueue(std::string what, std::function<void()> job) {
  queue_.push_back(Job{next_seq_++, std::move(what), std::move(job)});
  queued_.store(static_cast<int64_t>(queue_.size()));
}

void BackgroundWorker::Post(std::string what, std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    Enqueue(std::move(what), std::move(job));
  }
  work_cv_.notify_one();
}

bool BackgroundWorker::TrySubmit(std::string what, std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    // Waiting jobs go to the idle threads first; beyond them max_queued wait.
    if (stop_ || (queue_.size() >= idle_ && queue_.size() - idle_ >= options_.max_queued)) {
      return false;
    }
    Enqueue(std::move(what), std::move(job));
  }
  work_cv_.notify_one();
  return true;
}

void BackgroundWorker::Flush() {
  std::unique_lock lock(mu_);
  const int64_t target = next_seq_;
  // Jobs start in order: every job before `target` has run when none of
  // them waits and none of them runs.
  done_cv_.wait(lock, [&] {
    return (queue_.empty() || queue_.front().seq >= target) &&
           (running_.empty() || *running_.begin() >= target);
  });
}

void BackgroundWorker::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped and drained
    Job job = std::move(queue_.front());
    queue_.pop_front();
    const size_t queued = queue_.size();
    queued_.store(static_cast<int64_t>(queued));
    const auto running = running_.insert(job.seq);
    --idle_;
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    job.run();
    if (options_.logger != nullptr) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      options_.logger->Log(LogLevel::kDebug, "background " + job.what + ": " + FormatMs(ms) + ", " +
                                                 std::to_string(queued) + " queued");
    }
    job.run = nullptr;  // what the job holds goes before Flush returns
    lock.lock();
    ++idle_;
    running_.erase(running);
    done_cv_.notify_all();
  }
}

}  // namespace mnemo::internal

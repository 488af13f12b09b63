#include "base/background_worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <utility>

#include "base/request_trace.h"

namespace mnemo::internal {

void LowerThisThreadPriority() {
  // Linux applies nice per thread: PRIO_PROCESS with the thread id.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

BackgroundWorker::BackgroundWorker(std::shared_ptr<Logger> logger)
    : logger_(std::move(logger)), thread_([this] {
        LowerThisThreadPriority();
        Run();
      }) {}

BackgroundWorker::~BackgroundWorker() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  thread_.join();
}

void BackgroundWorker::Post(std::string what, std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    queue_.emplace_back(std::move(job), std::move(what));
    ++posted_;
  }
  work_cv_.notify_one();
}

void BackgroundWorker::Flush() {
  std::unique_lock lock(mu_);
  const int64_t target = posted_;
  done_cv_.wait(lock, [&] { return done_ >= target; });
}

void BackgroundWorker::Run() {
  std::unique_lock lock(mu_);
  while (true) {
    work_cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;
    auto [job, what] = std::move(queue_.front());
    queue_.pop_front();
    const size_t queued = queue_.size();
    lock.unlock();
    const auto start = std::chrono::steady_clock::now();
    job();
    if (logger_ != nullptr) {
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      logger_->Log(LogLevel::kDebug, "background " + what + ": " + FormatMs(ms) + ", " +
                                         std::to_string(queued) + " queued");
    }
    lock.lock();
    ++done_;
    done_cv_.notify_all();
  }
}

}  // namespace mnemo::internal

#include "base/background_worker.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

namespace mnemo::internal {

void LowerThisThreadPriority() {
  // Linux applies nice per thread: PRIO_PROCESS with the thread id.
  (void)setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
}

BackgroundWorker::BackgroundWorker()
    : thread_([this] {
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

void BackgroundWorker::Post(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    queue_.push_back(std::move(job));
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
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job();
    lock.lock();
    ++done_;
    done_cv_.notify_all();
  }
}

}  // namespace mnemo::internal

#include "transport/http/worker_pool.h"

#include <algorithm>

namespace mnemo::transport {

WorkerPool::WorkerPool(size_t workers, size_t max_queued) : max_queued_(max_queued) {
  const size_t n = std::max<size_t>(workers, 1);
  idle_ = n;
  for (size_t i = 0; i < n; ++i) threads_.emplace_back([this] { Loop(); });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

bool WorkerPool::TrySubmit(std::function<void()> job) {
  {
    std::lock_guard lock(mu_);
    // Waiting jobs go to the idle workers first; beyond them max_queued_ wait.
    if (stop_ || jobs_.size() >= idle_ + max_queued_) return false;
    jobs_.push_back(std::move(job));
    queued_.store(static_cast<int64_t>(jobs_.size()));
  }
  cv_.notify_one();
  return true;
}

void WorkerPool::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) return;  // stopped and drained
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    queued_.store(static_cast<int64_t>(jobs_.size()));
    --idle_;
    lock.unlock();
    job();
    lock.lock();
    ++idle_;
  }
}

}  // namespace mnemo::transport

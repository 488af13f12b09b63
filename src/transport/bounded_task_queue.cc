#include "transport/bounded_task_queue.h"

#include <algorithm>

namespace mnemo::transport {
namespace {
thread_local bool overflow_task = false;
}  // namespace

BoundedTaskQueue::BoundedTaskQueue(size_t workers, size_t max_queued, std::atomic<int64_t>* depth)
    : max_queued_(max_queued), depth_(depth) {
  for (size_t i = 0; i < std::max<size_t>(workers, 1); ++i) {
    threads_.emplace_back([this] { WorkerLoop(); });
  }
  threads_.emplace_back([this] { OverflowLoop(); });
}

BoundedTaskQueue::~BoundedTaskQueue() { shutdown(); }

bool BoundedTaskQueue::IsOverflowTask() { return overflow_task; }

void BoundedTaskQueue::enqueue(std::function<void()> fn) {
  std::unique_lock lock(mu_);
  if (jobs_.size() < max_queued_) {
    jobs_.push_back(std::move(fn));
    depth_->store(static_cast<int64_t>(jobs_.size()));
    lock.unlock();
    cv_.notify_all();
    return;
  }
  if (overflow_.size() < std::max<size_t>(max_queued_, 16)) {
    overflow_.push_back(std::move(fn));
    lock.unlock();
    cv_.notify_all();
    return;
  }
  lock.unlock();
  overflow_task = true;
  fn();
  overflow_task = false;
}

void BoundedTaskQueue::shutdown() {
  {
    std::lock_guard lock(mu_);
    if (shutdown_) return;
    shutdown_ = true;
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void BoundedTaskQueue::WorkerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return shutdown_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // shut down and drained
      fn = std::move(jobs_.front());
      jobs_.pop_front();
      depth_->store(static_cast<int64_t>(jobs_.size()));
    }
    fn();
  }
}

void BoundedTaskQueue::OverflowLoop() {
  overflow_task = true;
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return shutdown_ || !overflow_.empty(); });
      if (overflow_.empty()) return;
      fn = std::move(overflow_.front());
      overflow_.pop_front();
    }
    fn();
  }
}

}  // namespace mnemo::transport

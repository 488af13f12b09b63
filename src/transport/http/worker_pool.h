// The daemon's bounded worker pool (spec 60: "a bounded worker pool with a
// bounded queue, 503 when full"): jobs run on `workers` threads; a job that
// finds every worker busy and `max_queued` jobs waiting is refused, so the
// caller can answer 503 at once instead of queueing without bound.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mnemo::transport {

class WorkerPool {
 public:
  WorkerPool(size_t workers, size_t max_queued);
  // Runs every accepted job, then joins the threads.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Accepts `job` when a worker is idle or the queue has room; false (and
  // `job` dropped unrun) otherwise. Thread-safe.
  bool TrySubmit(std::function<void()> job);
  // Jobs accepted but not started yet.
  int64_t Queued() const { return queued_.load(); }

 private:
  void Loop();

  const size_t max_queued_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  size_t idle_ = 0;
  bool stop_ = false;
  std::atomic<int64_t> queued_{0};
  std::vector<std::thread> threads_;  // last: started after the members they use
};

}  // namespace mnemo::transport

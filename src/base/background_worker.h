// The one job queue: posted jobs run in order on background threads.
//
// - The engine's background work (archive files, segment work, checkpoints):
//   one thread at a lowered priority, every job accepted (Post), Flush()
//   waits for every job posted before the call. With a logger, each job
//   gives one debug line: its name, its time and what is still queued.
// - The daemon's request workers (spec 60: "a bounded worker pool with a
//   bounded queue, 503 when full"): `threads` threads; TrySubmit refuses a job
//   that finds every thread busy and `max_queued` jobs waiting, so the caller
//   can answer 503 at once instead of queueing without bound.
//
// The destructor runs every accepted job, then joins the threads.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mnemo/logger.h"

namespace mnemo::internal {

// Lowers the calling thread's scheduling priority (nice 10): background
// threads (archive files, segment work, checkpoints) give the CPU to the
// threads answering requests, so their latency does not depend on how much
// background work is queued. Best effort: a failure changes nothing.
void LowerThisThreadPriority();

struct BackgroundWorkerOptions {
  size_t threads = 1;  // at least 1
  // Jobs TrySubmit lets wait beyond the idle threads (Post takes any number).
  size_t max_queued = std::numeric_limits<size_t>::max();
  // The threads run at a lowered priority (LowerThisThreadPriority).
  bool low_priority = true;
  // One debug line per job when set.
  std::shared_ptr<Logger> logger;
};

class BackgroundWorker {
 public:
  // One low-priority thread, every job accepted.
  explicit BackgroundWorker(std::shared_ptr<Logger> logger = nullptr);
  explicit BackgroundWorker(BackgroundWorkerOptions options);
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // `what` names the job in the debug line (no memory content).
  void Post(std::string what, std::function<void()> job);
  // Accepts `job` when a thread is idle or the queue has room; false (and
  // `job` dropped unrun) otherwise, or once the worker is stopping.
  bool TrySubmit(std::string what, std::function<void()> job);
  // Waits until every job posted before the call has run.
  void Flush();
  // Jobs accepted but not started yet. Thread-safe, lock-free.
  int64_t Queued() const { return queued_.load(); }

 private:
  struct Job {
    int64_t seq;
    std::string what;
    std::function<void()> run;
  };
  void Enqueue(std::string what, std::function<void()> job);  // with mu_ held
  void Run();

  const BackgroundWorkerOptions options_;
  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<Job> queue_;
  std::multiset<int64_t> running_;  // the seq of each job running now
  int64_t next_seq_ = 0;
  size_t idle_ = 0;
  bool stop_ = false;
  std::atomic<int64_t> queued_{0};
  std::vector<std::thread> threads_;  // last: started after the members they use
};

}  // namespace mnemo::internal

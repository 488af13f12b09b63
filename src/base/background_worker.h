// One background thread running posted jobs in order. Flush() waits for every
// job posted before the call; the destructor runs what is queued, then stops.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace mnemo::internal {

// Lowers the calling thread's scheduling priority (nice 10): background
// threads (archive files, segment work, checkpoints) give the CPU to the
// threads answering requests, so their latency does not depend on how much
// background work is queued. Best effort: a failure changes nothing.
void LowerThisThreadPriority();

class BackgroundWorker {
 public:
  BackgroundWorker();
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  void Post(std::function<void()> job);
  void Flush();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::deque<std::function<void()>> queue_;
  int64_t posted_ = 0;
  int64_t done_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mnemo::internal

// One background thread running posted jobs in order. Flush() waits for every
// job posted before the call; the destructor runs what is queued, then stops.
// With a logger, each job gives one debug line: its name, its time and what
// is still queued.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "mnemo/logger.h"

namespace mnemo::internal {

// Lowers the calling thread's scheduling priority (nice 10): background
// threads (archive files, segment work, checkpoints) give the CPU to the
// threads answering requests, so their latency does not depend on how much
// background work is queued. Best effort: a failure changes nothing.
void LowerThisThreadPriority();

class BackgroundWorker {
 public:
  explicit BackgroundWorker(std::shared_ptr<Logger> logger = nullptr);
  ~BackgroundWorker();
  BackgroundWorker(const BackgroundWorker&) = delete;
  BackgroundWorker& operator=(const BackgroundWorker&) = delete;

  // `what` names the job in the debug line (no memory content).
  void Post(std::string what, std::function<void()> job);
  void Flush();

 private:
  void Run();

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable done_cv_;
  std::shared_ptr<Logger> logger_;
  std::deque<std::pair<std::function<void()>, std::string>> queue_;
  int64_t posted_ = 0;
  int64_t done_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace mnemo::internal

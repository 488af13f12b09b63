// A bounded worker pool for httplib (spec 60: "a bounded worker pool with a
// bounded queue, 503 when full"). httplib 0.11's ThreadPool queues without
// bound and its TaskQueue::enqueue cannot refuse, so a connection that finds
// the queue full is handed to one overflow thread instead, which serves it
// with IsOverflowTask() true: the server's pre-routing handler answers 503
// without reading the body. When even the overflow backlog is full the
// accept thread serves the 503 itself (back-pressure on accept).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace mnemo::transport {

class BoundedTaskQueue : public httplib::TaskQueue {
 public:
  // `depth` (owned by the caller, outliving this queue) tracks queued tasks.
  BoundedTaskQueue(size_t workers, size_t max_queued, std::atomic<int64_t>* depth);
  ~BoundedTaskQueue() override;

  void enqueue(std::function<void()> fn) override;
  // Runs every queued task, then joins the threads.
  void shutdown() override;

  // True on the thread that serves overflow connections.
  static bool IsOverflowTask();

 private:
  void WorkerLoop();
  void OverflowLoop();

  const size_t max_queued_;
  std::atomic<int64_t>* depth_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::deque<std::function<void()>> overflow_;
  bool shutdown_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mnemo::transport

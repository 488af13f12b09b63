// A shared mutex that lets a waiting writer in before new readers.
//
// Why not std::shared_mutex: glibc's rwlock prefers readers, so a steady
// stream of overlapping searches starves Upsert/Remove forever (seen in
// tests with three searching threads). Writes here are short (one vector),
// so making readers queue behind a waiting writer costs them little.
#pragma once

#include <condition_variable>
#include <mutex>

namespace mnemo::index {

// Meets the SharedMutex requirements used by std::shared_lock and
// std::unique_lock (no try_ variants).
class RwLock {
 public:
  void lock_shared() {
    std::unique_lock l(mu_);
    readers_cv_.wait(l, [&] { return !writer_ && writers_waiting_ == 0; });
    ++readers_;
  }
  void unlock_shared() {
    std::lock_guard l(mu_);
    if (--readers_ == 0 && writers_waiting_ > 0) writer_cv_.notify_one();
  }
  void lock() {
    std::unique_lock l(mu_);
    ++writers_waiting_;
    writer_cv_.wait(l, [&] { return !writer_ && readers_ == 0; });
    --writers_waiting_;
    writer_ = true;
  }
  void unlock() {
    std::lock_guard l(mu_);
    writer_ = false;
    if (writers_waiting_ > 0) {
      writer_cv_.notify_one();
    } else {
      readers_cv_.notify_all();
    }
  }

 private:
  std::mutex mu_;
  std::condition_variable readers_cv_, writer_cv_;
  int readers_ = 0;
  int writers_waiting_ = 0;
  bool writer_ = false;
};

}  // namespace mnemo::index

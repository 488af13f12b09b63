// Small POSIX file helpers shared by the file writers (the markdown archive,
// MEMORY.md, the audit log, the markdown backend): an owning descriptor,
// strerror text and a write loop.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "mnemo/status.h"

namespace mnemo::internal {

// Closes on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { Reset(); }
  Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) {
      Reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  // close(2)'s result: on some file systems a failed write shows up only here.
  bool Close();

 private:
  void Reset();
  int fd_;
};

std::string ErrnoText(int err);

// Writes all of `data` (retrying on EINTR); kUnavailable naming `what`.
Status WriteAll(int fd, std::string_view data, const std::string& what);

}  // namespace mnemo::internal

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

// Appends everything left to read from `fd` to `out` (retrying on EINTR);
// kUnavailable naming `path`.
Status ReadAll(int fd, const std::string& path, std::string& out);

// fsync of a folder, so names created or removed in it are durable.
Status SyncFolder(const std::string& path);

// mkdir -p with `mode`. Each folder created is made durable by fsyncing its
// parent, so a file written inside is never lost with its folder.
Status MakeFolders(const std::string& path, unsigned mode);

}  // namespace mnemo::internal

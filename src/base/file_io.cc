#include "base/file_io.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace mnemo::internal {

bool Fd::Close() { return ::close(release()) == 0; }

void Fd::Reset() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::string ErrnoText(int err) { return std::strerror(err); }

Status WriteAll(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Unavailable("cannot write " + what + ": " + ErrnoText(err));
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return Status::Ok();
}

}  // namespace mnemo::internal

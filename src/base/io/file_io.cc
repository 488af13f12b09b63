#include "base/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

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

Status ReadAll(int fd, const std::string& path, std::string& out) {
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n == 0) return Status::Ok();
    if (n < 0) {
      const int err = errno;
      if (err == EINTR) continue;
      return Unavailable("cannot read '" + path + "': " + ErrnoText(err));
    }
    out.append(buffer, static_cast<size_t>(n));
  }
}

Status SyncFolder(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0 || ::fsync(fd.get()) != 0) {
    return Unavailable("cannot sync folder '" + path + "': " + ErrnoText(errno));
  }
  return Status::Ok();
}

Status MakeFolders(const std::string& path, unsigned mode) {
  namespace fs = std::filesystem;
  fs::path prefix;
  for (const fs::path& part : fs::path(path).lexically_normal()) {
    if (part.empty()) continue;  // the trailing "/" of "a/b/"
    prefix /= part;
    if (::mkdir(prefix.c_str(), static_cast<mode_t>(mode)) == 0) {
      const fs::path parent = prefix.has_relative_path() ? prefix.parent_path() : prefix;
      MNEMO_RETURN_IF_ERROR(SyncFolder(parent.empty() ? "." : parent.string()));
    } else if (errno != EEXIST) {
      return Unavailable("cannot create folder '" + prefix.string() + "': " + ErrnoText(errno));
    }
  }
  return Status::Ok();
}

}  // namespace mnemo::internal

#include "base/io/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string>
#include <utility>

#include "base/io/file_io.h"

namespace mnemo::internal {
namespace {

constexpr std::string_view kTempInfix = ".tmp.";

// Unlinks the temp name on scope exit unless Keep() says it was renamed.
// After a linkat the final name is a second hard link, so removing the temp
// name never loses the file.
class TempName {
 public:
  TempName(int dir_fd, std::string name) : dir_fd_(dir_fd), name_(std::move(name)) {}
  ~TempName() {
    if (!kept_) ::unlinkat(dir_fd_, name_.c_str(), 0);
  }
  TempName(const TempName&) = delete;
  TempName& operator=(const TempName&) = delete;
  const std::string& name() const { return name_; }
  void Keep() { kept_ = true; }

 private:
  int dir_fd_;
  std::string name_;
  bool kept_ = false;
};

std::string Join(const std::string& folder, const std::string& name) {
  if (folder.empty()) return name;
  return folder.back() == '/' ? folder + name : folder + "/" + name;
}

}  // namespace

Result<Placed> WriteFileAtomically(const AtomicTarget& target, const FillFn& fill) {
  static std::atomic<uint64_t> counter{0};
  const std::string path = Join(target.folder_path, target.file);
  const std::string prefix =
      "." + target.file + std::string(kTempInfix) + std::to_string(::getpid()) + ".";
  Fd fd(-1);
  std::string name;
  int err = 0;
  // A name can be taken only by a killed writer whose pid we now reuse.
  for (int attempt = 0; attempt < 8 && fd.get() < 0; ++attempt) {
    name = prefix + std::to_string(counter.fetch_add(1));
    fd = Fd(::openat(target.dir_fd, name.c_str(),
                     O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    err = errno;
    if (fd.get() < 0 && err != EEXIST) break;
  }
  if (fd.get() < 0) {
    return Unavailable("cannot create a temp file in '" + target.folder_path +
                       "': " + ErrnoText(err));
  }
  TempName temp(target.dir_fd, name);
  const std::string temp_path = Join(target.folder_path, name);
  MNEMO_RETURN_IF_ERROR(fill(fd.get(), temp_path));
  if (::fchmod(fd.get(), static_cast<mode_t>(target.mode)) != 0 || ::fsync(fd.get()) != 0 ||
      !fd.Close()) {
    return Unavailable("cannot write '" + temp_path + "': " + ErrnoText(errno));
  }
  if (target.placement == Placement::kReplace) {
    if (::renameat(target.dir_fd, name.c_str(), target.dir_fd, target.file.c_str()) != 0) {
      return Unavailable("cannot replace '" + path + "': " + ErrnoText(errno));
    }
    temp.Keep();
  } else if (::linkat(target.dir_fd, name.c_str(), target.dir_fd, target.file.c_str(), 0) != 0) {
    // linkat without AT_SYMLINK_FOLLOW never replaces the final name and
    // never follows a symlink found there: it fails with EEXIST.
    const int link_err = errno;
    if (link_err == EEXIST) return Placed::kNameTaken;
    return Unavailable("cannot create '" + path + "': " + ErrnoText(link_err));
  }
  // Unlinks the temp name (kCreateNew) before the folder's fsync makes the
  // new name, and the temp name's removal, durable.
  if (target.placement == Placement::kCreateNew) {
    ::unlinkat(target.dir_fd, name.c_str(), 0);
    temp.Keep();
  }
  if (target.sync_folder && ::fsync(target.dir_fd) != 0) {
    return Unavailable("cannot sync folder '" + target.folder_path + "': " + ErrnoText(errno));
  }
  return Placed::kWritten;
}

Result<Placed> WriteFileAtomically(const AtomicTarget& target, std::string_view text) {
  return WriteFileAtomically(target, [text](int fd, const std::string& temp_path) {
    return WriteAll(fd, text, "'" + temp_path + "'");
  });
}

Result<Placed> WriteFileAtomically(const std::string& path, unsigned mode, Placement placement,
                                   const FillFn& fill) {
  const size_t slash = path.rfind('/');
  AtomicTarget target;
  target.folder_path = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  target.file = slash == std::string::npos ? path : path.substr(slash + 1);
  target.mode = mode;
  target.placement = placement;
  Fd dir(::open(target.folder_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    return Unavailable("cannot open folder '" + target.folder_path + "': " + ErrnoText(errno));
  }
  target.dir_fd = dir.get();
  return WriteFileAtomically(target, fill);
}

Result<Placed> WriteFileAtomically(const std::string& path, unsigned mode, Placement placement,
                                   std::string_view text) {
  return WriteFileAtomically(path, mode, placement, [text](int fd, const std::string& temp_path) {
    return WriteAll(fd, text, "'" + temp_path + "'");
  });
}

bool IsTempNameOf(std::string_view name, std::string_view file) {
  return name.size() > 1 + file.size() + kTempInfix.size() && name.front() == '.' &&
         name.substr(1, file.size()) == file &&
         name.substr(1 + file.size(), kTempInfix.size()) == kTempInfix;
}

}  // namespace mnemo::internal

#include "storage/markdown/entry_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <system_error>
#include <utility>

#include "base/io/atomic_file.h"

namespace mnemo::storage::markdown {
namespace {

namespace fs = std::filesystem;
using internal::ErrnoText;
using internal::Fd;

constexpr mode_t kFolderMode = 0700;
constexpr mode_t kFileMode = 0600;
constexpr std::string_view kLockName = ".mnemo.lock";

bool IsCategory(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-')) return false;
  }
  return true;
}

bool IsDateName(std::string_view s) {  // YYYY-MM-DD.md
  if (s.size() != 13 || !s.ends_with(".md")) return false;
  for (size_t i = 0; i < 10; ++i) {
    const bool dash = i == 4 || i == 7;
    if (dash ? s[i] != '-' : (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

FileStamp StampOf(const struct stat& st) {
  return {.size = st.st_size,
          .mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec,
          .inode = st.st_ino};
}

}  // namespace

std::optional<FilePlace> PlaceOfFile(std::string_view relative) {
  FilePlace place;
  if (relative.starts_with("archive/")) {
    place.archived = true;
    relative.remove_prefix(8);
  }
  if (relative.starts_with("system/")) {
    place.system = true;
    relative.remove_prefix(7);
  }
  const size_t slash = relative.find('/');
  if (slash == std::string_view::npos) {
    if (!relative.ends_with(".md")) return std::nullopt;
    const std::string_view category = relative.substr(0, relative.size() - 3);
    if (!IsCategory(category) || category == "daily" || category == "conversation") {
      return std::nullopt;
    }
    place.category = std::string(category);
    return place;
  }
  const std::string_view folder = relative.substr(0, slash);
  if ((folder != "daily" && folder != "conversation") || !IsDateName(relative.substr(slash + 1))) {
    return std::nullopt;
  }
  place.category = std::string(folder);
  return place;
}

Result<std::map<std::string, FileStamp>> ScanEntryFiles(const std::string& root) {
  // Only the folders of the layout: every operation of the backend scans,
  // so other folders (a person's attachments, say) are never walked, and
  // one fstatat per file is the whole cost (no path building per entry).
  std::map<std::string, FileStamp> out;
  for (const char* prefix :
       {"", "daily/", "conversation/", "archive/", "archive/daily/", "archive/conversation/",
        "system/", "system/daily/", "system/conversation/", "archive/system/",
        "archive/system/daily/", "archive/system/conversation/"}) {
    const std::string folder = root + "/" + prefix;
    std::unique_ptr<DIR, int (*)(DIR*)> dir(::opendir(folder.c_str()), &::closedir);
    if (dir == nullptr) {
      if (errno == ENOENT || errno == ENOTDIR) continue;
      return Unavailable("cannot read folder '" + folder + "': " + ErrnoText(errno));
    }
    while (const dirent* d = ::readdir(dir.get())) {
      const std::string_view name = d->d_name;
      if (!name.ends_with(".md")) continue;
      std::string relative = prefix + std::string(name);
      if (!PlaceOfFile(relative)) continue;
      struct stat st {};
      if (::fstatat(::dirfd(dir.get()), d->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
          !S_ISREG(st.st_mode)) {
        continue;
      }
      out.emplace(std::move(relative), StampOf(st));
    }
  }
  return out;
}

Result<std::string> ReadEntryFile(const std::string& root, const std::string& relative) {
  const fs::path path = fs::path(root) / relative;
  Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ENOENT) return NotFound("'" + path.string() + "' is gone");
    return Unavailable("cannot read '" + path.string() + "': " + ErrnoText(err));
  }
  std::string text;
  MNEMO_RETURN_IF_ERROR(internal::ReadAll(fd.get(), path.string(), text));
  return text;
}

Result<std::optional<FileStamp>> ReplaceEntryFile(const std::string& root,
                                                  const std::string& relative,
                                                  std::string_view text) {
  const fs::path path = fs::path(root) / relative;
  const fs::path folder = path.parent_path();
  if (text.empty()) {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return Unavailable("cannot remove '" + path.string() + "': " + ErrnoText(errno));
    }
    MNEMO_RETURN_IF_ERROR(internal::SyncFolder(folder.string()));
    return std::optional<FileStamp>();
  }
  MNEMO_RETURN_IF_ERROR(internal::MakeFolders(folder.string(), kFolderMode));
  MNEMO_RETURN_IF_ERROR(
      internal::WriteFileAtomically(path.string(), kFileMode, internal::Placement::kReplace, text)
          .status());
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    return Unavailable("cannot stat '" + path.string() + "': " + ErrnoText(errno));
  }
  return std::optional<FileStamp>(StampOf(st));
}

Result<FolderLock> FolderLock::Acquire(const std::string& root) {
  MNEMO_RETURN_IF_ERROR(internal::MakeFolders(root, kFolderMode));
  const fs::path path = fs::path(root) / kLockName;
  Fd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, kFileMode));
  if (fd.get() < 0) {
    return Unavailable("cannot open lock file '" + path.string() + "': " + ErrnoText(errno));
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) {
      return Unavailable("cannot lock '" + path.string() + "': " + ErrnoText(errno));
    }
  }
  return FolderLock(std::move(fd));
}

}  // namespace mnemo::storage::markdown

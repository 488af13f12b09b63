#include "archivist/archive/memory_md.h"
#include "base/io/atomic_file.h"
#include "base/io/file_io.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

using internal::ErrnoText;
using internal::Fd;
using internal::ReadAll;

// Caller input echoed in a message is cut here, so a megabyte of "file"
// does not become a megabyte of error.
constexpr size_t kMaxEchoCodePoints = 128;
constexpr mode_t kNewFileMode = 0600;

bool IsControl(int32_t cp) { return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F); }

// Unicode White_Space outside the control range.
bool IsSpace(int32_t cp) {
  return cp == ' ' || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

// Caller input as it may appear in a message: control characters (terminal
// escapes, NUL) and ill-formed UTF-8 become '?', one per maximal subpart.
std::string Printable(std::string_view s) {
  std::string out;
  size_t pos = 0;
  for (size_t count = 0; pos < s.size(); ++count) {
    if (count == kMaxEchoCodePoints) {
      out += "...";
      break;
    }
    int32_t cp = 0;
    const auto n = static_cast<size_t>(text::DecodeUtf8(s, pos, &cp));
    if (cp < 0 || IsControl(cp)) {
      out += '?';
    } else {
      out.append(s.substr(pos, n));
    }
    pos += n;
  }
  return out;
}

Status FileNotAllowed(std::string_view file) {
  return InvalidArgument(
      "File '" + Printable(file) + "' is not allowed. Permitted files: MEMORY.md, SKILL.md",
      "file");
}

Status CheckTitle(std::string_view title) {
  bool ok = title.size() <= kMaxMemoryMdTitleBytes && text::IsValidUtf8(title);
  bool blank = true;
  for (size_t pos = 0; ok && pos < title.size();) {
    int32_t cp = 0;
    pos += static_cast<size_t>(text::DecodeUtf8(title, pos, &cp));
    ok = !IsControl(cp);
    blank = blank && IsSpace(cp);
  }
  if (ok && !blank) return Status::Ok();
  return InvalidArgument("section_title \"" + Printable(title) +
                             "\" is invalid: use one non-blank line of at most " +
                             std::to_string(kMaxMemoryMdTitleBytes) +
                             " bytes without control characters (the heading without \"## \")",
                         "section_title");
}

Status CheckContent(std::string_view content) {
  if (content.size() > kMaxMemoryMdContentBytes) {
    return InvalidArgument("content is " + std::to_string(content.size()) + " bytes: at most " +
                               std::to_string(kMaxMemoryMdContentBytes) + " (1 MiB) are allowed",
                           "content");
  }
  if (content.find('\0') != std::string_view::npos) {
    return InvalidArgument("content must not contain NUL bytes", "content");
  }
  if (!text::IsValidUtf8(content)) {
    return InvalidArgument("content must be valid UTF-8", "content");
  }
  return Status::Ok();
}

// The spec's append rule: a newline if the text lacks one, the lines, a
// newline. Lines already ending in "\n" get no second one (no blank line
// creeps in when a caller sends "fact\n"), and empty lines add nothing.
void AppendLines(std::string& text, std::string_view lines) {
  if (!text.empty() && text.back() != '\n') text += '\n';
  text.append(lines);
  if (!lines.empty() && lines.back() != '\n') text += '\n';
}

struct Span {
  size_t begin = 0;
  size_t end = 0;
};

// The body of the first section headed exactly `heading`: from the line
// after the heading to the next line starting with "## " or the end.
std::optional<Span> FindSectionBody(std::string_view text, std::string_view heading) {
  std::optional<size_t> body_begin;
  for (size_t pos = 0; pos < text.size();) {
    const size_t nl = text.find('\n', pos);
    const size_t next = nl == std::string_view::npos ? text.size() : nl + 1;
    std::string_view line = text.substr(pos, next - pos);
    if (line.ends_with('\n')) line.remove_suffix(1);
    if (!body_begin) {
      // A CRLF file's heading still matches: its "\r" belongs to the line end.
      if (line.ends_with('\r')) line.remove_suffix(1);
      if (line == heading) body_begin = next;
    } else if (line.starts_with("## ")) {
      return Span{*body_begin, pos};
    }
    pos = next;
  }
  if (body_begin) return Span{*body_begin, text.size()};
  return std::nullopt;
}

std::string ApplyUpdate(std::string text, const MemoryMdUpdate& update, bool* section_created) {
  *section_created = false;
  if (update.action == MemoryMdAction::kAppend) {
    AppendLines(text, update.content);
    return text;
  }
  const std::string heading = "## " + update.section_title;
  const std::optional<Span> body = FindSectionBody(text, heading);
  if (!body) {
    *section_created = true;
    AppendLines(text, heading);
    AppendLines(text, update.content);
    return text;
  }
  std::string out = text.substr(0, body->begin);
  AppendLines(out, update.content);  // also ends a heading that was the file's last line
  out.append(text, body->end);
  return out;
}

Result<std::string> CanonicalFolder(const std::string& workspace) {
  if (workspace.empty()) return Unavailable("the workspace folder is not set");
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::canonical(workspace, ec);
  if (ec) {
    return Unavailable("workspace folder '" + workspace + "' does not exist: " + ec.message());
  }
  if (!std::filesystem::is_directory(canonical, ec)) {
    return Unavailable("workspace folder '" + workspace + "' is not a folder");
  }
  return canonical.string();
}

// One mutex per canonical workspace, created on first use and kept for the
// life of the process (a process writes to a handful of workspaces). Leaked
// on purpose: a writer on another thread may still hold one while static
// destructors run at exit.
std::mutex& WorkspaceMutex(const std::string& folder) {
  static auto* registry_mutex = new std::mutex;
  static auto* mutexes = new std::unordered_map<std::string, std::unique_ptr<std::mutex>>;
  const std::lock_guard lock(*registry_mutex);
  std::unique_ptr<std::mutex>& mutex = (*mutexes)[folder];
  if (!mutex) mutex = std::make_unique<std::mutex>();
  return *mutex;
}

// Opens (creating it when missing) and exclusively flocks the lock file.
// O_NOFOLLOW: a planted symlink must not make us create or lock a file
// elsewhere.
Result<Fd> LockWorkspace(int dir_fd, const std::string& folder) {
  const std::string name(kMemoryMdLockFile);
  const std::string path = folder + "/" + name;
  Fd fd(::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, kNewFileMode));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP || err == EMLINK) {
      return Unavailable("lock file '" + path +
                         "' is a symbolic link; refusing to follow it (remove it and retry)");
    }
    return Unavailable("cannot open lock file '" + path + "': " + ErrnoText(err));
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Unavailable("lock file '" + path + "' is not a regular file (remove it and retry)");
  }
  while (::flock(fd.get(), LOCK_EX) != 0) {
    const int err = errno;
    if (err != EINTR) return Unavailable("cannot lock '" + path + "': " + ErrnoText(err));
  }
  return fd;
}

bool IsTempName(std::string_view name) {
  for (std::string_view file : {kMemoryMdFile, kSkillMdFile}) {
    if (internal::IsTempNameOf(name, file)) return true;
  }
  return false;
}

// Removes temp files left by killed writers. Safe because it runs under the
// lock and a writer's temp file exists only while that writer holds it.
// Best effort: a leftover file costs disk space, not correctness.
void RemoveStrayTemps(int dir_fd) {
  Fd dup(::fcntl(dir_fd, F_DUPFD_CLOEXEC, 0));
  if (dup.get() < 0) return;
  DIR* dir = ::fdopendir(dup.get());
  if (dir == nullptr) return;
  dup.release();  // owned by `dir` now
  const std::unique_ptr<DIR, int (*)(DIR*)> close_dir(dir, &::closedir);
  ::rewinddir(dir);
  std::vector<std::string> stray;
  while (const dirent* entry = ::readdir(dir)) {
    if (IsTempName(entry->d_name)) stray.emplace_back(entry->d_name);
  }
  for (const std::string& name : stray) ::unlinkat(dir_fd, name.c_str(), 0);
}

struct Existing {
  std::string text;
  mode_t mode = kNewFileMode;  // kept for the new file
};

// The current text of the target: empty when it does not exist. A symlink
// is refused before anything is opened (lstat), and O_NOFOLLOW covers one
// planted between the check and the open; O_NONBLOCK keeps a FIFO planted
// there from hanging the open.
Result<Existing> ReadTarget(int dir_fd, const std::string& file, const std::string& path) {
  Existing existing;
  struct stat st {};
  if (::fstatat(dir_fd, file.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    const int err = errno;
    if (err == ENOENT) return existing;
    return Unavailable("cannot read '" + path + "': " + ErrnoText(err));
  }
  if (S_ISLNK(st.st_mode)) return FileNotAllowed(file);
  if (!S_ISREG(st.st_mode)) return Unavailable("'" + path + "' is not a regular file");
  Fd fd(::openat(dir_fd, file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    const int err = errno;
    if (err == ELOOP || err == EMLINK) return FileNotAllowed(file);
    if (err == ENOENT) return existing;
    return Unavailable("cannot read '" + path + "': " + ErrnoText(err));
  }
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return Unavailable("'" + path + "' is not a regular file");
  }
  existing.mode = st.st_mode & 0777;
  existing.text.reserve(static_cast<size_t>(st.st_size));
  MNEMO_RETURN_IF_ERROR(ReadAll(fd.get(), path, existing.text));
  return existing;
}

}  // namespace

Result<MemoryMdAction> ParseMemoryMdAction(std::string_view name) {
  if (name == "append") return MemoryMdAction::kAppend;
  if (name == "replace_section") return MemoryMdAction::kReplaceSection;
  return InvalidArgument(
      "action \"" + Printable(name) + "\" is invalid: use append or replace_section", "action");
}

Result<MemoryMdResult> UpdateMemoryMd(const std::string& workspace, const MemoryMdUpdate& update) {
  if (update.file != kMemoryMdFile && update.file != kSkillMdFile) {
    return FileNotAllowed(update.file);
  }
  if (update.action == MemoryMdAction::kReplaceSection) {
    MNEMO_RETURN_IF_ERROR(CheckTitle(update.section_title));
  }
  MNEMO_RETURN_IF_ERROR(CheckContent(update.content));
  MNEMO_ASSIGN_OR_RETURN(const std::string folder, CanonicalFolder(workspace));

  const std::lock_guard in_process(WorkspaceMutex(folder));
  Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) {
    return Unavailable("cannot open workspace folder '" + folder + "': " + ErrnoText(errno));
  }
  MNEMO_ASSIGN_OR_RETURN(const Fd lock, LockWorkspace(dir.get(), folder));
  RemoveStrayTemps(dir.get());

  MemoryMdResult result;
  result.path = folder + "/" + update.file;
  MNEMO_ASSIGN_OR_RETURN(Existing existing, ReadTarget(dir.get(), update.file, result.path));
  const std::string text = ApplyUpdate(std::move(existing.text), update, &result.section_created);
  // The temp name (".MEMORY.md.tmp.<pid>.<n>") is never the target's, so a
  // reader of MEMORY.md sees only whole files; the mode is the old file's.
  internal::AtomicTarget target;
  target.dir_fd = dir.get();
  target.folder_path = folder;
  target.file = update.file;
  target.mode = existing.mode;
  MNEMO_RETURN_IF_ERROR(internal::WriteFileAtomically(target, text).status());
  result.bytes = static_cast<int64_t>(text.size());
  return result;
}

}  // namespace mnemo::archivist

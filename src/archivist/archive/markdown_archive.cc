#include "archivist/archive/markdown_archive.h"
#include "base/io/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/io/atomic_file.h"
#include "base/sha256.h"
#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

using internal::ErrnoText;
using internal::Fd;

constexpr mode_t kFolderMode = 0700;
constexpr mode_t kFileMode = 0600;
constexpr size_t kSeqDigits = 6;

bool IsSafeFolderByte(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

bool IsControl(int32_t cp) { return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F); }

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  for (size_t pos = 0; pos < s.size();) {
    int32_t cp = 0;
    const auto n = static_cast<size_t>(text::DecodeUtf8(s, pos, &cp));
    switch (cp) {
      case -1: out += text::kReplacementChar; break;
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (IsControl(cp)) {
          out += "\\u00";
          out += kHex[(cp >> 4) & 0xF];
          out += kHex[cp & 0xF];
        } else {
          out.append(s.substr(pos, n));
        }
    }
    pos += n;
  }
  out += '"';
}

void AppendStringField(std::string& out, std::string_view key, std::string_view value) {
  out.append(key);
  out += ": ";
  AppendJsonString(out, value);
  out += '\n';
}

void AppendNumberField(std::string& out, std::string_view key, int64_t value) {
  out.append(key);
  out += ": ";
  out += std::to_string(value);
  out += '\n';
}

std::string JoinPath(const std::string& folder, std::string_view name) {
  std::string path = folder;
  if (path.empty() || path.back() != '/') path += '/';
  path.append(name);
  return path;
}

std::string ArchiveFileName(int64_t seq) {
  std::string digits = std::to_string(seq);
  if (seq >= 0 && digits.size() < kSeqDigits) digits.insert(0, kSeqDigits - digits.size(), '0');
  return digits + ".md";
}

Result<Fd> OpenRoot(const std::string& root) {
  if (root.empty()) return Unavailable("the archive folder is not set");
  for (int attempt = 0;; ++attempt) {
    Fd fd(::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (fd.get() >= 0) return fd;
    const int err = errno;
    if (err == ENOTDIR) return Unavailable("archive folder '" + root + "' is not a folder");
    if (err != ENOENT || attempt > 0) {
      return Unavailable("cannot open archive folder '" + root + "': " + ErrnoText(err));
    }
    MNEMO_RETURN_IF_ERROR(internal::MakeFolders(root, kFolderMode));
  }
}

// A session or principal folder `folder` in `root_fd`, created when missing.
// O_NOFOLLOW: a symlink planted as either must not send the file elsewhere,
// even inside the root.
Result<Fd> OpenSessionFolder(int root_fd, const std::string& folder, const std::string& path) {
  for (int attempt = 0;; ++attempt) {
    Fd fd(::openat(root_fd, folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (fd.get() >= 0) return fd;
    const int err = errno;
    if (err == ELOOP || err == ENOTDIR) {
      struct stat st {};
      if (::fstatat(root_fd, folder.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          S_ISLNK(st.st_mode)) {
        return Unavailable("session folder '" + path +
                           "' is a symbolic link; refusing to follow it (remove it and retry)");
      }
      return Unavailable("session folder '" + path + "' is not a folder");
    }
    if (err != ENOENT || attempt > 0) {
      return Unavailable("cannot open session folder '" + path + "': " + ErrnoText(err));
    }
    if (::mkdirat(root_fd, folder.c_str(), kFolderMode) == 0) {
      if (::fsync(root_fd) != 0) {
        return Unavailable("cannot sync the folder holding '" + path + "': " + ErrnoText(errno));
      }
    } else if (errno != EEXIST) {  // EEXIST: another writer created it first
      return Unavailable("cannot create session folder '" + path + "': " + ErrnoText(errno));
    }
  }
}

Status BadLine(size_t line, std::string_view what) {
  return InvalidArgument("archive file line " + std::to_string(line) + ": " + std::string(what));
}

// The next "\n"-terminated line of `text` from `pos`, without its "\n";
// nullopt when no "\n" is left.
std::optional<std::string_view> NextLine(std::string_view text, size_t& pos) {
  const size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view line = text.substr(pos, end - pos);
  pos = end + 1;
  return line;
}

std::optional<std::string> JsonStringValue(std::string_view literal) {
  if (literal.size() < 2 || literal.front() != '"') return std::nullopt;
  nlohmann::json v = nlohmann::json::parse(literal, nullptr, /*allow_exceptions=*/false);
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}

std::optional<int64_t> IntegerValue(std::string_view s) {
  int64_t v = 0;
  const char* first = s.data();
  const char* last = s.data() + s.size();
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  const auto [ptr, ec] = std::from_chars(first, last, v);
  if (ec != std::errc() || ptr != last) return std::nullopt;
  return v;
}

}  // namespace

std::string SessionFolderName(std::string_view session_id) {
  const bool keep = !session_id.empty() && session_id.size() <= kMaxKeptSessionIdBytes &&
                    std::all_of(session_id.begin(), session_id.end(), IsSafeFolderByte);
  if (keep) return std::string(session_id);
  std::string name;
  for (const char c : session_id.substr(0, kMaxKeptSessionIdBytes)) {
    name += IsSafeFolderByte(c) ? c : '_';
  }
  name += '-';
  name += internal::Sha256Hex(session_id).substr(0, kSessionHashHexDigits);
  return name;
}

std::string RenderArchiveFile(const ArchiveRow& row) {
  std::string out = "---\n";
  AppendStringField(out, "session_id", row.session_id);
  AppendNumberField(out, "seq", row.seq);
  AppendNumberField(out, "timestamp_ms", row.timestamp_ms);
  AppendStringField(out, "role", row.role);
  AppendNumberField(out, "cost_microdollars", row.cost_microdollars);
  if (!row.lesson.empty()) AppendStringField(out, "lesson", row.lesson);
  if (!row.tool_calls_json.empty()) AppendStringField(out, "tool_calls_json", row.tool_calls_json);
  out += "---\n\n";
  if (text::IsValidUtf8(row.content)) {
    out += row.content;
  } else {
    out += text::SanitizeUtf8(row.content);
  }
  if (out.back() != '\n') out += '\n';  // "---\n\n" ends an empty content
  return out;
}

Result<ArchiveRow> ParseArchiveFile(std::string_view text) {
  if (!text::IsValidUtf8(text)) return InvalidArgument("archive file is not valid UTF-8");
  size_t pos = 0;
  size_t line_no = 1;
  if (NextLine(text, pos) != "---") return BadLine(line_no, "expected \"---\"");
  ArchiveRow row;
  enum Field { kSession, kSeq, kTime, kRole, kCost, kLesson, kToolCalls, kFieldCount };
  static constexpr std::string_view kNames[kFieldCount] = {
      "session_id",        "seq",    "timestamp_ms",   "role",
      "cost_microdollars", "lesson", "tool_calls_json"};
  bool seen[kFieldCount] = {};
  for (;;) {
    ++line_no;
    const std::optional<std::string_view> line = NextLine(text, pos);
    if (!line) return BadLine(line_no, "the front matter does not end with \"---\"");
    if (*line == "---") break;
    const size_t colon = line->find(": ");
    if (colon == std::string_view::npos) return BadLine(line_no, "expected \"name: value\"");
    const std::string_view name = line->substr(0, colon);
    const std::string_view value = line->substr(colon + 2);
    const auto* it = std::find(std::begin(kNames), std::end(kNames), name);
    if (it == std::end(kNames)) {
      return BadLine(line_no, "unknown field \"" + std::string(name) +
                                  "\" (allowed: session_id, seq, timestamp_ms, role, "
                                  "cost_microdollars, lesson, tool_calls_json)");
    }
    const auto field = static_cast<Field>(it - std::begin(kNames));
    if (seen[field]) return BadLine(line_no, "field \"" + std::string(name) + "\" repeated");
    seen[field] = true;
    if (field == kSeq || field == kTime || field == kCost) {
      const std::optional<int64_t> v = IntegerValue(value);
      if (!v) return BadLine(line_no, std::string(name) + " must be a decimal integer");
      (field == kSeq ? row.seq : field == kTime ? row.timestamp_ms : row.cost_microdollars) = *v;
      continue;
    }
    std::optional<std::string> v = JsonStringValue(value);
    if (!v) return BadLine(line_no, std::string(name) + " must be a JSON string literal");
    std::string& target = field == kSession  ? row.session_id
                          : field == kRole   ? row.role
                          : field == kLesson ? row.lesson
                                             : row.tool_calls_json;
    target = std::move(*v);
  }
  for (int f = kSession; f <= kCost; ++f) {
    if (!seen[f]) return BadLine(line_no, "field \"" + std::string(kNames[f]) + "\" is missing");
  }
  ++line_no;
  if (NextLine(text, pos) != "") return BadLine(line_no, "expected an empty line");
  // The writer adds a "\n" only after a content without one, so only such a
  // final "\n" is taken off ("x\n\n" and "\n" were written as they are).
  std::string_view content = text.substr(pos);
  if (content.size() >= 2 && content.back() == '\n' && content[content.size() - 2] != '\n') {
    content.remove_suffix(1);
  }
  row.content = std::string(content);
  return row;
}

std::string PrincipalFolderName(std::string_view owner) {
  if (owner == kRootArchivePrincipal) return "";
  return "@" + SessionFolderName(owner);
}

std::string ArchivePath(const std::string& archive_root, const ArchiveRow& row) {
  const std::string principal = PrincipalFolderName(row.owner);
  return LegacyArchivePath(principal.empty() ? archive_root : JoinPath(archive_root, principal),
                           row);
}

std::string LegacyArchivePath(const std::string& archive_root, const ArchiveRow& row) {
  return JoinPath(JoinPath(archive_root, SessionFolderName(row.session_id)),
                  ArchiveFileName(row.seq));
}

namespace {

// The folders a batch has placed files in, each opened once and fsynced
// once at the end.
struct BatchFolder {
  Fd fd;
  std::string path;
  std::vector<size_t> rows;  // indexes of the rows placed in it
};

// One row of a batch: its file created in its session folder (opened once
// per batch, kept in `folders`), the folder not yet fsynced. kWritten rows
// are recorded in their folder's `rows`.
Result<ArchiveOutcome> PlaceArchiveFile(const std::string& archive_root, int root_fd,
                                        const ArchiveRow& row, size_t index,
                                        std::vector<BatchFolder>& folders) {
  const std::string principal = PrincipalFolderName(row.owner);
  const std::string principal_path =
      principal.empty() ? archive_root : JoinPath(archive_root, principal);
  const std::string folder_path = JoinPath(principal_path, SessionFolderName(row.session_id));
  const std::string file = ArchiveFileName(row.seq);
  auto it = std::find_if(folders.begin(), folders.end(),
                         [&](const BatchFolder& f) { return f.path == folder_path; });
  if (it == folders.end()) {
    Fd parent(-1);
    if (!principal.empty()) {
      MNEMO_ASSIGN_OR_RETURN(parent, OpenSessionFolder(root_fd, principal, principal_path));
    }
    MNEMO_ASSIGN_OR_RETURN(Fd dir,
                           OpenSessionFolder(principal.empty() ? root_fd : parent.get(),
                                             SessionFolderName(row.session_id), folder_path));
    folders.push_back(BatchFolder{.fd = std::move(dir), .path = folder_path, .rows = {}});
    it = std::prev(folders.end());
  }
  internal::AtomicTarget target;
  target.dir_fd = it->fd.get();
  target.folder_path = folder_path;
  target.file = file;
  target.mode = kFileMode;
  target.placement = internal::Placement::kCreateNew;
  target.sync_folder = false;
  MNEMO_ASSIGN_OR_RETURN(const internal::Placed placed,
                         internal::WriteFileAtomically(target, RenderArchiveFile(row)));
  if (placed == internal::Placed::kNameTaken) {
    struct stat st {};
    if (::fstatat(it->fd.get(), file.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISREG(st.st_mode)) {
      return ArchiveOutcome::kAlreadyExisted;
    }
    return Unavailable("'" + JoinPath(folder_path, file) +
                       "' exists and is not a regular file; it was left as it is");
  }
  it->rows.push_back(index);
  return ArchiveOutcome::kWritten;
}

}  // namespace

ArchiveBatch WriteArchiveFiles(const std::string& archive_root, std::span<const ArchiveRow> rows) {
  ArchiveBatch out;
  out.outcomes.reserve(rows.size());
  // The root is opened (and created) for the first row that can be written.
  std::optional<Result<Fd>> root;
  std::vector<BatchFolder> folders;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].seq < 0) {
      out.outcomes.emplace_back(InvalidArgument(
          "seq " + std::to_string(rows[i].seq) + " is invalid: use 0 or more", "seq"));
      continue;
    }
    if (!root) root = OpenRoot(archive_root);
    if (!root->ok()) {
      out.outcomes.emplace_back(root->status());
      continue;
    }
    out.outcomes.push_back(PlaceArchiveFile(archive_root, (*root)->get(), rows[i], i, folders));
  }
  // The new names become durable here, one fsync per folder; a kWritten
  // outcome is reported only after it.
  for (const BatchFolder& f : folders) {
    if (f.rows.empty()) continue;
    ++out.folders_synced;
    if (::fsync(f.fd.get()) != 0) {
      const Status failed = Unavailable("cannot sync folder '" + f.path + "': " + ErrnoText(errno));
      for (const size_t i : f.rows) out.outcomes[i] = failed;
    }
  }
  return out;
}

Result<ArchiveOutcome> WriteArchiveFile(const std::string& archive_root, const ArchiveRow& row) {
  return std::move(
      WriteArchiveFiles(archive_root, std::span<const ArchiveRow>(&row, 1)).outcomes[0]);
}

}  // namespace mnemo::archivist

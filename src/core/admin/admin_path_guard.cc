// memory.path_protected (spec 10, "Files"): whether a path a harness's file
// tool is about to touch is part of mnemo's own storage, so the tool can
// refuse it. The path is resolved first (symlinks of every existing
// component, `.` and `..`), then compared component-wise with the protected
// places: the workspace folder (database and its -wal/-shm, vector index
// files, markdown archive, MEMORY.md/SKILL.md and their lock, mnemo.toml), the
// markdown backend's folder when it lives elsewhere, and the audit log with
// its rotated files. An existing file outside them is also compared by
// identity (device and inode), so another name for a protected file (a hard
// link, a bind mount) does not slip through: always with the database files,
// the knowledge files, mnemo.toml and the audit log (a few stats); and, when
// the file has more than one name (st_nlink > 1: a file with one name is
// protected only if that name is, checked above), with every file inside the
// workspace, the markdown store and the audit log's folder on its device (a
// walk, paid only for hard-linked files; its measured cost is in
// docs/storage.md, "The workspace").
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/access.h"
#include "core/admin/admin_options.h"
#include "core/audit_record.h"

namespace mnemo {
namespace {

namespace fs = std::filesystem;

// `path` with every existing component's symlinks resolved and the rest
// normalised lexically; relative paths are taken from the working directory.
Result<fs::path> Resolve(const fs::path& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) return InvalidArgument("path " + path.string() + " cannot be resolved: " + ec.message());
  fs::path resolved = fs::weakly_canonical(absolute, ec);
  if (ec) return InvalidArgument("path " + path.string() + " cannot be resolved: " + ec.message());
  return resolved;
}

// Whether `p` is `root` or inside it (by whole components: /a/ws2 is not
// inside /a/ws).
bool Within(const fs::path& p, const fs::path& root) {
  auto pi = p.begin();
  for (auto ri = root.begin(); ri != root.end(); ++ri, ++pi) {
    if (ri->empty()) continue;  // a trailing separator
    if (pi == p.end() || *pi != *ri) return false;
  }
  return true;
}

using FileId = std::pair<dev_t, ino_t>;

std::optional<FileId> IdOf(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return FileId{st.st_dev, st.st_ino};
}

// A name of the file `id` among the files under `root` (not following
// symlinks: a link inside the workspace to a user's file does not protect
// that file), or nullopt. `accept` filters names; the iterator keeps its own
// stack, so a deep tree costs no recursion.
template <typename Accept>
std::optional<fs::path> NameUnder(const fs::path& root, const FileId& id, bool recursive,
                                  Accept accept) {
  auto check = [&](const fs::directory_entry& e) -> bool {
    std::error_code entry_ec;  // a file removed meanwhile is skipped, the walk goes on
    if (e.symlink_status(entry_ec).type() != fs::file_type::regular || !accept(e.path()))
      return false;
    struct stat st {};
    return ::lstat(e.path().c_str(), &st) == 0 && st.st_dev == id.first && st.st_ino == id.second;
  };
  constexpr auto kOptions = fs::directory_options::skip_permission_denied;
  std::error_code ec;
  if (recursive) {
    for (fs::recursive_directory_iterator it(root, kOptions, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (check(*it)) return it->path();
    }
  } else {
    for (fs::directory_iterator it(root, kOptions, ec), end; !ec && it != end; it.increment(ec)) {
      if (check(*it)) return it->path();
    }
  }
  return std::nullopt;
}

// A protected name of the existing file `p` (which is outside `roots` and
// is not the audit log by name), or nullopt.
std::optional<fs::path> ProtectedNameOf(const fs::path& p, const fs::path& ws,
                                        const std::vector<fs::path>& roots, const fs::path& audit) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  const FileId id{st.st_dev, st.st_ino};
  for (const fs::path& file : {ws / "mnemo.db", ws / "mnemo.db-wal", ws / "mnemo.db-shm",
                               ws / "MEMORY.md", ws / "SKILL.md", ws / "mnemo.toml", audit}) {
    if (IdOf(file) == id) return file;
  }
  if (!S_ISREG(st.st_mode) || st.st_nlink < 2) return std::nullopt;
  // Hard links share a device: only folders on the file's device are walked.
  auto same_device = [&](const fs::path& folder) {
    std::optional<FileId> folder_id = IdOf(folder);
    return folder_id && folder_id->first == id.first;
  };
  for (const fs::path& root : roots) {
    if (!same_device(root)) continue;
    auto any = [](const fs::path&) { return true; };
    if (auto name = NameUnder(root, id, /*recursive=*/true, any)) return name;
  }
  const fs::path audit_folder = audit.parent_path();
  if (!same_device(audit_folder)) return std::nullopt;
  const std::string audit_file = audit.filename().string();
  return NameUnder(audit_folder, id, /*recursive=*/false, [&](const fs::path& name) {
    const std::string n = name.filename().string();
    return n == audit_file || n.starts_with(audit_file + ".");
  });
}

}  // namespace

Result<PathCheck> Admin::PathProtected(const Principal& who, std::string_view path) {
  internal::AuditRecord audit(audit_, who, "memory.path_protected");
  return audit.End([&]() -> Result<PathCheck> {
    if (path.empty()) return InvalidArgument("path must not be empty", "path");
    if (path.find('\0') != std::string_view::npos) {
      return InvalidArgument("path must not contain NUL characters", "path");
    }
    MNEMO_ASSIGN_OR_RETURN(fs::path resolved, Resolve(fs::path(path)));
    PathCheck check{.resolved = resolved.string()};

    const fs::path ws(options_->workspace);
    struct Root {
      fs::path path;
      const char* what;
    };
    std::vector<Root> roots = {{ws, "the mnemo workspace"}};
    if (!options_->memory_path.empty()) {
      fs::path store(options_->memory_path);
      if (store.is_relative()) store = ws / store;
      MNEMO_ASSIGN_OR_RETURN(fs::path store_resolved, Resolve(store));
      roots.push_back({store_resolved, "the markdown memory store"});
    }
    const fs::path audit(options_->audit_path);
    MNEMO_ASSIGN_OR_RETURN(fs::path audit_resolved, Resolve(audit));
    for (const Root& root : roots) {
      if (Within(resolved, root.path)) {
        check.is_protected = true;
        check.reason = std::string("inside ") + root.what + " (" + root.path.string() + ")";
        return check;
      }
    }
    // The audit log and its rotations (audit.log.1, ...).
    const std::string name = resolved.string();
    const std::string audit_name = audit_resolved.string();
    if (name == audit_name || name.starts_with(audit_name + ".")) {
      check.is_protected = true;
      check.reason = "the audit log (" + audit_name + ")";
      return check;
    }
    // Another name (a hard link, a bind mount) of a protected file.
    std::vector<fs::path> root_paths;
    root_paths.reserve(roots.size());
    for (const Root& root : roots) root_paths.push_back(root.path);
    if (std::optional<fs::path> file = ProtectedNameOf(resolved, ws, root_paths, audit_resolved)) {
      check.is_protected = true;
      check.reason = "the same file as " + file->string();
    }
    return check;
  }());
}

}  // namespace mnemo

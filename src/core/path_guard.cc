// memory.path_protected (spec 10, "Files"): whether a path a harness's file
// tool is about to touch is part of mnemo's own storage, so the tool can
// refuse it. The path is resolved first (symlinks of every existing
// component, `.` and `..`), then compared component-wise with the protected
// places: the workspace folder (database and its -wal/-shm, vector index
// files, markdown archive, MEMORY.md/SKILL.md and their lock, mnemo.toml), the
// markdown backend's folder when it lives elsewhere, and the audit log with
// its rotated files. An existing file is also compared by identity (device
// and inode) with the database files, the knowledge files and the audit log,
// so a hard link elsewhere does not slip through.
#include <sys/stat.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/engine_impl.h"

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

std::optional<std::pair<dev_t, ino_t>> FileId(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return std::nullopt;
  return std::pair{st.st_dev, st.st_ino};
}

}  // namespace

Result<PathCheck> Engine::Impl::PathProtected(std::string_view path) {
  if (path.empty()) return InvalidArgument("path must not be empty", "path");
  if (path.find('\0') != std::string_view::npos) {
    return InvalidArgument("path must not contain NUL characters", "path");
  }
  MNEMO_ASSIGN_OR_RETURN(fs::path resolved, Resolve(fs::path(path)));
  PathCheck check{.resolved = resolved.string()};

  const fs::path ws(workspace);
  struct Root {
    fs::path path;
    const char* what;
  };
  std::vector<Root> roots = {{ws, "the mnemo workspace"}};
  if (!config.memory.path.empty()) {
    fs::path store(config.memory.path);
    if (store.is_relative()) store = ws / store;
    MNEMO_ASSIGN_OR_RETURN(fs::path store_resolved, Resolve(store));
    roots.push_back({store_resolved, "the markdown memory store"});
  }
  fs::path audit(config.security.audit.path);
  if (audit.is_relative()) audit = ws / audit;
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
  // Another name (a hard link) of a protected file.
  if (std::optional<std::pair<dev_t, ino_t>> id = FileId(resolved)) {
    for (const fs::path& file :
         {ws / "mnemo.db", ws / "mnemo.db-wal", ws / "mnemo.db-shm", ws / "MEMORY.md",
          ws / "SKILL.md", ws / "mnemo.toml", audit_resolved}) {
      if (FileId(file) == id) {
        check.is_protected = true;
        check.reason = "the same file as " + file.string();
        return check;
      }
    }
  }
  return check;
}

}  // namespace mnemo

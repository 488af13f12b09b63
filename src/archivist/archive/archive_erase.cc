#include "archivist/archive/archive_erase.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <system_error>

namespace mnemo::archivist {
namespace {

namespace fs = std::filesystem;

// The file's bytes, or nullopt when it cannot be read (missing, a folder).
std::optional<std::string> ReadFile(const fs::path& path) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// "000012": a seq as its file name starts (markdown_archive.h ArchivePath).
std::string SeqName(int64_t seq) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%06lld", static_cast<long long>(seq));
  return buf;
}

// Removes `path` (when `only_if` is given, only when the file holds exactly
// that text) and the temp files a killed writer left beside it for `seq`;
// whether the file was removed.
Result<bool> RemoveRowFile(const fs::path& path, int64_t seq, const std::string* only_if) {
  bool removed = false;
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(path, ec))) {
    std::optional<std::string> text;
    if (only_if != nullptr) text = ReadFile(path);
    if (only_if == nullptr || (text && *text == *only_if)) {
      if (!fs::remove(path, ec) && ec) {
        return Unavailable("cannot remove the archive file " + path.string() + ": " + ec.message());
      }
      removed = true;
    }
  }
  // A writer killed mid-write leaves a temp file holding the row.
  const std::string temp_prefix = "." + SeqName(seq) + ".md.tmp.";
  for (fs::directory_iterator it(path.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().filename().string().starts_with(temp_prefix)) {
      std::error_code ignored;
      fs::remove(it->path(), ignored);
    }
  }
  return removed;
}

void RemoveIfEmpty(const fs::path& folder) {
  std::error_code ec;
  if (fs::is_directory(fs::symlink_status(folder, ec)) && fs::is_empty(folder, ec)) {
    fs::remove(folder, ec);
  }
}

}  // namespace

Result<int64_t> EraseArchiveFiles(const std::string& archive_root,
                                  std::span<const ArchiveRow> rows) {
  int64_t removed = 0;
  std::set<fs::path> session_folders;
  std::set<fs::path> principal_folders;
  for (const ArchiveRow& row : rows) {
    if (row.seq < 0) continue;
    const fs::path own = ArchivePath(archive_root, row);
    session_folders.insert(own.parent_path());
    const std::string text = RenderArchiveFile(row);
    // A principal folder is its principal's alone: its files go whole. The
    // root holds kRootArchivePrincipal's sessions and, from before
    // principal folders, every owner's: there a file goes only when it
    // holds exactly the row, never because of its name.
    const bool own_folder = !PrincipalFolderName(row.owner).empty();
    MNEMO_ASSIGN_OR_RETURN(bool gone, RemoveRowFile(own, row.seq, own_folder ? nullptr : &text));
    if (own_folder) {
      principal_folders.insert(own.parent_path().parent_path());
      const fs::path legacy = LegacyArchivePath(archive_root, row);
      session_folders.insert(legacy.parent_path());
      MNEMO_ASSIGN_OR_RETURN(bool legacy_gone, RemoveRowFile(legacy, row.seq, &text));
      gone = gone || legacy_gone;
    }
    if (gone) ++removed;
  }
  for (const fs::path& folder : session_folders) RemoveIfEmpty(folder);
  for (const fs::path& folder : principal_folders) RemoveIfEmpty(folder);
  return removed;
}

}  // namespace mnemo::archivist

#include "archivist/archive_erase.h"

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

}  // namespace

Result<int64_t> EraseArchiveFiles(const std::string& archive_root,
                                  std::span<const ArchiveRow> rows) {
  int64_t removed = 0;
  std::set<fs::path> folders;
  for (const ArchiveRow& row : rows) {
    if (row.seq < 0) continue;
    const fs::path path = ArchivePath(archive_root, row);
    const fs::path folder = path.parent_path();
    folders.insert(folder);
    std::optional<std::string> text = ReadFile(path);
    if (text && *text == RenderArchiveFile(row)) {
      std::error_code ec;
      if (!fs::remove(path, ec) && ec) {
        return Unavailable("cannot remove the archive file " + path.string() + ": " + ec.message());
      }
      ++removed;
    }
    // A writer killed mid-write leaves a temp file holding the row.
    std::error_code ec;
    const std::string temp_prefix = "." + SeqName(row.seq) + ".md.tmp.";
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().starts_with(temp_prefix)) {
        std::error_code ignored;
        fs::remove(it->path(), ignored);
      }
    }
  }
  for (const fs::path& folder : folders) {
    std::error_code ec;
    if (fs::is_directory(folder, ec) && fs::is_empty(folder, ec)) fs::remove(folder, ec);
  }
  return removed;
}

}  // namespace mnemo::archivist

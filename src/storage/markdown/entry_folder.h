// The markdown backend's folder (spec 10, "Backends"): which files hold
// entries, how to notice that a person changed one, how to replace one
// atomically, and the lock that serialises writers across processes. The
// format of a file is entry_file.h.
//
// Layout, relative to the memory folder:
//   core.md, <custom>.md                      category core / <custom>
//   daily/YYYY-MM-DD.md, conversation/YYYY-MM-DD.md
//   system/<any of the above>                 entries of the system namespaces
//                                             (tool rules, tool statistics,
//                                             the tool registry)
//   archive/<any of the above>                archived entries
// Categories are [a-z0-9_-]{1,64}. Anything else (other names, other folders,
// dot files, temp files) is not an entry file and is left alone.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/io/file_io.h"
#include "mnemo/status.h"

namespace mnemo::storage::markdown {

// What a file's name says about its entries.
struct FilePlace {
  std::string category;
  bool archived = false;
  // Under "system/": the entries of the system namespaces (tool rules, tool
  // statistics, the tool registry; storage::IsSystemNamespace), kept out of
  // the person's own files.
  bool system = false;
};

// nullopt when `relative` is not an entry file of the layout.
std::optional<FilePlace> PlaceOfFile(std::string_view relative);

// Enough to notice a change by another process or a person: size, mtime
// (nanoseconds) and inode (an atomic replace gives a new one).
struct FileStamp {
  int64_t size = 0;
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};

// Every entry file under `root` with its stamp, by relative path: one
// fstatat per file of the layout's folders, nothing else walked. A missing
// root is an empty folder.
Result<std::map<std::string, FileStamp>> ScanEntryFiles(const std::string& root);

// The file's text; kNotFound when it is gone.
Result<std::string> ReadEntryFile(const std::string& root, const std::string& relative);

// Replaces the file with `text` atomically (a temp file in the same folder,
// fsync, rename, fsync of the folder; folders created, mode 0700, files 0600)
// and returns its new stamp. An empty `text` removes the file instead
// (nullopt stamp).
Result<std::optional<FileStamp>> ReplaceEntryFile(const std::string& root,
                                                  const std::string& relative,
                                                  std::string_view text);

// An exclusive lock of the folder (flock on <root>/.mnemo.lock), held for
// the object's life: one writer at a time across threads and processes.
class FolderLock {
 public:
  static Result<FolderLock> Acquire(const std::string& root);

 private:
  explicit FolderLock(internal::Fd fd) : fd_(std::move(fd)) {}
  internal::Fd fd_;
};

}  // namespace mnemo::storage::markdown

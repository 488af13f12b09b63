// The one atomic-write sequence of every file mnemo writes whole (archive
// files, MEMORY.md and SKILL.md, the markdown backend's entry files, vector
// index files): a temp file ".<file>.tmp.<pid>.<n>" beside the target,
// created O_EXCL | O_NOFOLLOW, filled, given its mode with fchmod (not
// subject to the umask), fsynced and closed; then put in place and the folder
// fsynced, so a reader sees only whole files and a crash leaves either the old
// file or the new one (plus, at worst, a temp file: IsTempNameOf finds those).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "mnemo/status.h"

namespace mnemo::internal {

enum class Placement {
  kReplace,    // renameat over whatever has the name
  kCreateNew,  // linkat: only when the name is free; never follows or replaces what is there
};

enum class Placed {
  kWritten,
  kNameTaken,  // kCreateNew only: something has the name; it was left as it is
};

struct AtomicTarget {
  int dir_fd = -1;          // the folder holding the file
  std::string folder_path;  // that folder, for messages
  std::string file;         // the file's name in it (no '/')
  unsigned mode = 0600;
  Placement placement = Placement::kReplace;
  // False: the folder is not fsynced here; the caller fsyncs it once after
  // placing several files in it (the markdown archive's batches). Until
  // then a crash may lose the new name (the file is whole either way).
  bool sync_folder = true;
};

// Writes the file's content to `fd` (open for writing at offset 0; it may
// seek and pwrite). `temp_path` names the temp file, for messages.
using FillFn = std::function<Status(int fd, const std::string& temp_path)>;

// Errors are kUnavailable and name the path and the step that failed; the
// temp file is removed and the target is untouched.
Result<Placed> WriteFileAtomically(const AtomicTarget& target, const FillFn& fill);
Result<Placed> WriteFileAtomically(const AtomicTarget& target, std::string_view text);

// The same, addressed by path: the folder is opened first (it must exist).
Result<Placed> WriteFileAtomically(const std::string& path, unsigned mode, Placement placement,
                                   const FillFn& fill);
Result<Placed> WriteFileAtomically(const std::string& path, unsigned mode, Placement placement,
                                   std::string_view text);

// True when `name` is a temp name of WriteFileAtomically for `file`
// (".<file>.tmp." followed by anything).
bool IsTempNameOf(std::string_view name, std::string_view file);

}  // namespace mnemo::internal

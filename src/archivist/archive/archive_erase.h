// Erasure of markdown archive files (spec 10, "Erasure"; the format is
// markdown_archive.h). A principal folder holds one principal's files only,
// so a row's file there is removed by its name. The archive root holds the
// sessions of kRootArchivePrincipal and, in archives written before
// principal folders existed, every owner's sessions, two owners' sessions
// of one id sharing a folder: a file there is removed only when it holds
// exactly the row being erased (RenderArchiveFile of it).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "archivist/archive/markdown_archive.h"
#include "mnemo/status.h"

namespace mnemo::archivist {

// Removes, for each row, its archive file (ArchivePath; in the root only
// when the file's text is RenderArchiveFile(row)), the file an archive of
// before principal folders holds for it (LegacyArchivePath, when its text is
// RenderArchiveFile(row)), and any temp file a killed writer left for that
// row's seq (`.<seq:06>.md.tmp.*`); then each touched session folder and
// principal folder when it is empty. Returns how many archive files were removed. A missing root,
// folder or file is not an error; kUnavailable (naming the path) when a file
// that holds the row cannot be removed.
Result<int64_t> EraseArchiveFiles(const std::string& archive_root,
                                  std::span<const ArchiveRow> rows);

}  // namespace mnemo::archivist

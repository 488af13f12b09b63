// Erasure of markdown archive files (spec 10, "Erasure"; the format is
// markdown_archive.h). Session folders are named by session id alone, so two
// owners' sessions of one id share a folder: a file is removed only when it
// holds exactly the row being erased (RenderArchiveFile of it), never
// because of its name.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "archivist/markdown_archive.h"
#include "mnemo/status.h"

namespace mnemo::archivist {

// Removes, for each row, its archive file when the file's text is
// RenderArchiveFile(row), and any temp file a killed writer left for that
// row's seq (`.<seq:06>.md.tmp.*`); then each touched session folder when
// it is empty. Returns how many archive files were removed. A missing root,
// folder or file is not an error; kUnavailable (naming the path) when a file
// that holds the row cannot be removed.
Result<int64_t> EraseArchiveFiles(const std::string& archive_root,
                                  std::span<const ArchiveRow> rows);

}  // namespace mnemo::archivist

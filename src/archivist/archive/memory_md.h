// The MEMORY.md / SKILL.md writer behind `memory.update_memory_md` (spec 40):
// the two knowledge files in the workspace folder, appended to or edited one
// `## ` section at a time.
//
// Safety, in the order the writer applies it:
// - Only the names `MEMORY.md` and `SKILL.md` are accepted, byte for byte:
//   no paths, no other case. A target that exists as a symbolic link (even
//   one pointing inside the workspace) is refused the same way and its link
//   target is never read or written.
// - Writers exclude each other with a mutex per canonical workspace path (in
//   this process) and an exclusive flock(2) on `<workspace>/.memory-write.lock`
//   (between processes), both held across the read and the write.
// - The new text goes to a temp file in the workspace, which is fsynced and
//   renamed over the target, and then the folder is fsynced: a reader sees the
//   old file or the new one, and a writer killed at any point leaves one of
//   them too. An OK result means the new file is durable.
//
// Side files (docs/storage.md): `.memory-write.lock`, an empty regular file
// (mode 0600) whose only use is the flock; it is created when missing and
// never removed, and a symlink there is refused. `.<file>.tmp.<pid>.<n>`, a
// temp file that exists only while its writer holds the lock; one left behind
// by a killed writer is removed by the next write to the workspace.
//
// Editors outside mnemo do not take the lock; a write racing one of them keeps
// whichever file was renamed last, but never a torn one.
//
// Thread-safety: UpdateMemoryMd may be called from any thread and any number
// of processes at once. Do not fork() while another thread is inside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "mnemo/limits.h"
#include "mnemo/status.h"

namespace mnemo::archivist {

// The two files the writer accepts, and the lock file beside them.
inline constexpr std::string_view kMemoryMdFile = "MEMORY.md";
inline constexpr std::string_view kSkillMdFile = "SKILL.md";
inline constexpr std::string_view kMemoryMdLockFile = ".memory-write.lock";

// Largest `content` and `section_title` accepted: kMaxMemoryMdContentBytes
// and kMaxMemoryMdTitleBytes (mnemo/limits.h).

enum class MemoryMdAction { kAppend, kReplaceSection };

struct MemoryMdUpdate {
  std::string file;  // "MEMORY.md" or "SKILL.md"
  MemoryMdAction action = MemoryMdAction::kAppend;
  std::string section_title;  // kReplaceSection only: the heading without "## "
  std::string content;
};

struct MemoryMdResult {
  std::string path;              // <canonical workspace>/<file>
  int64_t bytes = 0;             // size of the file as written
  bool section_created = false;  // kReplaceSection found no such section and appended one
};

// "append" -> kAppend, "replace_section" -> kReplaceSection. Anything else:
// kInvalidArgument, field "action": `action "<name>" is invalid: use append
// or replace_section`.
Result<MemoryMdAction> ParseMemoryMdAction(std::string_view name);

// Applies `update` to <workspace>/<update.file> and returns what was written.
//
// Content is written as given, plus a final "\n" when it does not end with
// one; empty content is zero lines.
// - kAppend: the existing text (empty when the file is missing), "\n" if it
//   is non-empty and does not end with one, then the content.
//   `section_title` is ignored.
// - kReplaceSection: the first line equal to "## <title>" (a trailing "\r"
//   of a CRLF file is ignored when comparing) keeps its place; the lines
//   after it, up to the next line starting with "## " or the end of the file,
//   become the content. Every other byte of the file is kept. When there is
//   no such line, "## <title>\n" and the content are appended as by kAppend
//   and `section_created` is set.
// A new file gets mode 0600; a rewritten one keeps its permission bits (the
// replacement is a new inode, owned by the writing user).
//
// Errors. The target is never changed; a bad name, title or content and a
// missing workspace are found before anything is created (not even the lock
// file).
// - kInvalidArgument, field "file": `File '<f>' is not allowed. Permitted
//   files: MEMORY.md, SKILL.md` for any other name, and for a target that
//   is a symlink. In <f>, control characters and invalid UTF-8 are shown as
//   '?', and a name past 128 code points is cut and ends in "...".
// - kInvalidArgument, field "section_title" (kReplaceSection): blank, more
//   than one line, control characters, invalid UTF-8, or over
//   kMaxMemoryMdTitleBytes.
// - kInvalidArgument, field "content": invalid UTF-8, a NUL byte, or over
//   kMaxMemoryMdContentBytes.
// - kUnavailable: the workspace folder does not exist or is not a folder;
//   the lock file is a symlink or not a regular file; the target is not a
//   regular file; or an I/O error (the message names the path and the
//   reason). A failed write leaves the old file in place.
Result<MemoryMdResult> UpdateMemoryMd(const std::string& workspace, const MemoryMdUpdate& update);

}  // namespace mnemo::archivist

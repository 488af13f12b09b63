// The Markdown archive of episodic rows (spec 40, "Per turn", item 2): one
// file per row, `<archive_root>/<principal folder>/<session folder>/<seq:06>.md`
// (`<archive_root>/<session folder>/<seq:06>.md` for kRootArchivePrincipal),
// created new and never overwritten. The archive is best effort: the caller logs a
// failure and the turn goes on. The database stays the source of truth.
//
// File format (docs/storage.md), UTF-8, "\n" line ends:
//
//   ---
//   session_id: "sess-1"
//   seq: 12
//   timestamp_ms: 1700000000000
//   role: "user"
//   cost_microdollars: 0
//   lesson: "..."            only when the lesson is non-empty
//   tool_calls_json: "..."   only when tool_calls_json is non-empty
//   ---
//   <one empty line>
//   <content>
//
// - String values are JSON string literals, so the front matter is also
//   YAML: `"` and `\` are escaped, "\n" "\r" "\t" "\b" "\f" use their short
//   escapes and every other control character (U+0000-U+001F, U+007F,
//   U+0080-U+009F) is `\u00xx` with lower-case hex. Other characters,
//   Chinese included, are written as they are. Ill-formed UTF-8 becomes
//   U+FFFD (one per maximal subpart), so the file is always valid UTF-8.
// - Numbers are decimal integers.
// - The content is written as stored (ill-formed UTF-8 again becomes
//   U+FFFD), followed by one "\n" when it does not already end with one. An
//   empty content writes nothing: the file ends with "---\n\n". A reader
//   therefore cannot tell "x" from "x\n"; the database has the exact text.
//
// Each principal has a folder of its own (PrincipalFolderName, "@<name>"),
// so two principals' sessions of one id never share a folder and neither
// can pre-empt the other's files; the default principal of a single-user
// workspace (kRootArchivePrincipal) keeps its sessions directly in the root,
// as before principal folders existed. A session folder never starts with
// "@", so it never meets a principal folder. Session folders
// (SessionFolderName) never hold "/" or "..", so a row can only land in a
// direct child of the archive root or of a principal folder. Distinct ids get distinct
// folders, with one exception that needs intent: an id made only of safe
// bytes that spells another id's hashed folder name ("a_b-<12 hex>").
// Because files are never overwritten, such a clash loses archive files of
// the later session (kAlreadyExisted), never data already archived.
//
// Side files: `.<seq:06>.md.tmp.<pid>.<n>`, a temp file (mode 0600) that
// exists only while its writer runs. A writer killed between creating and
// unlinking it leaves it behind; such files are never read (their names
// start with "." and do not end in ".md") and may be deleted by hand. They
// are not swept automatically: without a lock, a live writer in another
// process cannot be told apart from a dead one.
//
// Thread-safety: all functions may be called from any thread and any number
// of processes at once. Do not fork() while another thread is inside
// WriteArchiveFile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::archivist {

// Longest session id, in bytes, that is used as a folder name unchanged. A
// longer id keeps its first kMaxKeptSessionIdBytes bytes (mapped as below)
// and gets the hash suffix, so a folder name is at most 77 bytes.
inline constexpr size_t kMaxKeptSessionIdBytes = 64;
// Hex digits of SHA-256 in a hashed folder name's "-<hex>" suffix.
inline constexpr size_t kSessionHashHexDigits = 12;

// The principal whose sessions lie directly in the archive root: the
// built-in default principal (security.default_principal's default), so a
// single-user workspace keeps the layout it had before principal folders.
inline constexpr std::string_view kRootArchivePrincipal = "local";

// One episodic row as archived.
struct ArchiveRow {
  std::string owner{kRootArchivePrincipal};  // the principal that produced it
  std::string session_id;                    // raw, as the harness sent it
  int64_t seq = 0;                           // assigned by the database; must be >= 0 to be written
  int64_t timestamp_ms = 0;
  std::string role;  // "user" | "assistant"
  int64_t cost_microdollars = 0;
  std::string lesson;           // "" = omitted from the front matter
  std::string tool_calls_json;  // "" = omitted
  std::string content;
};

// The session's folder name. An id of 1 to kMaxKeptSessionIdBytes bytes, all
// ASCII letters, digits, '-' or '_', is used unchanged ("sess-1"). Any other
// id (empty, too long, or holding any other byte) keeps its first
// kMaxKeptSessionIdBytes bytes with every other byte replaced by '_', then
// "-" and the first 12 lower-case hex digits of SHA-256 of the raw id:
// "a/b" -> "a_b-<hex>", ".." -> "__-<hex>", "" -> "-<hex>". The result is
// never empty, "." or "..", and never holds "/".
std::string SessionFolderName(std::string_view session_id);

// The principal's folder under the archive root: "" for
// kRootArchivePrincipal, else "@" and SessionFolderName(owner) ("@alice").
std::string PrincipalFolderName(std::string_view owner);

// The exact text of the row's archive file (format above).
std::string RenderArchiveFile(const ArchiveRow& row);

// The row of an archive file's text: the inverse of RenderArchiveFile, for
// tools that read the archive back (verification after a crash, a rebuild
// from the archive). Strict: the text must be valid UTF-8; the front matter
// must open and close with "---" lines and hold exactly the fields above, each
// once, in any order (lesson and tool_calls_json optional), string values as
// JSON string literals and numbers as decimal integers, then one empty line.
// The content is the rest, less a final "\n" that the writer may have
// added (one not preceded by another "\n"), so a content "x" or "x\n" reads
// back as "x", and RenderArchiveFile of the parsed row is the text again. Errors are
// kInvalidArgument naming the line and what was expected; never throws.
Result<ArchiveRow> ParseArchiveFile(std::string_view text);

// "<archive_root>/<PrincipalFolderName>/<SessionFolderName>/<seq:06>.md"
// (no principal folder for kRootArchivePrincipal): seq zero-padded to six
// digits ("000012.md"); from 1000000 on it simply has more digits. A "/" at
// the end of archive_root is not doubled.
std::string ArchivePath(const std::string& archive_root, const ArchiveRow& row);

// Where the row's file was written before principal folders existed
// ("<archive_root>/<SessionFolderName>/<seq:06>.md" for every owner), so
// erasure can find files of other principals written then.
std::string LegacyArchivePath(const std::string& archive_root, const ArchiveRow& row);

enum class ArchiveOutcome {
  kWritten,         // the file was created with RenderArchiveFile(row)
  kAlreadyExisted,  // a regular file had that name; it was kept as it was
};

// Creates ArchivePath(archive_root, row) with RenderArchiveFile(row).
//
// The archive root and its missing parents are created (mode 0700); symbolic
// links in the archive root's own path are followed (it is configuration).
// The principal folder and the session folder are created (0700) when
// missing and each opened without following a symbolic link. The text goes to a temp file in the
// session folder (O_EXCL, 0600), which is fsynced and hard-linked to the final name (link(2) never
// replaces an existing name); the temp name is then unlinked and the folder fsynced. A folder
// created here is made durable by fsyncing its parent. An OK kWritten means the file is durable;
// readers never see a partial file under the final name.
//
// Returns kAlreadyExisted when the final name is already a regular file (a
// crash leftover, or a seq written twice); the caller logs a warning.
//
// Errors, never thrown; no file is left under the final name:
// - kInvalidArgument, field "seq": seq < 0.
// - kUnavailable, the message naming the path: archive_root empty or not a
//   folder; the session folder is a symbolic link (refused even when it
//   points inside the root) or not a folder; the final name exists but is
//   not a regular file (a symbolic link there is never followed); any I/O
//   error, with its reason (also on file systems without hard links).
Result<ArchiveOutcome> WriteArchiveFile(const std::string& archive_root, const ArchiveRow& row);

// What WriteArchiveFiles did: one outcome per row, in order, and how many
// folders it fsynced.
struct ArchiveBatch {
  std::vector<Result<ArchiveOutcome>> outcomes;
  int folders_synced = 0;  // folders that received a new file, once each
};

// WriteArchiveFile for several rows, with one folder fsync per session
// folder that received a file instead of one per file (the archive writer
// hands it what its queue holds). Each file is written as WriteArchiveFile
// writes it (temp file, fsync, link: never a partial file under a final
// name); the folders are fsynced after the last row, and a kWritten outcome
// is reported only once its folder's fsync succeeded, so it means durable as
// it does for WriteArchiveFile. A crash before those fsyncs can lose the
// names of the batch's new files (and leave their temp names), never tear
// one. A row's failure does not stop the others; a failed folder fsync fails
// every row placed in that folder.
ArchiveBatch WriteArchiveFiles(const std::string& archive_root, std::span<const ArchiveRow> rows);

}  // namespace mnemo::archivist

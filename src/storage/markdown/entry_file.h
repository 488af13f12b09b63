// The file format of the markdown backend (spec 10, "Backends"): entries as
// items of human-readable markdown files, read back exactly. This is the
// format layer only (render, parse, which file an entry lives in); the
// backend that keeps files and index in step builds on it.
//
// One item per entry; the last line of an item ends with its metadata:
//
//   - **user_editor**: The user prefers Helix over Vim <!-- mnemo: {...} -->
//   - **deploy\*notes**: first line
//       second line, indented by four spaces
//       a line with trailing spaces   <!-- -->
//       last line <!-- mnemo: {"id":"…","namespace":"global",…} -->
//
// - Keys: `*`, `\` and `<` are backslash-escaped (`\*`, `\\`, `\<`).
// - Content: split at "\n"; the first line follows "**: " (nothing after
//   "**:" for an empty content), the others are indented by four spaces.
//   A line other than the last that is empty or ends with a space, a tab,
//   "\r" or "<!-- -->" gets "<!-- -->" appended (editors keep trailing
//   spaces before it and an empty line cannot end the item; the parser
//   removes exactly one).
// - Metadata: " <!-- mnemo: " + JSON + " -->" at the end of the last line
//   (one space, removed by the parser): id, namespace, tags, owner,
//   visibility, created_at, updated_at (RFC3339). In the JSON `<` and `>` are
//   written \u003c and \u003e, so the comment never holds "-->" early. Usage
//   counters are not in the files.
// - Anything that is neither an item nor a continuation line (titles, notes,
//   blank lines) is ignored. A line starting with "- " that is not an item,
//   or an item whose metadata does not parse, is reported with its line
//   number and skipped (the rest of the file still loads).
// - An item without metadata (added by a person) gets the defaults: no id,
//   namespace "global", no tags, the default owner, private, no times.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mnemo/types.h"

namespace mnemo::storage::markdown {

// An entry read from a file, with where it was.
struct FileEntry {
  Entry entry;
  int line = 0;           // 1-based line of its "- **" line
  int last_line = 0;      // 1-based line of its last (continuation) line
  bool has_meta = false;  // false: written by a person, defaults applied
};

struct ParsedFile {
  std::vector<FileEntry> entries;
  // "<file>:<line>: <what is wrong>; the line was skipped"
  std::vector<std::string> problems;
};

// The text of a file holding `entries` (in order) under a "# <title>" line.
std::string RenderEntryFile(std::string_view title, const std::vector<Entry>& entries);

// The lines of a file's text, without their "\n" (a final "\n" ends the
// last line; it does not start an empty one). FileEntry line numbers count
// these lines from 1.
std::vector<std::string_view> FileLines(std::string_view text);

// The item of one entry (its lines, each ending in "\n").
std::string RenderItem(const Entry& entry);

// Parses a file's text. `file` names it in problems; every entry gets
// `category` and `archived`, and `default_owner` when it has no metadata.
ParsedFile ParseEntryFile(std::string_view text, std::string_view file, std::string_view category,
                          bool archived, std::string_view default_owner);

// The file of an entry, relative to the memory folder: "core.md",
// "daily/YYYY-MM-DD.md" and "conversation/YYYY-MM-DD.md" (UTC date of
// created_at), "<category>.md" for custom categories; entries of a system
// namespace under "system/" with the same name, archived entries under
// "archive/" (so "archive/system/core.md").
std::string EntryFilePath(const Entry& entry);

}  // namespace mnemo::storage::markdown

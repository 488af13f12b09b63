// The formats of other memory tools that `mnemo import --from` reads
// (docs/storage.md "Imports from other tools"): pure functions from a
// file's text to the records mnemo would write, with what they left out and
// why by line. They check the shape of the input only; the values are
// checked (key, content, tags, secrets, ownership) where they are written
// (admin_import_foreign.cc), so every format is refused alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::internal {

// The largest JSON or JSONL file read (mcp-memory, mem0, jsonl): such a
// file is parsed in memory; larger ones are skipped with the reason. A note
// (markdown, basic-memory) is read up to kMaxContentBytes, the most one
// document holds; every line of a JSON file up to server.max_body_bytes.
inline constexpr int64_t kMaxForeignJsonFileBytes = int64_t{256} << 20;  // 256 MiB

enum class ForeignFormat { kMcpMemory, kMem0, kBasicMemory, kMarkdown, kJsonl };

// "mcp-memory" -> kMcpMemory...; kInvalidArgument naming the five for
// anything else.
Result<ForeignFormat> ParseForeignFormat(std::string_view name);
std::string_view ForeignFormatName(ForeignFormat format);
// Whether the format reads a folder of notes (else one file, or every
// file of a folder).
bool ReadsNotes(ForeignFormat format);

// One input file: `name` is how reports name it (the path given, or the
// path inside the folder given), `relative` the path inside the folder
// ("" for a file given by itself: its file name is used).
struct ForeignFile {
  std::string name;
  std::string relative;
  std::string text;
};

// An entry to write. `ns` empty: the import's namespace; `owner` empty:
// the importing principal.
struct ForeignEntry {
  int64_t line = 0;
  std::string key;
  std::string ns;
  std::string owner;
  std::string content;
  std::string category = "core";
  std::vector<std::string> tags;
  std::optional<Visibility> visibility;
  TimeMs created_at = 0;  // 0: now
  TimeMs updated_at = 0;  // 0: now
};

// A document (the whole of a note, byte for byte).
struct ForeignDocument {
  int64_t line = 0;
  std::string source;
  std::string meta;  // a JSON object's text
  std::string content;
};

// A fact stated by the input (subject, predicate, object as written; the
// subject and object are graph nodes, written under ForeignEntityName).
struct ForeignTriple {
  int64_t line = 0;
  std::string subject;
  std::string predicate;
  std::string object;
};

struct ForeignSkip {
  int64_t line = 0;  // 0: the whole file
  std::string reason;
};

struct ForeignRecords {
  std::vector<ForeignEntry> entries;
  std::vector<ForeignDocument> documents;
  std::vector<ForeignTriple> triples;
  std::vector<ForeignSkip> skipped;
};

// The MCP reference memory server's memory.jsonl: {"type":"entity","name",
// "entityType","observations":[...]} lines become one entry per entity
// (key: the name) and a triple (name, is_a, entityType); {"type":"relation",
// "from","to","relationType"} lines become triples.
ForeignRecords ParseMcpMemory(const ForeignFile& file, int64_t max_line_bytes);

// A mem0 export: a JSON list of memories, {"results": [...]} (get_all) or
// one memory per line; each {"id","memory","user_id","agent_id","run_id",
// "metadata","categories","created_at","updated_at"} becomes an entry
// (key: the id; owner: user_id; tags: the categories and agent:<agent_id>).
ForeignRecords ParseMem0(const ForeignFile& file, int64_t max_line_bytes);

// JSONL of entries: {"key", "content" (or "value"), "category"?, "tags"?,
// "namespace"?, "visibility"?, "created_at"?, "updated_at"?}.
ForeignRecords ParseJsonlEntries(const ForeignFile& file, int64_t max_line_bytes);

// A basic-memory note: YAML front matter (title, type, permalink, tags),
// observations (list items "[category] text #tag (context)") and relations
// (list items "relation_type [[Target]]", and [[links]] in text as
// links_to). One document per note (source "basic-memory:<permalink>"),
// one entry per observation (key "<permalink>#<hash of the text>", 64 bits
// of SHA-256 as 16 hex digits, so distinct observations of a note never
// collide in practice) or,
// for a note without observations, one entry for the note (key: the
// permalink), one triple per relation (subject: the title).
ForeignRecords ParseBasicMemoryNote(const ForeignFile& file);

// A plain markdown note: one entry, key = the path inside the folder
// without ".md", content = the text without its front matter (whose tags
// become the entry's tags).
ForeignRecords ParseMarkdownNote(const ForeignFile& file);

// --- Shared by the parsers (and their tests) ---

// The name of a graph node from another tool: every '_' a space, then one
// line (text::CollapseToLine). The MCP memory server writes "Maria_Lopez"
// where a basic-memory note is titled "Maria Lopez"; the graph's node key
// (storage TripleTermKey) folds case and spaces, so after this both are one
// node. Every imported triple's subject and object go through it.
std::string ForeignEntityName(std::string_view name);

// The lines (1-based) on which the elements of the JSON list in `text`
// begin: the top-level array, or the array under `member` of a top-level
// object. Empty when there is no such array. Runs over any bytes.
std::vector<int64_t> JsonListElementLines(std::string_view text, std::string_view member);

// A note's YAML front matter, the small subset notes use: `key: value`,
// `key: [a, b]` and `key:` followed by `- item` lines; quotes removed.
struct FrontMatter {
  bool present = false;
  std::vector<std::pair<std::string, std::vector<std::string>>> fields;
  int64_t body_line = 1;  // the first line after it
  size_t body_offset = 0;
  // The first value of `key` ("" when absent).
  std::string Get(std::string_view key) const;
  // Every value of `key`.
  std::vector<std::string> GetAll(std::string_view key) const;
};
// kInvalidArgument, naming the line and what is allowed, when a front
// matter is opened and never closed, or holds a line that is none of
// `key: value`, `key:`, `- item`, an indented continuation, a comment or
// blank, or a value whose quote or [ ] { } list is never closed.
Result<FrontMatter> ParseFrontMatter(std::string_view text);
// Whether `text` opens with "---" followed (past blank lines) by a
// `key:` line: a front matter was meant, so when ParseFrontMatter refuses
// it the note is malformed, not a note that opens with a rule.
bool OpensFrontMatter(std::string_view text);

}  // namespace mnemo::internal

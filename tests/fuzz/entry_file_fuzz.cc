// The markdown backend's file format (storage/markdown/entry_file.h).
// Properties: any text parses (problems reported, never a crash), and every
// entry it yields renders to an item that parses back to the same entry;
// an entry made of the input's parts (key, content, namespace, owner, tags)
// survives a render and parse unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.h"
#include "storage/markdown/entry_file.h"
#include "text/utf8.h"

using mnemo::Entry;
using mnemo::fuzz::Fail;
namespace md = mnemo::storage::markdown;

namespace {

void CheckRoundTrip(const Entry& e) {
  const md::ParsedFile again =
      md::ParseEntryFile(md::RenderEntryFile("t", {e}), "f.md", e.category, e.archived, "x");
  if (!again.problems.empty()) Fail("a rendered entry has problems: " + again.problems[0]);
  if (again.entries.size() != 1) Fail("a rendered entry does not parse as one");
  const Entry& got = again.entries[0].entry;
  if (got.key != e.key || got.content != e.content || got.id != e.id || got.ns != e.ns ||
      got.owner != e.owner || got.tags != e.tags || got.visibility != e.visibility ||
      got.created_at != e.created_at || got.updated_at != e.updated_at) {
    Fail("an entry does not read back as written: key " + e.key);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  for (const md::FileEntry& fe : md::ParseEntryFile(input, "f.md", "core", false, "x").entries) {
    CheckRoundTrip(fe.entry);
  }
  // NUL-separated parts: key, content, namespace, owner, tags...
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= input.size(); ++i) {
    if (i == input.size() || input[i] == '\0') {
      parts.emplace_back(input.substr(start, i - start));
      start = i + 1;
    }
  }
  Entry e;
  e.key = parts[0];
  for (char& c : e.key) {
    if (c == '\n') c = ' ';  // keys are one line (the engine refuses control characters)
  }
  if (e.key.empty()) e.key.assign(1, 'k');
  e.content = parts.size() > 1 ? parts[1] : "";
  if (parts.size() > 2) e.ns = mnemo::text::SanitizeUtf8(parts[2]);
  if (parts.size() > 3) e.owner = mnemo::text::SanitizeUtf8(parts[3]);
  for (size_t i = 4; i < parts.size(); ++i) e.tags.push_back(mnemo::text::SanitizeUtf8(parts[i]));
  e.created_at = static_cast<int64_t>(size) * 86'400'000;
  e.updated_at = e.created_at + 1;
  CheckRoundTrip(e);
  return 0;
}

// The parsers of other memory tools' files (core/formats/foreign_formats.h), which
// read whatever a user points `mnemo import --from` at. The first byte picks
// the format, the rest is the file. Properties: any bytes parse (problems are
// skipped records, never a crash); every record and skip names a line of the
// file (0 for the whole file); parsing the same text twice gives the same
// records.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/formats/foreign_formats.h"
#include "fuzz_util.h"

using mnemo::fuzz::Fail;
namespace in = mnemo::internal;

namespace {

constexpr int64_t kMaxLineBytes = 1 << 16;

in::ForeignRecords Parse(unsigned selector, const in::ForeignFile& file) {
  switch (selector % 5) {
    case 0: return in::ParseMcpMemory(file, kMaxLineBytes);
    case 1: return in::ParseMem0(file, kMaxLineBytes);
    case 2: return in::ParseJsonlEntries(file, kMaxLineBytes);
    case 3: return in::ParseBasicMemoryNote(file);
    default: return in::ParseMarkdownNote(file);
  }
}

template <typename Records>
void CheckLines(const Records& records, int64_t lines, std::string_view what) {
  for (const auto& r : records) {
    if (r.line < 0 || r.line > lines) {
      Fail(std::string(what) + " names line " + std::to_string(r.line) + " of a file of " +
           std::to_string(lines) + " lines");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned selector = data[0];
  in::ForeignFile file{.name = "f",
                       .relative = "notes/f.md",
                       .text = std::string(reinterpret_cast<const char*>(data) + 1, size - 1)};
  const in::ForeignRecords first = Parse(selector, file);
  const int64_t lines = std::count(file.text.begin(), file.text.end(), '\n') + 1;
  CheckLines(first.entries, lines, "an entry");
  CheckLines(first.documents, lines, "a document");
  CheckLines(first.triples, lines, "a triple");
  CheckLines(first.skipped, lines, "a skip");
  const in::ForeignRecords again = Parse(selector, file);
  if (again.entries.size() != first.entries.size() ||
      again.documents.size() != first.documents.size() ||
      again.triples.size() != first.triples.size() ||
      again.skipped.size() != first.skipped.size()) {
    Fail("the same text parsed twice gives different records");
  }
  for (size_t i = 0; i < first.entries.size(); ++i) {
    if (first.entries[i].key != again.entries[i].key ||
        first.entries[i].content != again.entries[i].content) {
      Fail("the same text parsed twice gives different entries");
    }
  }
  (void)in::JsonListElementLines(file.text, "results");
  (void)in::ParseFrontMatter(file.text);
  return 0;
}

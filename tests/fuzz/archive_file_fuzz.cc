// The archive file reader (archivist/archive/markdown_archive.h, the Markdown front
// matter of spec 40's archive). Properties:
//  - any bytes: ParseArchiveFile returns, and what it accepts renders to a
//    text it reads back as the same rendering;
//  - a row made of the input's parts renders to a file that reads back as the
//    row (ill-formed UTF-8 replaced; a final "\n" may be dropped) that
//    renders to the same file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "archivist/archive/markdown_archive.h"
#include "fuzz_util.h"
#include "text/utf8.h"

using mnemo::archivist::ArchiveRow;
using mnemo::archivist::ParseArchiveFile;
using mnemo::archivist::RenderArchiveFile;
using mnemo::fuzz::Fail;

namespace {

void CheckReadBack(const ArchiveRow& row) {
  const std::string text = RenderArchiveFile(row);
  auto again = ParseArchiveFile(text);
  if (!again.ok()) Fail("a rendered file does not parse: " + again.status().ToString());
  if (RenderArchiveFile(*again) != text) Fail("a parsed file renders differently");
}

std::string Clean(std::string_view s) { return mnemo::text::SanitizeUtf8(s); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (auto row = ParseArchiveFile(input); row.ok()) CheckReadBack(*row);

  // Fields separated by NUL bytes: session, role, lesson, tool calls, content.
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= input.size() && parts.size() < 4; ++i) {
    if (i == input.size() || input[i] == '\0') {
      parts.push_back(input.substr(start, i - start));
      start = i + 1;
    }
  }
  if (start > input.size()) start = input.size();
  ArchiveRow row;
  row.session_id = parts.empty() ? "" : std::string(parts[0]);
  row.role = parts.size() > 1 ? std::string(parts[1]) : "user";
  row.lesson = parts.size() > 2 ? std::string(parts[2]) : "";
  row.tool_calls_json = parts.size() > 3 ? std::string(parts[3]) : "";
  row.content = std::string(input.substr(start));
  row.seq = static_cast<int64_t>(size) * 7919;
  row.timestamp_ms = -static_cast<int64_t>(size);
  auto parsed = ParseArchiveFile(RenderArchiveFile(row));
  if (!parsed.ok()) Fail("a row's file does not parse: " + parsed.status().ToString());
  const std::string content = Clean(row.content);
  if (RenderArchiveFile(*parsed) != RenderArchiveFile(row)) Fail("a row's file reads back changed");
  if (parsed->session_id != Clean(row.session_id) || parsed->role != Clean(row.role) ||
      parsed->lesson != Clean(row.lesson) ||
      parsed->tool_calls_json != Clean(row.tool_calls_json) ||
      (parsed->content != content && parsed->content + "\n" != content) || parsed->seq != row.seq ||
      parsed->timestamp_ms != row.timestamp_ms) {
    Fail("a row does not read back as written");
  }
  return 0;
}

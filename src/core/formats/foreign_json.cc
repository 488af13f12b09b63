// The JSON formats of `mnemo import --from` (foreign_formats.h): the MCP
// memory server's memory.jsonl, a mem0 export and JSONL of entries. JSON as
// a data format: every line is held to the limits of a request body first
// (line_reader.h), as mnemo's own import lines are.
#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "base/sha256.h"
#include "base/time.h"
#include "core/formats/entry_json.h"
#include "core/formats/foreign_formats.h"
#include "core/formats/line_reader.h"
#include "text/strip.h"

namespace mnemo::internal {
namespace {

using nlohmann::json;

constexpr std::array<std::pair<std::string_view, ForeignFormat>, 5> kFormats = {{
    {"mcp-memory", ForeignFormat::kMcpMemory},
    {"mem0", ForeignFormat::kMem0},
    {"basic-memory", ForeignFormat::kBasicMemory},
    {"markdown", ForeignFormat::kMarkdown},
    {"jsonl", ForeignFormat::kJsonl},
}};

// The predicate of an MCP entity's type.
constexpr std::string_view kIsA = "is_a";

// Calls `each(line_number, json)` for every line of `text` that is not
// blank and parses as a JSON object; the others are skipped with why.
template <typename Each>
void ForEachObjectLine(std::string_view text, int64_t max_line_bytes, ForeignRecords& out,
                       const Each& each) {
  int64_t number = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (text::IsBlank(line)) continue;
    Result<json> parsed = ParseImportLine(line, max_line_bytes);
    if (!parsed.ok()) {
      out.skipped.push_back({number, parsed.status().message()});
      continue;
    }
    if (!parsed->is_object()) {
      out.skipped.push_back({number, "not a JSON object"});
      continue;
    }
    each(number, *parsed);
  }
}

// The string at `field`, "" when absent or not a string.
std::string StringAt(const json& j, std::string_view field) {
  auto it = j.find(field);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

void McpEntity(int64_t line, const json& j, ForeignRecords& out) {
  const std::string name = StringAt(j, "name");
  if (text::IsBlank(name)) {
    out.skipped.push_back({line, "an entity needs a \"name\" (a string)"});
    return;
  }
  const std::string type = StringAt(j, "entityType");
  std::string content = name;
  if (!text::IsBlank(type)) content += " (" + type + ")";
  if (auto obs = j.find("observations"); obs != j.end() && !obs->is_null()) {
    if (!obs->is_array()) {
      out.skipped.push_back({line, "\"observations\" must be an array of strings"});
      return;
    }
    for (const json& o : *obs) {
      if (!o.is_string()) {
        out.skipped.push_back({line, "\"observations\" must be an array of strings"});
        return;
      }
      content += "\n- " + o.get<std::string>();
    }
  }
  ForeignEntry e{.line = line, .key = name, .content = std::move(content)};
  if (!text::IsBlank(type)) {
    e.tags.push_back(type);
    out.triples.push_back(
        {.line = line, .subject = name, .predicate = std::string(kIsA), .object = type});
  }
  out.entries.push_back(std::move(e));
}

void McpRelation(int64_t line, const json& j, ForeignRecords& out) {
  ForeignTriple t{.line = line,
                  .subject = StringAt(j, "from"),
                  .predicate = StringAt(j, "relationType"),
                  .object = StringAt(j, "to")};
  if (text::IsBlank(t.subject) || text::IsBlank(t.predicate) || text::IsBlank(t.object)) {
    out.skipped.push_back(
        {line, "a relation needs \"from\", \"to\" and \"relationType\" (strings)"});
    return;
  }
  out.triples.push_back(std::move(t));
}

// mem0 writes times as Python's isoformat(): with or without a zone.
TimeMs Mem0Time(const json& j, std::string_view field) {
  const std::string s = StringAt(j, field);
  if (s.empty()) return 0;
  std::optional<TimeMs> t = ParseRfc3339(s);
  if (!t) t = ParseRfc3339(s + "Z");
  return t.value_or(0);
}

void Mem0Memory(int64_t line, const json& j, ForeignRecords& out) {
  if (!j.is_object()) {
    out.skipped.push_back({line, "a memory must be a JSON object"});
    return;
  }
  const std::string memory = StringAt(j, "memory");
  if (text::IsBlank(memory)) {
    out.skipped.push_back({line, "a memory needs \"memory\" (its text, a string)"});
    return;
  }
  ForeignEntry e{.line = line, .content = memory};
  if (auto id = j.find("id"); id != j.end() && id->is_string()) {
    e.key = id->get<std::string>();
  } else if (id != j.end() && id->is_number_integer()) {
    e.key = std::to_string(id->get<int64_t>());
  } else {
    // Without an id the text names it, so a second run finds it again.
    e.key = "mem0-" + Sha256Hex(memory).substr(0, 16);
  }
  e.owner = StringAt(j, "user_id");
  if (auto categories = j.find("categories"); categories != j.end() && categories->is_array()) {
    for (const json& c : *categories) {
      if (c.is_string()) e.tags.push_back(c.get<std::string>());
    }
  }
  if (const std::string agent = StringAt(j, "agent_id"); !agent.empty()) {
    e.tags.push_back("agent:" + agent);
  }
  e.created_at = Mem0Time(j, "created_at");
  e.updated_at = Mem0Time(j, "updated_at");
  if (e.updated_at == 0) e.updated_at = e.created_at;
  out.entries.push_back(std::move(e));
}

}  // namespace

std::string ForeignEntityName(std::string_view name) {
  std::string spaced(name);
  std::replace(spaced.begin(), spaced.end(), '_', ' ');
  return text::CollapseToLine(spaced);
}

Result<ForeignFormat> ParseForeignFormat(std::string_view name) {
  for (const auto& [n, format] : kFormats) {
    if (n == name) return format;
  }
  return InvalidArgument("unknown import format \"" + std::string(name) +
                             "\": use mcp-memory, mem0, basic-memory, markdown or jsonl",
                         "from");
}

std::string_view ForeignFormatName(ForeignFormat format) {
  for (const auto& [n, f] : kFormats) {
    if (f == format) return n;
  }
  return {};
}

bool ReadsNotes(ForeignFormat format) {
  return format == ForeignFormat::kBasicMemory || format == ForeignFormat::kMarkdown;
}

std::vector<int64_t> JsonListElementLines(std::string_view text, std::string_view member) {
  std::vector<int64_t> lines;
  int64_t line = 1;
  int depth = 0;
  int list_depth = member.empty() ? 1 : -1;  // the depth inside the list
  bool top_object = false;
  bool in_string = false;
  bool escape = false;
  bool expect_element = false;
  std::string current;  // the string being read at depth 1
  std::string key;      // the last member name at depth 1
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (in_string) {
      if (escape) {
        escape = false;
      } else if (c == '\\') {
        escape = true;
      } else if (c == '"') {
        in_string = false;
        if (depth == 1 && top_object) {
          size_t next = text.find_first_not_of(" \t\r\n", i + 1);
          if (next != std::string_view::npos && text[next] == ':') key = current;
        }
      } else if (depth == 1) {
        current += c;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    if (depth == list_depth && expect_element && c != ']' && c != ',') {
      lines.push_back(line);
      expect_element = false;
    }
    switch (c) {
      case '"':
        in_string = true;
        current.clear();
        break;
      case '{':
      case '[':
        if (depth == 0 && c == '{') top_object = true;
        if (depth == 0 && (c == '[') != member.empty()) return {};
        if (c == '[' && depth == 1 && top_object && list_depth < 0 && key == member) {
          list_depth = 2;
        }
        ++depth;
        if (depth == list_depth && c == '[') expect_element = true;
        break;
      case '}':
      case ']':
        if (depth == list_depth && c == ']') return lines;
        --depth;
        break;
      case ',':
        if (depth == list_depth) expect_element = true;
        break;
      default: break;
    }
  }
  return lines;
}

ForeignRecords ParseMcpMemory(const ForeignFile& file, int64_t max_line_bytes) {
  ForeignRecords out;
  ForEachObjectLine(file.text, max_line_bytes, out, [&](int64_t line, const json& j) {
    const std::string type = StringAt(j, "type");
    if (type == "entity") {
      McpEntity(line, j, out);
    } else if (type == "relation") {
      McpRelation(line, j, out);
    } else {
      out.skipped.push_back({line, "\"type\" must be \"entity\" or \"relation\""});
    }
  });
  return out;
}

ForeignRecords ParseMem0(const ForeignFile& file, int64_t max_line_bytes) {
  ForeignRecords out;
  const std::string_view text = file.text;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return out;
  // A whole-file JSON value (a list, or get_all's {"results": [...]}); else
  // one memory per line.
  json whole;
  if (CheckJsonLimits(text, "the file", static_cast<int64_t>(text.size())).ok()) {
    whole = json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  const bool one_memory = whole.is_object() && whole.contains("memory");
  if (whole.is_discarded() || one_memory) {
    if (text[first] == '[') {
      out.skipped.push_back({0, "not valid JSON: expected a list of memories"});
      return out;
    }
    ForEachObjectLine(text, max_line_bytes, out,
                      [&](int64_t line, const json& j) { Mem0Memory(line, j, out); });
    return out;
  }
  std::string member;
  const json* list = &whole;
  if (whole.is_object()) {
    for (const char* name : {"results", "memories"}) {
      auto it = whole.find(name);
      if (it != whole.end() && it->is_array()) {
        member = name;
        list = &*it;
        break;
      }
    }
  }
  if (!list->is_array()) {
    out.skipped.push_back({0,
                           "expected a mem0 export: a JSON list of memories, {\"results\": "
                           "[...]} or one memory per line"});
    return out;
  }
  const std::vector<int64_t> lines = JsonListElementLines(text, member);
  for (size_t i = 0; i < list->size(); ++i) {
    Mem0Memory(i < lines.size() ? lines[i] : 0, (*list)[i], out);
  }
  return out;
}

ForeignRecords ParseJsonlEntries(const ForeignFile& file, int64_t max_line_bytes) {
  ForeignRecords out;
  ForEachObjectLine(file.text, max_line_bytes, out, [&](int64_t line, json j) {
    if (!j.contains("content") && j.contains("value")) j["content"] = j["value"];
    // The fields of mnemo's own entry lines (entry_json.h); ids and counters
    // are mnemo's and not taken from another tool's file.
    Result<Entry> e = EntryFromImportJson(j, "");
    if (!e.ok()) {
      out.skipped.push_back({line, e.status().message()});
      return;
    }
    ForeignEntry f{.line = line,
                   .key = std::move(e->key),
                   .ns = j.contains("namespace") ? std::move(e->ns) : std::string(),
                   .owner = std::move(e->owner),
                   .content = std::move(e->content),
                   .category = std::move(e->category),
                   .tags = std::move(e->tags),
                   .created_at = e->created_at,
                   .updated_at = e->updated_at};
    if (j.contains("visibility")) f.visibility = e->visibility;
    out.entries.push_back(std::move(f));
  });
  return out;
}

}  // namespace mnemo::internal

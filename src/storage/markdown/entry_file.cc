#include "storage/markdown/entry_file.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <utility>

#include "base/time.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::markdown {
namespace {

using nlohmann::json;

constexpr std::string_view kItemStart = "- **";
constexpr std::string_view kKeyEnd = "**:";
constexpr std::string_view kIndent = "    ";
constexpr std::string_view kPad = "<!-- -->";
constexpr std::string_view kMetaStart = " <!-- mnemo: ";
constexpr std::string_view kMetaEnd = " -->";

std::string EscapeKey(std::string_view key) {
  std::string out;
  for (const char c : key) {
    if (c == '*' || c == '\\' || c == '<') out += '\\';
    out += c;
  }
  return out;
}

// The key at the start of `s` (after "- **") up to an unescaped "**:";
// `end` receives the index just past "**:". nullopt when there is none.
std::optional<std::string> UnescapeKey(std::string_view s, size_t& end) {
  std::string key;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      key += s[++i];
      continue;
    }
    if (s.substr(i, kKeyEnd.size()) == kKeyEnd) {
      end = i + kKeyEnd.size();
      return key;
    }
    key += s[i];
  }
  return std::nullopt;
}

// For lines other than the last: an empty one would end the item once an
// editor strips its indentation, trailing blanks would be stripped, and a
// pad-like ending must survive the parser's removal of one pad.
bool NeedsPad(std::string_view line) {
  if (line.empty()) return true;
  const char last = line.back();
  return last == ' ' || last == '\t' || last == '\r' || line.ends_with(kPad);
}

// JSON text with "<" and ">" escaped, so it can sit inside an HTML comment.
std::string CommentSafe(const std::string& json_text) {
  std::string out;
  out.reserve(json_text.size());
  for (const char c : json_text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else {
      out += c;
    }
  }
  return out;
}

std::string MetaJson(const Entry& e) {
  json meta = {{"id", e.id},
               {"namespace", e.ns},
               {"tags", e.tags},
               {"owner", e.owner},
               {"visibility", VisibilityName(e.visibility)}};
  if (e.created_at != 0) meta["created_at"] = mnemo::internal::FormatRfc3339(e.created_at);
  if (e.updated_at != 0) meta["updated_at"] = mnemo::internal::FormatRfc3339(e.updated_at);
  return CommentSafe(meta.dump(-1, ' ', false, json::error_handler_t::replace));
}

std::optional<TimeMs> TimeField(const json& meta, const char* name) {
  auto it = meta.find(name);
  if (it == meta.end()) return TimeMs{0};
  if (!it->is_string()) return std::nullopt;
  return mnemo::internal::ParseRfc3339(it->get<std::string>());
}

// Applies the metadata JSON to `e`; false when it is not valid.
bool ApplyMeta(std::string_view text, Entry& e) {
  json meta = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!meta.is_object()) return false;
  auto str = [&](const char* name, std::string& out) {
    auto it = meta.find(name);
    if (it == meta.end()) return true;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return true;
  };
  std::string visibility = "private";
  if (!str("id", e.id) || !str("namespace", e.ns) || !str("owner", e.owner) ||
      !str("visibility", visibility)) {
    return false;
  }
  Result<Visibility> parsed = ParseVisibility(visibility);
  if (!parsed.ok()) return false;
  e.visibility = *parsed;
  if (auto tags = meta.find("tags"); tags != meta.end()) {
    if (!tags->is_array()) return false;
    e.tags.clear();
    for (const json& t : *tags) {
      if (!t.is_string()) return false;
      e.tags.push_back(t.get<std::string>());
    }
  }
  const std::optional<TimeMs> created = TimeField(meta, "created_at");
  const std::optional<TimeMs> updated = TimeField(meta, "updated_at");
  if (!created || !updated) return false;
  e.created_at = *created;
  e.updated_at = *updated;
  return true;
}

// Splits `text` at "\n". A content keeps a final empty line ("a\n" is "a"
// and ""); a file's final "\n" ends its last line instead.
std::vector<std::string_view> SplitLines(std::string_view text, bool keep_final_empty) {
  std::vector<std::string_view> lines;
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      if (keep_final_empty || start < text.size()) lines.push_back(text.substr(start));
      return lines;
    }
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string_view> FileLines(std::string_view text) { return SplitLines(text, false); }

std::string RenderItem(const Entry& entry) {
  const std::vector<std::string_view> lines = SplitLines(entry.content, true);
  std::string out;
  out += kItemStart;
  out += EscapeKey(entry.key);
  out += kKeyEnd;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (i == 0) {
      if (!lines[0].empty()) out += ' ';
    } else {
      out += '\n';
      out += kIndent;
    }
    out += lines[i];
    if (i + 1 < lines.size() && NeedsPad(lines[i])) out += kPad;
  }
  out += kMetaStart;
  out += MetaJson(entry);
  out += kMetaEnd;
  out += '\n';
  return out;
}

std::string RenderEntryFile(std::string_view title, const std::vector<Entry>& entries) {
  std::string out = "# ";
  out += title;
  out += "\n\n";
  for (const Entry& e : entries) out += RenderItem(e);
  return out;
}

ParsedFile ParseEntryFile(std::string_view text, std::string_view file, std::string_view category,
                          bool archived, std::string_view default_owner) {
  ParsedFile out;
  const std::vector<std::string_view> lines = FileLines(text);
  auto problem = [&](size_t line, const std::string& what) {
    out.problems.push_back(std::string(file) + ":" + std::to_string(line) + ": " + what +
                           "; the line was skipped");
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (!line.starts_with(kItemStart)) {
      if (line.starts_with("- ") || line.starts_with(kIndent)) {
        problem(i + 1, line.starts_with("- ") ? "expected an item \"- **key**: content\""
                                              : "an indented line outside an item");
      }
      continue;
    }
    size_t key_end = 0;
    std::optional<std::string> key = UnescapeKey(line.substr(kItemStart.size()), key_end);
    if (!key || key->empty()) {
      problem(i + 1, "an item without a \"**key**:\"");
      continue;
    }
    FileEntry fe;
    fe.line = static_cast<int>(i) + 1;
    fe.entry.key = std::move(*key);
    fe.entry.category = std::string(category);
    fe.entry.archived = archived;
    fe.entry.owner = std::string(default_owner);
    // The item's lines: this one and the indented ones after it.
    std::vector<std::string_view> parts;
    std::string_view first = line.substr(kItemStart.size() + key_end);
    if (first.starts_with(' ')) first.remove_prefix(1);
    parts.push_back(first);
    while (i + 1 < lines.size() && lines[i + 1].starts_with(kIndent)) {
      parts.push_back(lines[++i].substr(kIndent.size()));
    }
    fe.last_line = static_cast<int>(i) + 1;
    // Metadata at the end of the last line.
    std::string_view& last = parts.back();
    bool bad_meta = false;
    if (last.ends_with(kMetaEnd.substr(1))) {
      const size_t at = last.rfind(kMetaStart);
      const size_t bare = last.rfind(kMetaStart.substr(1));
      if (at != std::string_view::npos || bare == 0) {
        const size_t from = at != std::string_view::npos ? at : 0;
        const size_t json_from =
            from + (at != std::string_view::npos ? kMetaStart.size() : kMetaStart.size() - 1);
        const size_t json_end = last.size() - kMetaEnd.size();
        if (json_end >= json_from &&
            ApplyMeta(last.substr(json_from, json_end - json_from), fe.entry)) {
          fe.has_meta = true;
          last = last.substr(0, from);
        } else {
          bad_meta = true;
        }
      }
    }
    if (bad_meta) {
      problem(static_cast<size_t>(fe.line), "the item's <!-- mnemo: ... --> metadata is not valid");
      continue;
    }
    for (size_t p = 0; p < parts.size(); ++p) {
      std::string_view part = parts[p];
      if (p + 1 < parts.size() && part.ends_with(kPad)) part.remove_suffix(kPad.size());
      if (p > 0) fe.entry.content += '\n';
      fe.entry.content += part;
    }
    out.entries.push_back(std::move(fe));
  }
  return out;
}

std::string EntryFilePath(const Entry& entry) {
  std::string name;
  if (entry.category == "daily" || entry.category == "conversation") {
    name = entry.category + "/" + mnemo::internal::FormatRfc3339(entry.created_at).substr(0, 10) +
           ".md";
  } else {
    name = entry.category + ".md";
  }
  if (IsSystemNamespace(entry.ns)) name = "system/" + name;
  return entry.archived ? "archive/" + name : name;
}

}  // namespace mnemo::storage::markdown

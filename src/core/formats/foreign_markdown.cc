// The markdown formats of `mnemo import --from` (foreign_formats.h):
// basic-memory notes (front matter, observations, relations; the syntax of
// basic-memory's markdown plugins) and plain markdown notes.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "base/strings.h"
#include "core/formats/foreign_formats.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo::internal {
namespace {

// What a line of a note is trimmed of: spaces, tabs and a CRLF file's \r,
// never a newline (a body keeps its inner and leading line breaks).
constexpr std::string_view kLineBlank = " \t\r";

// Hex digits of SHA-256 in an observation's key: 64 bits, so that even a
// note of a million observations has a chance of about 3e-8 of one collision
// (32 bits dropped 3 of 100 000).
constexpr size_t kObservationHashDigits = 16;

constexpr std::string_view kLinksTo = "links_to";
constexpr size_t kMaxTagBytes = 64;
constexpr size_t kMaxTags = 32;

std::string Unquote(std::string_view s) {
  s = Trim(s, kLineBlank);
  if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) {
    s = s.substr(1, s.size() - 2);
  }
  return std::string(s);
}

// The lines of `text` from `offset` on, numbered from `first_line`.
struct Line {
  int64_t number = 0;
  std::string_view text;
};
std::vector<Line> LinesOf(std::string_view text, size_t offset, int64_t first_line) {
  std::vector<Line> out;
  int64_t number = first_line;
  size_t pos = offset;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back({number++, line});
    pos = end + 1;
  }
  return out;
}

// The file's name inside the folder without ".md" / ".markdown".
std::string Stem(const ForeignFile& file) {
  std::string path = file.relative.empty() ? file.name : file.relative;
  if (file.relative.empty()) {
    const size_t slash = path.rfind('/');
    if (slash != std::string::npos) path = path.substr(slash + 1);
  }
  for (std::string_view ext : {".md", ".markdown"}) {
    if (path.size() > ext.size() && path.ends_with(ext)) {
      path.resize(path.size() - ext.size());
      break;
    }
  }
  return path;
}

// basic-memory's permalink of a path: lower case, spaces and underscores
// as hyphens.
std::string PermalinkOf(std::string_view path) {
  std::string out;
  for (char c : path) {
    if (c == ' ' || c == '_') {
      out += '-';
    } else {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  return out;
}

void AddTag(std::vector<std::string>& tags, std::string_view tag) {
  tag = Trim(tag, kLineBlank);
  if (tag.empty() || tag.size() > kMaxTagBytes || tags.size() >= kMaxTags) return;
  if (std::find(tags.begin(), tags.end(), tag) == tags.end()) tags.emplace_back(tag);
}

// Front matter tags: a list, or one string of comma-separated tags.
std::vector<std::string> NoteTags(const FrontMatter& fm) {
  std::vector<std::string> tags;
  for (const std::string& value : fm.GetAll("tags")) {
    size_t pos = 0;
    while (pos <= value.size()) {
      size_t comma = value.find(',', pos);
      if (comma == std::string::npos) comma = value.size();
      AddTag(tags, std::string_view(value).substr(pos, comma - pos));
      pos = comma + 1;
    }
  }
  return tags;
}

// The text of a markdown list item ("- x", "* x", "+ x"), else nullopt.
std::optional<std::string_view> ListItem(std::string_view line) {
  line = Trim(line, kLineBlank);
  if (line.size() >= 2 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') {
    return Trim(line.substr(2), kLineBlank);
  }
  return std::nullopt;
}

bool IsClock(std::string_view s) {
  // [00:00:11], [1:02:03.500]: transcript timecodes, not categories.
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.' || c == ',' ||
           c == ' ' || c == '-';
  }) && s.find(':') != std::string_view::npos;
}

struct Observation {
  std::string category;
  std::string content;
  std::string context;
  std::vector<std::string> tags;
};

// "[category] content #tag (context)", or content with a #tag and no
// category; nullopt for anything else (tasks, links, plain items).
std::optional<Observation> ParseObservation(std::string_view item) {
  Observation o;
  std::string_view rest = item;
  // Wiki links and tasks ("[ ]", "[x]", "[-]") are not observations.
  if (item.starts_with("[[") || item.starts_with("[ ]") || item.starts_with("[x]") ||
      item.starts_with("[X]") || item.starts_with("[-]")) {
    return std::nullopt;
  }
  if (item.starts_with("[")) {
    const size_t close = item.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::string_view category = Trim(item.substr(1, close - 1), kLineBlank);
    const bool link = close + 1 < item.size() && item[close + 1] == '(';
    const bool valid =
        !category.empty() && category.find_first_of("[()") == std::string::npos &&
        !IsClock(category) &&
        !(category.size() == 1 && !std::isalnum(static_cast<unsigned char>(category[0])));
    if (link || !valid) return std::nullopt;
    if (close + 1 >= item.size() || item[close + 1] != ' ') return std::nullopt;
    o.category = std::string(category);
    rest = Trim(item.substr(close + 1), kLineBlank);
  }
  if (rest.empty()) return std::nullopt;
  if (rest.back() == ')') {
    const size_t open = rest.rfind('(');
    if (open != std::string_view::npos) {
      o.context = std::string(Trim(rest.substr(open + 1, rest.size() - open - 2), kLineBlank));
      rest = Trim(rest.substr(0, open), kLineBlank);
    }
  }
  size_t pos = 0;
  while (pos < rest.size()) {
    size_t end = rest.find_first_of(" \t", pos);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view word = rest.substr(pos, end - pos);
    if (word.starts_with('#')) {
      size_t p = 0;
      while (p < word.size()) {
        size_t hash = word.find('#', p + 1);
        if (hash == std::string_view::npos) hash = word.size();
        AddTag(o.tags, word.substr(p + 1, hash - p - 1));
        p = hash;
      }
    }
    pos = end + 1;
  }
  if (o.category.empty() && o.tags.empty()) return std::nullopt;
  o.content = std::string(rest);
  if (o.content.empty()) return std::nullopt;
  return o;
}

// A wiki link's target: "[[Target|shown]]" -> "Target".
std::string LinkTarget(std::string_view inner) {
  inner = inner.substr(0, inner.find('|'));
  return std::string(Trim(inner, kLineBlank));
}

// "relation_type [[Target]] (context)" or a quoted multi-word type.
std::optional<ForeignTriple> ParseRelation(std::string_view item) {
  const size_t open = item.find("[[");
  if (open == std::string_view::npos || open == 0) return std::nullopt;
  const size_t close = item.find("]]", open + 2);
  if (close == std::string_view::npos) return std::nullopt;
  std::string_view type = Trim(item.substr(0, open), kLineBlank);
  if (type.size() >= 2 && (type.front() == '"' || type.front() == '\'') &&
      type.back() == type.front()) {
    type = Trim(type.substr(1, type.size() - 2), kLineBlank);
  } else if (type.find_first_of(" \t") != std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view after = Trim(item.substr(close + 2), kLineBlank);
  if (!after.empty() &&
      !(after.front() == '(' && after.back() == ')' && after.find(')') == after.size() - 1)) {
    return std::nullopt;
  }
  std::string target = LinkTarget(item.substr(open + 2, close - open - 2));
  if (type.empty() || target.empty()) return std::nullopt;
  return ForeignTriple{.predicate = std::string(type), .object = std::move(target)};
}

// Every [[link]] of a line.
std::vector<std::string> InlineLinks(std::string_view line) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = line.find("[[", pos)) != std::string_view::npos) {
    const size_t close = line.find("]]", pos + 2);
    if (close == std::string_view::npos) break;
    std::string target = LinkTarget(line.substr(pos + 2, close - pos - 2));
    if (!target.empty()) out.push_back(std::move(target));
    pos = close + 2;
  }
  return out;
}

std::string_view Body(std::string_view text, const FrontMatter& fm) {
  return Trim(text.substr(std::min(fm.body_offset, text.size())), kLineBlank);
}

// The note's text without its front matter: leading blank lines and
// trailing whitespace dropped.
std::string NoteBody(std::string_view text, const FrontMatter& fm) {
  std::string_view body = text.substr(std::min(fm.body_offset, text.size()));
  const size_t first = body.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const size_t line_start = body.rfind('\n', first);
  body = body.substr(line_start == std::string_view::npos ? 0 : line_start + 1);
  return std::string(body.substr(0, body.find_last_not_of(" \t\r\n") + 1));
}

// What `value` opens and never closes ("a quote", "a [ list", "a { map"),
// else nullopt.
std::optional<std::string> UnclosedValue(std::string_view value) {
  if (value.empty()) return std::nullopt;
  const char first = value.front();
  if ((first == '"' || first == '\'') && (value.size() < 2 || value.back() != first)) {
    return std::string("a quote");
  }
  if (first == '[' && value.back() != ']') return std::string("a [ list");
  if (first == '{' && value.back() != '}') return std::string("a { map");
  return std::nullopt;
}

Status Malformed(int64_t line, std::string_view what) {
  return InvalidArgument("the front matter is malformed: its line " + std::to_string(line) + " " +
                         std::string(what));
}

// A YAML key at the start of a line: letters, digits, '_', '-', '.', then
// ':' and a space or the end.
bool IsKeyLine(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_' ||
                             line[i] == '-' || line[i] == '.')) {
    ++i;
  }
  return i > 0 && i < line.size() && line[i] == ':' &&
         (i + 1 == line.size() || line[i + 1] == ' ' || line[i + 1] == '\t');
}

}  // namespace

bool OpensFrontMatter(std::string_view text) {
  const size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  const std::vector<Line> lines = LinesOf(text, start, 1);
  if (lines.empty() || Trim(lines[0].text, kLineBlank) != "---") return false;
  for (size_t i = 1; i < lines.size(); ++i) {
    if (!Trim(lines[i].text, kLineBlank).empty()) return IsKeyLine(lines[i].text);
  }
  return false;
}

std::string FrontMatter::Get(std::string_view key) const {
  for (const auto& [k, values] : fields) {
    if (k == key && !values.empty()) return values.front();
  }
  return {};
}

std::vector<std::string> FrontMatter::GetAll(std::string_view key) const {
  for (const auto& [k, values] : fields) {
    if (k == key) return values;
  }
  return {};
}

Result<FrontMatter> ParseFrontMatter(std::string_view text) {
  FrontMatter fm;
  const size_t start = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;  // a byte order mark
  const std::vector<Line> lines = LinesOf(text, start, 1);
  if (lines.empty() || Trim(lines[0].text, kLineBlank) != "---") {
    fm.body_offset = start;
    return fm;
  }
  // The first malformed line; reported once the front matter's end is
  // found (without one, that it is never closed is the news).
  Status malformed;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view raw = lines[i].text;
    const size_t raw_end = static_cast<size_t>(raw.data() - text.data()) + raw.size();
    const size_t next = text.find('\n', raw_end);
    const size_t after = next == std::string_view::npos ? text.size() : next + 1;
    if (Trim(raw, kLineBlank) == "---" || Trim(raw, kLineBlank) == "...") {
      if (!malformed.ok()) return malformed;
      fm.present = true;
      fm.body_line = lines[i].number + 1;
      fm.body_offset = after;
      return fm;
    }
    const std::string_view line = Trim(raw, kLineBlank);
    if (line.empty() || line.starts_with('#')) continue;
    const bool indented = raw.starts_with(' ') || raw.starts_with('\t');
    if ((indented || line.starts_with("- ")) && !fm.fields.empty()) {
      if (line.starts_with("- ")) fm.fields.back().second.push_back(Unquote(line.substr(2)));
      continue;
    }
    if (indented) continue;
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || Trim(line.substr(0, colon), kLineBlank).empty()) {
      if (malformed.ok()) {
        malformed = Malformed(lines[i].number,
                              "is not \"key: value\", \"key:\", \"- item\" or an indented "
                              "continuation");
      }
      continue;
    }
    std::pair<std::string, std::vector<std::string>> field{
        std::string(Trim(line.substr(0, colon), kLineBlank)), {}};
    const std::string_view value = Trim(line.substr(colon + 1), kLineBlank);
    if (std::optional<std::string> open = UnclosedValue(value); open && malformed.ok()) {
      malformed = Malformed(lines[i].number, "opens " + *open + " that is never closed");
    }
    if (value.size() >= 2 && value.front() == '[' && value.back() == ']') {
      std::string_view inner = value.substr(1, value.size() - 2);
      size_t pos = 0;
      while (pos <= inner.size()) {
        size_t comma = inner.find(',', pos);
        if (comma == std::string_view::npos) comma = inner.size();
        std::string item = Unquote(inner.substr(pos, comma - pos));
        if (!item.empty()) field.second.push_back(std::move(item));
        pos = comma + 1;
      }
    } else if (!value.empty() && value != "|" && value != ">") {
      field.second.push_back(Unquote(value));
    }
    fm.fields.push_back(std::move(field));
  }
  return InvalidArgument(
      "the front matter opened on line 1 is never closed (a line \"---\" ends it)");
}

namespace {

// A note is text: one that is not valid UTF-8 is skipped whole, naming the
// line of the first bad byte (its title, tags and text would be mangled).
// A newline is never part of a multi-byte sequence, so some line is bad.
bool SkipUnlessUtf8(const ForeignFile& file, ForeignRecords& out) {
  if (text::IsValidUtf8(file.text)) return false;
  const std::string_view all = file.text;
  int64_t line = 1;
  for (size_t start = 0; start < all.size(); ++line) {
    const size_t end = all.find('\n', start);
    const size_t stop = end == std::string_view::npos ? all.size() : end + 1;
    if (!text::IsValidUtf8(all.substr(start, stop - start))) break;
    start = stop;
  }
  out.skipped.push_back({line, "the note is not valid UTF-8 text"});
  return true;
}

}  // namespace

ForeignRecords ParseMarkdownNote(const ForeignFile& file) {
  ForeignRecords out;
  if (SkipUnlessUtf8(file, out)) return out;
  // A plain note may open with a "---" rule that is no front matter: then
  // all of it is the note. One whose next line is a `key:` meant a front
  // matter: when that is malformed the note is skipped with why, not
  // imported with its front matter as its text.
  Result<FrontMatter> fm = ParseFrontMatter(file.text);
  if (!fm.ok()) {
    if (OpensFrontMatter(file.text)) {
      out.skipped.push_back({1, fm.status().message()});
      return out;
    }
    fm = FrontMatter{};
  }
  std::string content = NoteBody(file.text, *fm);
  if (text::IsBlank(content)) {
    out.skipped.push_back({0, "the note is empty"});
    return out;
  }
  out.entries.push_back({.line = fm->body_line,
                         .key = Stem(file),
                         .content = std::move(content),
                         .tags = NoteTags(*fm)});
  return out;
}

ForeignRecords ParseBasicMemoryNote(const ForeignFile& file) {
  ForeignRecords out;
  if (SkipUnlessUtf8(file, out)) return out;
  Result<FrontMatter> fm = ParseFrontMatter(file.text);
  if (!fm.ok()) {
    out.skipped.push_back({1, fm.status().message()});
    return out;
  }
  const std::string stem = Stem(file);
  std::string title = fm->Get("title");
  if (text::IsBlank(title)) {
    title = stem.substr(stem.rfind('/') == std::string::npos ? 0 : stem.rfind('/') + 1);
  }
  std::string permalink = fm->Get("permalink");
  if (text::IsBlank(permalink)) permalink = PermalinkOf(stem);
  const std::string type = fm->Get("type");
  const std::vector<std::string> note_tags = NoteTags(*fm);
  if (Body(file.text, *fm).empty() && !fm->present) {
    out.skipped.push_back({0, "the note is empty"});
    return out;
  }
  nlohmann::json meta{{"title", title},
                      {"permalink", permalink},
                      {"path", file.relative.empty() ? file.name : file.relative}};
  if (!type.empty()) meta["type"] = type;
  if (!note_tags.empty()) meta["tags"] = note_tags;
  out.documents.push_back({.line = 1,
                           .source = "basic-memory:" + permalink,
                           .meta = meta.dump(),
                           .content = file.text});
  if (!text::IsBlank(type) && type != "note") {
    out.triples.push_back({.line = 1, .subject = title, .predicate = "is_a", .object = type});
  }

  bool in_code = false;
  for (const Line& line : LinesOf(file.text, fm->body_offset, fm->body_line)) {
    const std::string_view trimmed = Trim(line.text, kLineBlank);
    if (trimmed.starts_with("```") || trimmed.starts_with("~~~")) {
      in_code = !in_code;
      continue;
    }
    if (in_code || trimmed.starts_with('>')) continue;  // code, quotes and callouts
    const std::optional<std::string_view> item = ListItem(line.text);
    if (item) {
      if (std::optional<ForeignTriple> rel = ParseRelation(*item)) {
        rel->line = line.number;
        rel->subject = title;
        out.triples.push_back(std::move(*rel));
        continue;
      }
      if (std::optional<Observation> obs = ParseObservation(*item)) {
        std::string content = title + ": " + obs->content;
        if (!obs->context.empty()) content += " (" + obs->context + ")";
        std::vector<std::string> tags;
        if (!obs->category.empty()) AddTag(tags, obs->category);
        for (const std::string& t : obs->tags) AddTag(tags, t);
        for (const std::string& t : note_tags) AddTag(tags, t);
        out.entries.push_back(
            {.line = line.number,
             .key =
                 permalink + "#" +
                 Sha256Hex(obs->category + "\n" + obs->content).substr(0, kObservationHashDigits),
             .content = std::move(content),
             .tags = std::move(tags)});
      }
    }
    for (std::string& target : InlineLinks(line.text)) {
      out.triples.push_back({.line = line.number,
                             .subject = title,
                             .predicate = std::string(kLinksTo),
                             .object = std::move(target)});
    }
  }
  if (out.entries.empty()) {
    std::string body = NoteBody(file.text, *fm);
    if (!text::IsBlank(body)) {
      out.entries.push_back(
          {.line = fm->body_line, .key = permalink, .content = std::move(body), .tags = note_tags});
    }
  }
  return out;
}

}  // namespace mnemo::internal

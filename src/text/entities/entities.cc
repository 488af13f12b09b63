#include "text/entities/entities.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <unordered_set>
#include <utility>

#include "base/strings.h"
#include "text/entities/entity_scanner.h"
#include "text/pipeline/segmenter.h"
#include "text/utf8.h"

// Hand-written scanners instead of std::regex: documents can be large tool
// outputs, and every scanner here stays linear on hostile input (each byte
// is looked at a bounded number of times).

namespace mnemo::text {
namespace internal {

bool IsSpace(int32_t cp) { return IsWhiteSpace(cp); }

bool IsForeignWordChar(int32_t cp) {
  if (cp < 0x80 || IsCjk(cp)) return false;
  return u_isUAlphabetic(cp) || (U_GET_GC_MASK(cp) & (U_GC_M_MASK | U_GC_ND_MASK)) != 0;
}

bool StartsWithNoCase(std::string_view s, size_t pos, std::string_view prefix) {
  if (pos > s.size() || s.size() - pos < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (LowerAscii(s[pos + i]) != prefix[i]) return false;
  }
  return true;
}

Cp EntityScanner::CpAt(size_t pos) const {
  if (pos >= text_.size()) return {};
  Cp c;
  c.len = static_cast<size_t>(DecodeUtf8(text_, pos, &c.cp));
  return c;
}

Cp EntityScanner::CpBefore(size_t pos) const {
  if (pos == 0 || pos > text_.size()) return {};
  const size_t start = mnemo::internal::Utf8SequenceStart(text_, pos);
  Cp c = CpAt(start);
  if (start + c.len != pos) return {.cp = -1, .len = 1};
  return c;
}

bool EntityScanner::IsFree(size_t begin, size_t end) const {
  for (size_t i = begin; i < end && i < taken_.size(); ++i) {
    if (taken_[i] != 0) return false;
  }
  return begin < end;
}

void EntityScanner::Add(EntityKind kind, size_t begin, size_t end) {
  if (original_.data() != text_.data() &&
      original_.substr(begin, end - begin) != text_.substr(begin, end - begin)) {
    return;
  }
  std::fill(taken_.begin() + static_cast<std::ptrdiff_t>(begin),
            taken_.begin() + static_cast<std::ptrdiff_t>(end), 1);
  found_.push_back(
      {.kind = kind, .text = std::string(text_.substr(begin, end - begin)), .offset = begin});
}

std::vector<Entity> EntityScanner::Take() && {
  // Spans never overlap, so offsets are distinct.
  std::sort(found_.begin(), found_.end(),
            [](const Entity& a, const Entity& b) { return a.offset < b.offset; });
  std::vector<Entity> out;
  std::unordered_set<std::string> seen;
  for (Entity& entity : found_) {
    std::string key(1, static_cast<char>(entity.kind));
    key += entity.text;
    if (seen.insert(std::move(key)).second) out.push_back(std::move(entity));
  }
  return out;
}

namespace {

bool IsOneOf(char c, std::string_view set) { return set.find(c) != std::string_view::npos; }

// ---------------------------------------------------------------------------
// E-mail addresses

bool IsLocalChar(char c) { return IsAsciiAlnum(c) || IsOneOf(c, "._%+-"); }
bool IsDomainChar(char c) { return IsAsciiAlnum(c) || c == '.' || c == '-'; }

void ScanEmails(EntityScanner& s) {
  const std::string_view t = s.text();
  // Each byte is visited by at most the scan left of the next '@' and the
  // scan right of the previous one: '@' is neither a local nor a domain byte.
  for (size_t at = t.find('@'); at != std::string_view::npos; at = t.find('@', at + 1)) {
    size_t begin = at;
    while (begin > 0 && IsLocalChar(t[begin - 1])) --begin;
    while (begin < at && t[begin] == '.') ++begin;
    size_t end = at + 1;
    while (end < t.size() && IsDomainChar(t[end])) ++end;
    while (end > at + 1 && (t[end - 1] == '.' || t[end - 1] == '-')) --end;
    if (begin == at || end == at + 1 || !IsAsciiAlnum(t[at + 1])) continue;
    const std::string_view domain = t.substr(at + 1, end - at - 1);
    const size_t dot = domain.rfind('.');
    if (dot == std::string_view::npos) continue;
    const std::string_view tld = domain.substr(dot + 1);
    if (tld.size() < 2 ||
        !std::all_of(tld.begin(), tld.end(), [](char c) { return IsAsciiAlpha(c); })) {
      continue;
    }
    if (IsForeignWordChar(s.CpBefore(begin).cp) || IsForeignWordChar(s.CpAt(end).cp)) continue;
    if (s.IsFree(begin, end)) s.Add(EntityKind::kEmail, begin, end);
  }
}

// ---------------------------------------------------------------------------
// URLs

constexpr std::string_view kUrlStarts[] = {"https://", "http://", "ftp://", "www."};

bool IsUrlChar(char c) {
  const auto b = static_cast<unsigned char>(c);
  return b > 0x20 && b < 0x7F && !IsOneOf(c, "\"'<>`{}|\\^");
}

// The end of the URL whose body starts at `body` and runs to `end`, without
// trailing sentence punctuation and unbalanced closing brackets
// ("(see https://x.io/a)." ends at "a", "https://w.org/A_(b)" keeps ")").
size_t TrimUrl(std::string_view t, size_t body, size_t end) {
  int parens = 0;
  int brackets = 0;
  for (size_t i = body; i < end; ++i) {
    if (t[i] == '(') ++parens;
    if (t[i] == ')') --parens;
    if (t[i] == '[') ++brackets;
    if (t[i] == ']') --brackets;
  }
  while (end > body) {
    const char last = t[end - 1];
    if (IsOneOf(last, ".,;:!?*")) {
      --end;
    } else if (last == ')' && parens < 0) {
      ++parens;
      --end;
    } else if (last == ']' && brackets < 0) {
      ++brackets;
      --end;
    } else {
      break;
    }
  }
  return end;
}

void ScanUrls(EntityScanner& s) {
  const std::string_view t = s.text();
  size_t i = 0;
  while (i < t.size()) {
    const char c = LowerAscii(t[i]);
    const bool may_start = (c == 'h' || c == 'f' || c == 'w') &&
                           (i == 0 || (!IsAsciiAlnum(t[i - 1]) && t[i - 1] != '_' &&
                                       !IsForeignWordChar(s.CpBefore(i).cp)));
    size_t scheme = 0;
    if (may_start) {
      for (std::string_view start : kUrlStarts) {
        if (StartsWithNoCase(t, i, start)) {
          scheme = start.size();
          break;
        }
      }
    }
    if (scheme == 0) {
      ++i;
      continue;
    }
    const size_t body = i + scheme;
    size_t end = body;
    while (end < t.size() && IsUrlChar(t[end])) ++end;
    const size_t run_end = end;
    end = TrimUrl(t, body, end);
    const size_t host_end = std::min(t.find('/', body), end);
    const std::string_view host = t.substr(body, host_end > body ? host_end - body : 0);
    const bool www = t[i] == 'w' || t[i] == 'W';
    const bool ok =
        end > body && IsAsciiAlnum(t[body]) && (!www || host.find('.') != std::string_view::npos);
    if (ok && s.IsFree(i, end)) s.Add(EntityKind::kUrl, i, end);
    i = std::max(run_end, i + 1);
  }
}

// ---------------------------------------------------------------------------
// Paths and file names

bool IsPathChar(char c) { return IsAsciiAlnum(c) || IsOneOf(c, "._-~+@%="); }

// What may stand right before a path: start, whitespace, an opening quote or
// bracket, '=', ':' (PATH=/usr/bin, "path":"/srv"), or a CJK character.
bool PathMayStartAt(const EntityScanner& s, size_t pos) {
  if (pos == 0) return true;
  const char before = s.At(pos - 1);
  if (static_cast<unsigned char>(before) >= 0x80) {
    const int32_t cp = s.CpBefore(pos).cp;
    return !IsForeignWordChar(cp);
  }
  return IsSpace(before) || IsOneOf(before, "\"'(<[{=,:;`*");
}

struct PathParts {
  size_t end = 0;
  int count = 0;          // non-empty parts
  bool trailing = false;  // ends with a separator
  size_t last_begin = 0;  // of the last part
};

// The parts of a path from `pos` (the start of its first part), separated
// by '/' (and '\' when `windows`). A final part loses trailing dots: they
// end the sentence ("see /etc/hosts.").
PathParts ParsePathParts(std::string_view t, size_t pos, bool windows) {
  PathParts r{.end = pos, .count = 0, .trailing = false, .last_begin = pos};
  size_t p = pos;
  for (;;) {
    const size_t begin = p;
    while (p < t.size() && IsPathChar(t[p])) ++p;
    if (p == begin) break;
    ++r.count;
    r.last_begin = begin;
    r.end = p;
    r.trailing = false;
    if (p < t.size() && (t[p] == '/' || (windows && t[p] == '\\'))) {
      ++p;
      r.end = p;
      r.trailing = true;
    } else {
      break;
    }
  }
  if (!r.trailing && r.count > 0) {
    while (r.end > r.last_begin && t[r.end - 1] == '.') --r.end;
    if (r.end == r.last_begin) {
      --r.count;
      r.trailing = r.count > 0;
    }
  }
  return r;
}

// Extensions of file names, lower-case: code, config, documents, data,
// media, archives.
constexpr std::string_view kFileExtensions[] = {
    "py",      "pyi",   "ipynb",  "js",      "mjs",  "cjs",  "ts",          "tsx",    "jsx",
    "c",       "h",     "cc",     "cpp",     "cxx",  "hpp",  "hh",          "go",     "rs",
    "java",    "kt",    "kts",    "swift",   "rb",   "php",  "cs",          "scala",  "lua",
    "pl",      "sh",    "bash",   "zsh",     "ps1",  "bat",  "sql",         "json",   "jsonl",
    "yaml",    "yml",   "toml",   "ini",     "cfg",  "conf", "xml",         "html",   "htm",
    "css",     "scss",  "vue",    "svelte",  "dart", "md",   "rst",         "txt",    "csv",
    "tsv",     "log",   "pdf",    "doc",     "docx", "xls",  "xlsx",        "ppt",    "pptx",
    "odt",     "rtf",   "tex",    "epub",    "png",  "jpg",  "jpeg",        "gif",    "svg",
    "webp",    "bmp",   "ico",    "mp3",     "mp4",  "wav",  "mov",         "mkv",    "zip",
    "tar",     "gz",    "tgz",    "bz2",     "xz",   "7z",   "rar",         "jar",    "exe",
    "dll",     "so",    "dylib",  "wasm",    "lock", "env",  "proto",       "gradle", "cmake",
    "tf",      "db",    "sqlite", "parquet", "pkl",  "onnx", "safetensors", "pem",    "crt",
    "service", "plist",
};

// Names that are all extension: ".env", ".gitignore".
constexpr std::string_view kDotFiles[] = {"env",          "gitignore", "gitattributes",
                                          "dockerignore", "bashrc",    "zshrc",
                                          "profile",      "npmrc",     "editorconfig"};

bool EqualsNoCase(std::string_view a, std::string_view lower) {
  return a.size() == lower.size() && StartsWithNoCase(a, 0, lower);
}

bool IsFileName(std::string_view token) {
  const size_t dot = token.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == token.size()) return false;
  const std::string_view name = token.substr(0, dot);
  const std::string_view ext = token.substr(dot + 1);
  if (name.empty()) {
    return std::any_of(std::begin(kDotFiles), std::end(kDotFiles),
                       [&](std::string_view f) { return EqualsNoCase(ext, f); });
  }
  if (!std::any_of(name.begin(), name.end(), [](char c) { return IsAsciiAlnum(c); })) return false;
  return std::any_of(std::begin(kFileExtensions), std::end(kFileExtensions),
                     [&](std::string_view e) { return EqualsNoCase(ext, e); });
}

void ScanPaths(EntityScanner& s) {
  const std::string_view t = s.text();
  size_t i = 0;
  while (i < t.size()) {
    if (!PathMayStartAt(s, i) || s.IsTaken(i)) {
      ++i;
      continue;
    }
    const char c = t[i];
    PathParts parts;
    bool ok = false;
    if (c == '/') {
      parts = ParsePathParts(t, i + 1, false);
      ok = parts.count >= 2 || (parts.count == 1 && parts.trailing);
    } else if ((c == '~' || c == '.') && s.At(i + 1) == '/') {
      parts = ParsePathParts(t, i + 2, false);
      ok = parts.count >= 1;
    } else if (c == '.' && s.At(i + 1) == '.' && s.At(i + 2) == '/') {
      parts = ParsePathParts(t, i + 3, false);
      ok = parts.count >= 1;
    } else if (IsAsciiAlpha(c) && s.At(i + 1) == ':' &&
               (s.At(i + 2) == '\\' || s.At(i + 2) == '/')) {
      parts = ParsePathParts(t, i + 3, true);
      ok = parts.count >= 1;
    } else if (IsAsciiAlnum(c)) {
      parts = ParsePathParts(t, i, false);
      const std::string_view path = t.substr(i, parts.end - i);
      ok = parts.count >= 2 &&
           (parts.trailing ||
            IsFileName(t.substr(parts.last_begin, parts.end - parts.last_begin))) &&
           std::any_of(path.begin(), path.end(), [](char b) { return IsAsciiAlpha(b); });
      if (!ok) {
        // Positions inside the first part cannot start a path: skip it.
        size_t next = i;
        while (next < t.size() && IsPathChar(t[next])) ++next;
        i = std::max(next, i + 1);
        continue;
      }
    }
    if (ok && s.IsFree(i, parts.end) && !IsForeignWordChar(s.CpAt(parts.end).cp)) {
      s.Add(EntityKind::kPath, i, parts.end);
      i = parts.end;
      continue;
    }
    ++i;
  }
}

bool IsFileChar(char c) { return IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.'; }

void ScanFiles(EntityScanner& s) {
  const std::string_view t = s.text();
  size_t i = 0;
  while (i < t.size()) {
    if (!IsFileChar(t[i])) {
      ++i;
      continue;
    }
    size_t run_end = i;
    while (run_end < t.size() && IsFileChar(t[run_end])) ++run_end;
    size_t end = run_end;
    while (end > i && (t[end - 1] == '.' || t[end - 1] == '-')) --end;
    // Not a piece of a path, address or larger word.
    const char before = i > 0 ? t[i - 1] : ' ';
    const char after = s.At(run_end);
    const bool alone = !IsOneOf(before, "/\\@~") && !IsForeignWordChar(s.CpBefore(i).cp) &&
                       (after == '\0' || !IsOneOf(after, "/\\@")) &&
                       !IsForeignWordChar(s.CpAt(run_end).cp);
    if (alone && IsFileName(t.substr(i, end - i)) && s.IsFree(i, end)) {
      s.Add(EntityKind::kFile, i, end);
    }
    i = run_end;
  }
}

// ---------------------------------------------------------------------------
// Identifiers

bool IsIdentChar(char c) { return IsAsciiAlnum(c) || c == '_'; }

// "#123": returns its end, or `pos` when there is none.
size_t MatchIssueNumber(std::string_view t, size_t pos) {
  size_t p = pos + 1;
  while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  if (p == pos + 1 || (p < t.size() && IsIdentChar(t[p]))) return pos;
  return p;
}

// "v1.2", "v1.2.3", "1.2.3": returns its end, or `pos`.
size_t MatchVersion(std::string_view t, size_t pos) {
  const bool v = t[pos] == 'v' || t[pos] == 'V';
  size_t p = v ? pos + 1 : pos;
  if (p >= t.size() || !IsAsciiDigit(t[p])) return pos;
  while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  int dots = 0;
  while (p + 1 < t.size() && t[p] == '.' && IsAsciiDigit(t[p + 1])) {
    ++dots;
    p += 1;
    while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  }
  if (dots < (v ? 1 : 2) || (p < t.size() && IsIdentChar(t[p]))) return pos;
  return p;
}

// "ABC-123", "PROJ2-7": 2+ capitals, more capitals or digits, '-', digits.
size_t MatchTicket(std::string_view t, size_t pos) {
  size_t p = pos;
  while (p < t.size() && IsAsciiUpper(t[p])) ++p;
  if (p - pos < 2) return pos;
  while (p < t.size() && (IsAsciiUpper(t[p]) || IsAsciiDigit(t[p]))) ++p;
  if (p + 1 >= t.size() || t[p] != '-' || !IsAsciiDigit(t[p + 1])) return pos;
  ++p;
  while (p < t.size() && IsAsciiDigit(t[p])) ++p;
  if (p < t.size() && IsIdentChar(t[p])) return pos;
  return p;
}

// snake_case and SCREAMING_CASE (an '_' between letters or digits, or a
// __dunder__; not Markdown's _emphasis_), camelCase, PascalCase with an
// inner capital.
bool IsCodeWord(std::string_view w) {
  size_t alnum = 0;
  bool letter = false;
  bool joined = w.size() > 4 && w.starts_with("__") && w.ends_with("__");
  bool inner_capital = false;  // an upper-case letter right after a lower-case one or digit
  for (size_t i = 0; i < w.size(); ++i) {
    const char c = w[i];
    if (c == '_') {
      joined =
          joined || (i > 0 && i + 1 < w.size() && IsAsciiAlnum(w[i - 1]) && IsAsciiAlnum(w[i + 1]));
      continue;
    }
    ++alnum;
    letter = letter || IsAsciiAlpha(c);
    if (i > 0 && IsAsciiUpper(c) &&
        (IsAsciiLower(w[i - 1]) || (IsAsciiDigit(w[i - 1]) && IsAsciiLower(w[0])))) {
      inner_capital = true;
    }
  }
  if (!letter || alnum < 2) return false;
  if (joined) return true;
  if (w.find('_') != std::string_view::npos) return false;
  if (IsAsciiLower(w[0])) return inner_capital && w.size() >= 3;
  return IsAsciiUpper(w[0]) && inner_capital;
}

void ScanIdentifiers(EntityScanner& s) {
  const std::string_view t = s.text();
  size_t i = 0;
  while (i < t.size()) {
    const char c = t[i];
    const bool starts = (IsIdentChar(c) || c == '#') && (i == 0 || !IsIdentChar(t[i - 1])) &&
                        !IsForeignWordChar(s.CpBefore(i).cp);
    if (!starts) {
      ++i;
      continue;
    }
    size_t end = i;
    if (c == '#') {
      end = MatchIssueNumber(t, i);
    } else {
      end = MatchVersion(t, i);
      if (end == i) end = MatchTicket(t, i);
      if (end == i) {
        size_t run = i;
        while (run < t.size() && IsIdentChar(t[run])) ++run;
        if (IsCodeWord(t.substr(i, run - i))) end = run;
        if (end == i) {
          i = run;
          continue;
        }
      }
    }
    if (end > i && !IsForeignWordChar(s.CpAt(end).cp) && s.IsFree(i, end)) {
      s.Add(EntityKind::kIdentifier, i, end);
    }
    i = std::max(end, i + 1);
  }
}

}  // namespace
}  // namespace internal

std::string_view EntityKindName(EntityKind kind) {
  switch (kind) {
    case EntityKind::kName: return "name";
    case EntityKind::kIdentifier: return "identifier";
    case EntityKind::kFile: return "file";
    case EntityKind::kPath: return "path";
    case EntityKind::kEmail: return "email";
    case EntityKind::kUrl: return "url";
    case EntityKind::kQuantity: return "quantity";
  }
  return "name";
}

std::vector<Entity> ExtractEntities(std::string_view text) {
  std::string storage;
  const std::string_view prepared = PrepareText(text, &storage);
  internal::EntityScanner scanner(text, prepared);
  internal::ScanEmails(scanner);
  internal::ScanUrls(scanner);
  internal::ScanPaths(scanner);
  internal::ScanFiles(scanner);
  internal::ScanIdentifiers(scanner);
  internal::ScanQuantities(scanner);
  internal::ScanNames(scanner);
  return std::move(scanner).Take();
}

}  // namespace mnemo::text

#include "text/strip.h"

#include <unicode/uchar.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

// ---- strip_html ------------------------------------------------------------

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiAlnum(char c) { return IsAsciiAlpha(c) || (c >= '0' && c <= '9'); }
char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

bool StartsWithNoCase(std::string_view s, size_t pos, std::string_view prefix) {
  if (s.size() - pos < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(s[pos + i]) != prefix[i]) return false;
  }
  return true;
}

// Elements whose start and end tags begin a new line of rendered text.
constexpr std::string_view kBlockTags[] = {
    "address",    "article", "aside",  "blockquote", "body",   "br", "caption",
    "dd",         "details", "dialog", "div",        "dl",     "dt", "fieldset",
    "figcaption", "figure",  "footer", "form",       "h1",     "h2", "h3",
    "h4",         "h5",      "h6",     "head",       "header", "hr", "html",
    "li",         "main",    "nav",    "ol",         "option", "p",  "pre",
    "section",    "summary", "table",  "title",      "tr",     "ul"};

bool IsBlockTag(std::string_view name) {
  for (std::string_view t : kBlockTags) {
    if (t == name) return true;
  }
  return false;
}

// Position of the '>' that closes the tag whose name starts at `pos`, or
// npos when none does (no '>' left, or an attribute quote never closed).
// Quoted attribute values (after '=') may hold '>'.
size_t FindTagEnd(std::string_view s, size_t pos) {
  for (size_t i = pos; i < s.size(); ++i) {
    if (s[i] == '>') return i;
    if (s[i] != '=') continue;
    size_t j = i + 1;
    while (j < s.size() && IsSpace(s[j])) ++j;
    if (j < s.size() && (s[j] == '"' || s[j] == '\'')) {
      const size_t close = s.find(s[j], j + 1);
      if (close == std::string_view::npos) return std::string_view::npos;
      i = close;
    }
  }
  return std::string_view::npos;
}

// Position just past the end tag "</name ...>" at or after `pos`, or the
// end of `s` when there is none (raw text runs to the end, as in browsers).
size_t SkipRawText(std::string_view s, size_t pos, std::string_view name) {
  for (size_t i = s.find("</", pos); i != std::string_view::npos; i = s.find("</", i + 2)) {
    const size_t after = i + 2 + name.size();
    if (StartsWithNoCase(s, i + 2, name) && (after == s.size() || !IsAsciiAlnum(s[after]))) {
      const size_t close = s.find('>', after);
      return close == std::string_view::npos ? s.size() : close + 1;
    }
  }
  return s.size();
}

struct NamedEntity {
  std::string_view name;
  std::string_view text;
};
// The entities tool outputs actually use; &nbsp; is a plain space because
// computation text wants word breaks, not layout.
constexpr NamedEntity kEntities[] = {
    {"amp", "&"},
    {"lt", "<"},
    {"gt", ">"},
    {"quot", "\""},
    {"apos", "'"},
    {"nbsp", " "},
    {"copy", "\xC2\xA9"},
    {"reg", "\xC2\xAE"},
    {"trade", "\xE2\x84\xA2"},
    {"hellip", "\xE2\x80\xA6"},
    {"mdash", "\xE2\x80\x94"},
    {"ndash", "\xE2\x80\x93"},
    {"lsquo", "\xE2\x80\x98"},
    {"rsquo", "\xE2\x80\x99"},
    {"ldquo", "\xE2\x80\x9C"},
    {"rdquo", "\xE2\x80\x9D"},
    {"laquo", "\xC2\xAB"},
    {"raquo", "\xC2\xBB"},
    {"middot", "\xC2\xB7"},
    {"bull", "\xE2\x80\xA2"},
    {"euro", "\xE2\x82\xAC"},
};

// Decodes "#NN" or "#xNN" (without '&' and ';'); nullopt when it is not a
// numeric reference. Out-of-range values, surrogates and NUL give U+FFFD.
std::optional<char32_t> NumericEntity(std::string_view body) {
  if (body.size() < 2 || body[0] != '#') return std::nullopt;
  const bool hex = body[1] == 'x' || body[1] == 'X';
  const std::string_view digits = body.substr(hex ? 2 : 1);
  if (digits.empty()) return std::nullopt;
  uint32_t value = 0;
  for (char c : digits) {
    uint32_t d = 0;
    if (c >= '0' && c <= '9') {
      d = c - '0';
    } else if (hex && AsciiLower(c) >= 'a' && AsciiLower(c) <= 'f') {
      d = AsciiLower(c) - 'a' + 10;
    } else {
      return std::nullopt;
    }
    value = std::min<uint32_t>(value * (hex ? 16 : 10) + d, 0x110000);
  }
  if (value == 0 || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return 0xFFFD;
  return static_cast<char32_t>(value);
}

// Decodes the character reference at s[pos] == '&' into *out and returns
// the position after it; an unknown one is copied as text.
size_t DecodeEntity(std::string_view s, size_t pos, std::string* out) {
  constexpr size_t kLongestEntity = 10;  // "#x10FFFF" and the names above fit
  const size_t semi = s.substr(pos + 1, kLongestEntity).find(';');
  if (semi != std::string_view::npos) {
    const std::string_view body = s.substr(pos + 1, semi);
    if (const std::optional<char32_t> cp = NumericEntity(body)) {
      AppendUtf8(*cp, out);
      return pos + semi + 2;
    }
    for (const NamedEntity& e : kEntities) {
      if (e.name == body) {
        out->append(e.text);
        return pos + semi + 2;
      }
    }
  }
  out->push_back('&');
  return pos + 1;
}

// Appends text with its character references decoded.
void AppendText(std::string_view s, std::string* out) {
  size_t i = 0;
  for (size_t amp = s.find('&'); amp != std::string_view::npos; amp = s.find('&', i)) {
    out->append(s.substr(i, amp - i));
    i = DecodeEntity(s, amp, out);
  }
  out->append(s.substr(i));
}

// Handles the markup at s[lt] == '<' and returns the position after it.
size_t ConsumeMarkup(std::string_view s, size_t lt, std::string* out) {
  constexpr size_t kNone = std::string_view::npos;
  if (s.compare(lt, 4, "<!--") == 0) {
    const size_t end = s.find("-->", lt + 4);
    return end == kNone ? s.size() : end + 3;
  }
  if (s.compare(lt, 9, "<![CDATA[") == 0) {
    const size_t end = s.find("]]>", lt + 9);
    out->append(s.substr(lt + 9, end == kNone ? kNone : end - lt - 9));
    return end == kNone ? s.size() : end + 3;
  }
  const char next = lt + 1 < s.size() ? s[lt + 1] : '\0';
  const bool closing = next == '/';
  const bool declaration = next == '!' || next == '?';
  const size_t name_start = lt + (closing ? 2 : 1);
  if (!declaration && (name_start >= s.size() || !IsAsciiAlpha(s[name_start]))) {
    out->push_back('<');
    return lt + 1;
  }
  const size_t end = FindTagEnd(s, name_start);
  if (end == kNone) {
    // Nothing after this point closes a tag: the rest is text. Stopping
    // here (rather than retrying at the next '<') keeps the pass linear.
    out->push_back('<');
    AppendText(s.substr(lt + 1), out);
    return s.size();
  }
  if (declaration) return end + 1;
  std::string name;
  for (size_t j = name_start; j < end && IsAsciiAlnum(s[j]); ++j) name += AsciiLower(s[j]);
  if (!closing && (name == "script" || name == "style")) return SkipRawText(s, end + 1, name);
  if (IsBlockTag(name)) {
    out->push_back('\n');
  } else if (name == "td" || name == "th") {
    out->push_back(' ');
  }
  return end + 1;
}

// ---- strip_ansi ------------------------------------------------------------

bool InRange(unsigned char b, unsigned char lo, unsigned char hi) { return b >= lo && b <= hi; }
unsigned char Byte(std::string_view s, size_t i) { return static_cast<unsigned char>(s[i]); }

// CSI: parameter and intermediate bytes (0x20..0x3F), then one final byte
// (0x40..0x7E). A malformed sequence ends before the offending byte.
size_t SkipCsi(std::string_view s, size_t i) {
  while (i < s.size() && InRange(Byte(s, i), 0x20, 0x3F)) ++i;
  if (i < s.size() && InRange(Byte(s, i), 0x40, 0x7E)) ++i;
  return i;
}

// OSC, DCS, SOS, PM, APC: a string up to BEL or ST (ESC \ or U+009C).
size_t SkipControlString(std::string_view s, size_t i) {
  for (; i < s.size(); ++i) {
    if (s[i] == '\x07') return i + 1;
    if (i + 1 < s.size() &&
        ((s[i] == '\x1B' && s[i + 1] == '\\') || (Byte(s, i) == 0xC2 && Byte(s, i + 1) == 0x9C))) {
      return i + 2;
    }
  }
  return s.size();
}

// After ESC at s[i - 1].
size_t SkipEscape(std::string_view s, size_t i) {
  if (i == s.size()) return i;
  switch (s[i]) {
    case '[': return SkipCsi(s, i + 1);
    case ']':
    case 'P':
    case 'X':
    case '^':
    case '_': return SkipControlString(s, i + 1);
    default: break;
  }
  // Other escape sequences: intermediates 0x20..0x2F, then a final byte.
  while (i < s.size() && InRange(Byte(s, i), 0x20, 0x2F)) ++i;
  if (i < s.size() && InRange(Byte(s, i), 0x30, 0x7E)) ++i;
  return i;
}

// ---- collapse_whitespace ---------------------------------------------------

bool IsLineBreak(int32_t cp) {
  return (cp >= '\n' && cp <= '\r') || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

}  // namespace

std::string StripHtml(std::string_view html) {
  std::string out;
  out.reserve(html.size());
  size_t i = 0;
  while (i < html.size()) {
    const size_t lt = html.find('<', i);
    AppendText(html.substr(i, lt == std::string_view::npos ? lt : lt - i), &out);
    if (lt == std::string_view::npos) break;
    i = ConsumeMarkup(html, lt, &out);
  }
  return out;
}

std::string StripAnsi(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char b = Byte(s, i);
    if (b == 0x1B) {
      i = SkipEscape(s, i + 1);
    } else if (b == 0xC2 && i + 1 < s.size() && InRange(Byte(s, i + 1), 0x80, 0x9F)) {
      // A C1 control (U+0080..U+009F); CSI and the string introducers have
      // 8-bit forms.
      const unsigned char c1 = Byte(s, i + 1);
      if (c1 == 0x9B) {
        i = SkipCsi(s, i + 2);
      } else if (c1 == 0x90 || c1 == 0x98 || c1 == 0x9D || c1 == 0x9E || c1 == 0x9F) {
        i = SkipControlString(s, i + 2);
      } else {
        i += 2;
      }
    } else if (b == '\r') {
      out.push_back('\n');
      i += (i + 1 < s.size() && s[i + 1] == '\n') ? 2 : 1;
    } else if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7F) {
      ++i;
    } else {
      out.push_back(static_cast<char>(b));
      ++i;
    }
  }
  return out;
}

namespace {

// Each run of White_Space becomes one space, or one "\n" when `keep_breaks`
// and the run holds a line break; leading and trailing runs go.
std::string Collapse(std::string_view s, bool keep_breaks) {
  std::string out;
  out.reserve(s.size());
  bool in_run = false;
  bool run_has_break = false;
  for (size_t i = 0; i < s.size();) {
    int32_t cp = 0;
    const int len = DecodeUtf8(s, i, &cp);
    if (IsWhiteSpace(cp)) {
      in_run = true;
      run_has_break = run_has_break || (keep_breaks && IsLineBreak(cp));
    } else {
      if (in_run && !out.empty()) out.push_back(run_has_break ? '\n' : ' ');
      in_run = run_has_break = false;
      out.append(s.substr(i, len));
    }
    i += len;
  }
  return out;
}

}  // namespace

std::string CollapseWhitespace(std::string_view s) { return Collapse(s, true); }

std::string CollapseToLine(std::string_view s) { return Collapse(s, false); }

bool IsBlank(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    int32_t cp = 0;
    const int len = DecodeUtf8(s, i, &cp);
    if (!IsWhiteSpace(cp)) return false;
    i += len;
  }
  return true;
}

}  // namespace mnemo::text

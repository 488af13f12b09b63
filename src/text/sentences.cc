#include "text/sentences.h"

#include <cstdint>

#include "text/trim.h"
#include "text/utf8.h"

// A hand-written scanner instead of std::regex or ICU's sentence iterator:
// it runs on every captured turn, must stay linear on hostile input, and
// ICU's rules split "sarah@example.com. Then" and "3.14" differently from
// what edicts and events need.

namespace mnemo::text {
namespace {

CodePoint At(std::string_view s, size_t pos) { return DecodeAt(s, pos); }

bool IsSpace(int32_t cp) { return IsWhiteSpace(cp); }

bool IsLineBreak(int32_t cp) {
  return (cp >= 0x0A && cp <= 0x0D) || cp == 0x85 || cp == 0x2028 || cp == 0x2029;
}

bool IsAsciiTerminator(int32_t cp, const SentenceOptions& options) {
  return cp == '.' || cp == '!' || cp == '?' || (cp == ';' && options.split_on_semicolon);
}

// 。！？ and ；
bool IsWideTerminator(int32_t cp, const SentenceOptions& options) {
  return cp == 0x3002 || cp == 0xFF01 || cp == 0xFF1F ||
         (cp == 0xFF1B && options.split_on_semicolon);
}

bool IsAsciiAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAsciiDigit(unsigned char c) { return c >= '0' && c <= '9'; }
char LowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

// Abbreviations whose period does not end a sentence ("e.g." "Mr.").
constexpr std::string_view kAbbreviations[] = {"e.g", "i.e", "etc", "mr", "mrs",
                                               "ms",  "dr",  "vs",  "st"};

// Whether the '.' at `dot` ends an abbreviation or a single capital initial
// ("J. Smith"). Only [A-Za-z.] runs of up to 4 bytes are looked at, so the
// look-back is bounded whatever the input.
bool IsAbbreviationDot(std::string_view text, size_t dot) {
  constexpr size_t kMaxToken = 4;
  size_t begin = dot;
  while (begin > 0 && dot - begin < kMaxToken + 1 &&
         (IsAsciiAlpha(text[begin - 1]) || text[begin - 1] == '.')) {
    --begin;
  }
  if (begin == dot || dot - begin > kMaxToken) return false;
  if (begin > 0) {
    const auto before = static_cast<unsigned char>(text[begin - 1]);
    if (before >= 0x80 || IsAsciiDigit(before)) return false;  // glued to another word
  }
  const std::string_view token = text.substr(begin, dot - begin);
  if (token.size() == 1 && token[0] >= 'A' && token[0] <= 'Z') return true;
  for (std::string_view abbreviation : kAbbreviations) {
    if (abbreviation.size() != token.size()) continue;
    bool same = true;
    for (size_t i = 0; i < token.size() && same; ++i)
      same = LowerAscii(token[i]) == abbreviation[i];
    if (same) return true;
  }
  return false;
}

}  // namespace

bool IsSentenceCloser(int32_t cp) {
  switch (cp) {
    case '"':
    case '\'':
    case ')':
    case ']':
    case '}':
    case 0x00BB:  // »
    case 0x2019:  // ’
    case 0x201D:  // ”
    case 0x2026:  // …
    case 0x300B:  // 》
    case 0x300D:  // 」
    case 0x300F:  // 』
    case 0x3011:  // 】
    case 0xFF09:  // ）
      return true;
    default: return false;
  }
}

std::vector<std::string> SplitSentences(std::string_view text, const SentenceOptions& options) {
  std::vector<std::string> out;
  size_t start = 0;
  // [start, content_end) is the sentence without its closing punctuation,
  // the part whose length decides whether it is kept.
  auto emit = [&](size_t content_end, size_t end) {
    const std::string_view sentence = TrimWhiteSpace(text.substr(start, end - start));
    if (!sentence.empty() &&
        TrimWhiteSpace(text.substr(start, content_end - start)).size() >= options.min_bytes) {
      out.emplace_back(sentence);
    }
    start = end;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const CodePoint c = At(text, pos);
    if (IsLineBreak(c.cp)) {
      emit(pos, pos);
      pos += c.len;
      start = pos;
      continue;
    }
    bool wide = IsWideTerminator(c.cp, options);
    if (!wide && !IsAsciiTerminator(c.cp, options)) {
      pos += c.len;
      continue;
    }
    // The whole run of terminators and closers ("?!", "...", ".\"", "。」").
    size_t end = pos + c.len;
    bool single_dot = c.cp == '.';
    while (end < text.size()) {
      const CodePoint d = At(text, end);
      if (IsWideTerminator(d.cp, options)) {
        wide = true;
        single_dot = false;
      } else if (IsAsciiTerminator(d.cp, options)) {
        single_dot = false;
      } else if (!IsSentenceCloser(d.cp)) {
        break;
      }
      end += d.len;
    }
    // ASCII punctuation glued to more ASCII is part of a token, not an end:
    // e-mail addresses, URLs, file names, decimals, version numbers.
    bool ends_here =
        wide || end == text.size() || IsSpace(At(text, end).cp) ||
        (options.split_before_non_ascii && static_cast<unsigned char>(text[end]) >= 0x80);
    if (ends_here && single_dot && !wide && options.keep_abbreviations &&
        IsAbbreviationDot(text, pos)) {
      ends_here = false;
    }
    if (ends_here) emit(pos, end);
    pos = end;
  }
  emit(text.size(), text.size());
  return out;
}

}  // namespace mnemo::text

// UTF-8 helpers shared by the text layer. All functions accept arbitrary bytes
// and never read past the end of their input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mnemo::text {

// The replacement character U+FFFD encoded as UTF-8.
inline constexpr std::string_view kReplacementChar = "\xEF\xBF\xBD";

// Decodes one code point at s[pos] (pos < s.size()). On success stores it in
// *cp and returns its byte length (1..4). On an ill-formed sequence stores
// -1 and returns the length of its maximal subpart (>= 1), the unit that
// Unicode's "U+FFFD substitution of maximal subparts" replaces.
int DecodeUtf8(std::string_view s, size_t pos, int32_t* cp);

// Decodes a well-formed three-byte sequence at s[pos] (pos < s.size()):
// U+1000..U+FFFF but the surrogates, all of CJK outside the supplementary
// planes. Stores it in *cp and returns true; false for anything else (every
// lead byte but E0 and ED accepts any continuation byte second, so those two
// are left to DecodeUtf8).
inline bool DecodeThreeByte(std::string_view s, size_t pos, int32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[pos]);
  if (b0 < 0xE1 || b0 > 0xEF || b0 == 0xED || pos + 3 > s.size()) return false;
  const auto b1 = static_cast<unsigned char>(s[pos + 1]);
  const auto b2 = static_cast<unsigned char>(s[pos + 2]);
  if ((b1 & 0xC0) != 0x80 || (b2 & 0xC0) != 0x80) return false;
  *cp = ((b0 & 0x0F) << 12) | ((b1 & 0x3F) << 6) | (b2 & 0x3F);
  return true;
}

struct CodePoint {
  int32_t cp = -1;  // -1 for an ill-formed sequence
  size_t len = 1;   // bytes
};

// The code point at s[pos] (pos < s.size()). ASCII and the well-formed
// three-byte sequences (CJK) are decoded inline: byte scanners call this for
// every character.
inline CodePoint DecodeAt(std::string_view s, size_t pos) {
  const auto byte = static_cast<unsigned char>(s[pos]);
  if (byte < 0x80) return {.cp = byte, .len = 1};
  CodePoint c;
  if (DecodeThreeByte(s, pos, &c.cp)) {
    c.len = 3;
    return c;
  }
  c.len = static_cast<size_t>(DecodeUtf8(s, pos, &c.cp));
  return c;
}

// Unicode White_Space (PropList.txt), ASCII and line breaks included.
inline bool IsWhiteSpace(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

// Appends the UTF-8 encoding of `cp` (a scalar value) to *out.
void AppendUtf8(char32_t cp, std::string* out);

// Strict UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF,
// no truncated sequences.
bool IsValidUtf8(std::string_view s);

// Returns `s` with every ill-formed sequence (maximal subpart) replaced by
// U+FFFD. Valid input is returned unchanged.
std::string SanitizeUtf8(std::string_view s);

// Number of code points; each ill-formed maximal subpart counts as one.
size_t CountCodePoints(std::string_view s);

// Byte length of the longest prefix of `s` holding at most `max_codepoints`
// code points. Never ends inside a well-formed sequence.
size_t Utf8PrefixBytes(std::string_view s, size_t max_codepoints);

// True when every byte is < 0x80.
bool IsAscii(std::string_view s);

}  // namespace mnemo::text

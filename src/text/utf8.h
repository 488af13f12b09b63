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

// Byte-level string helpers for every layer: trimming a set of ASCII
// characters, cutting a string at a byte limit without splitting a UTF-8
// sequence, and finding where the sequence before a position starts. Trimming Unicode White_Space
// needs a decoder and is text::TrimWhiteSpace (text/utf8.h). All functions accept arbitrary bytes.
#pragma once

#include <cstddef>
#include <string_view>

namespace mnemo::internal {

// ASCII whitespace: what std::isspace accepts in the C locale.
inline constexpr std::string_view kAsciiWhiteSpace = " \t\n\v\f\r";

// `s` without the leading and trailing bytes found in `chars` (a view into
// `s`; empty when only such bytes remain).
std::string_view Trim(std::string_view s, std::string_view chars = kAsciiWhiteSpace);

// The length of the longest prefix of `s` of at most `max_bytes` bytes that
// does not end inside a UTF-8 sequence: s.size() when `s` fits, else
// `max_bytes` moved back over continuation bytes (so 0 for a cut inside a
// first code point).
size_t Utf8CutBytes(std::string_view s, size_t max_bytes);

// Where the longest suffix of `s` of at most `max_bytes` bytes starts
// without beginning inside a UTF-8 sequence: 0 when `s` fits, else
// s.size() - max_bytes moved forward over continuation bytes.
size_t Utf8SuffixStart(std::string_view s, size_t max_bytes);

// Where the UTF-8 sequence that ends just before `end` (0 < end <=
// s.size()) starts: end - 1 moved back over at most three continuation
// bytes (never before 0). The caller decodes from there and checks the
// sequence reaches `end`.
size_t Utf8SequenceStart(std::string_view s, size_t end);

}  // namespace mnemo::internal

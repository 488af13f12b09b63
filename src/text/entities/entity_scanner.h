// The shared state of the entity scanners (entities.h). Internal to
// src/text: entities.cc runs the scanners in kind order, entity_quantities.cc
// and entity_names.cc hold the two largest ones.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "text/entities/entities.h"

namespace mnemo::text::internal {

inline bool IsAsciiAlpha(int32_t c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool IsAsciiDigit(int32_t c) { return c >= '0' && c <= '9'; }
inline bool IsAsciiAlnum(int32_t c) { return IsAsciiAlpha(c) || IsAsciiDigit(c); }
inline bool IsAsciiUpper(int32_t c) { return c >= 'A' && c <= 'Z'; }
inline bool IsAsciiLower(int32_t c) { return c >= 'a' && c <= 'z'; }
inline char LowerAscii(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

// Unicode White_Space.
bool IsSpace(int32_t cp);

// A letter, mark or digit of a script other than ASCII and CJK ("ï" in
// "naïve"): glued to an ASCII run it makes the run part of a larger word.
bool IsForeignWordChar(int32_t cp);

// `prefix` (lower-case ASCII) at `pos`, ASCII case-insensitively.
bool StartsWithNoCase(std::string_view s, size_t pos, std::string_view prefix);

struct Cp {
  int32_t cp = -1;  // -1 past either end
  size_t len = 0;   // bytes; 0 past either end
};

class EntityScanner {
 public:
  // `text` is `original` made valid UTF-8 by PrepareText (same offsets,
  // ill-formed bytes turned into spaces).
  EntityScanner(std::string_view original, std::string_view text)
      : original_(original), text_(text), taken_(text.size(), 0) {}

  std::string_view text() const { return text_; }
  size_t size() const { return text_.size(); }
  // The byte at `pos`, or 0 past the end.
  char At(size_t pos) const { return pos < text_.size() ? text_[pos] : '\0'; }
  // The code point that starts at `pos` / ends at `pos`.
  Cp CpAt(size_t pos) const;
  Cp CpBefore(size_t pos) const;

  // No byte of [begin, end) belongs to an entity yet.
  bool IsFree(size_t begin, size_t end) const;
  bool IsTaken(size_t pos) const { return pos < taken_.size() && taken_[pos] != 0; }

  // Records [begin, end) as an entity of `kind` and takes its bytes; a span
  // that held ill-formed bytes in the original is dropped (its text would
  // not be what was written).
  void Add(EntityKind kind, size_t begin, size_t end);

  std::vector<Entity> Take() &&;

 private:
  std::string_view original_;
  std::string_view text_;
  std::vector<char> taken_;
  std::vector<Entity> found_;
};

// Numbers with units and currency amounts.
void ScanQuantities(EntityScanner& scanner);
// Chinese name patterns, then English capitalised runs.
void ScanNames(EntityScanner& scanner);

}  // namespace mnemo::text::internal

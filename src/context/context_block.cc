#include "context/context_block.h"

#include <cmath>

#include "text/utf8.h"

namespace mnemo::context {
namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

bool IsSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// One line: whitespace runs (ASCII) become one space, trimmed.
std::string OneLine(std::string_view item) {
  std::string out;
  out.reserve(item.size());
  bool space = false;
  for (char c : item) {
    if (IsSpaceByte(c)) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

}  // namespace

const Preset* FindPreset(std::string_view name) {
  for (const Preset& p : kPresets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

PackedBlock PackContextBlock(const std::vector<BlockSection>& sections, size_t budget_chars) {
  PackedBlock block;
  size_t carry = 0;
  for (const BlockSection& section : sections) {
    const size_t own =
        static_cast<size_t>(std::floor(static_cast<double>(budget_chars) * section.share));
    size_t allowance = own + (section.takes_carry ? carry : 0);
    // Never past the whole budget, whatever the shares add up to.
    allowance = std::min(allowance, budget_chars - block.chars);
    const std::string separator = block.text.empty() ? "" : "\n";
    const std::string header = separator + "## " + OneLine(section.title) + "\n";
    const size_t header_chars = text::CountCodePoints(header);
    std::string body;
    size_t body_chars = 0;
    size_t taken = 0;
    for (const std::string& raw : section.items) {
      const std::string item = OneLine(raw);
      if (item.empty()) continue;
      const size_t room = allowance - std::min(allowance, header_chars + body_chars);
      const size_t whole = text::CountCodePoints(item) + 3;  // "- " and "\n"
      if (whole <= room) {
        body += "- " + item + "\n";
        body_chars += whole;
        ++taken;
        continue;
      }
      // "- " + prefix + "…" + "\n"
      if (room >= kMinCutChars + 4) {
        const size_t keep = room - 4;
        body += "- " + item.substr(0, text::Utf8PrefixBytes(item, keep)) + std::string(kEllipsis) +
                "\n";
        body_chars += keep + 4;
        ++taken;
      }
      break;
    }
    const size_t used = taken == 0 ? 0 : header_chars + body_chars;
    if (taken > 0) {
      block.text += header;
      block.text += body;
      block.chars += used;
      block.sections.push_back({.title = section.title, .items = taken, .chars = used});
    }
    carry = section.takes_carry ? allowance - used : carry + (allowance - used);
  }
  return block;
}

}  // namespace mnemo::context

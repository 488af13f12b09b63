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

namespace {

std::string SectionHeader(const PackedBlock& block, const BlockSection& section) {
  const std::string separator = block.text.empty() ? "" : "\n";
  return separator + "## " + OneLine(section.title) + "\n";
}

// Packs sections [0, end) into `block`; returns the room section `end`
// would get (its header included), 0 when end is past the last section.
size_t PackSections(const std::vector<BlockSection>& sections, size_t budget_chars, size_t end,
                    PackedBlock& block) {
  size_t carry = 0;
  for (size_t index = 0; index < sections.size(); ++index) {
    const BlockSection& section = sections[index];
    const size_t own =
        static_cast<size_t>(std::floor(static_cast<double>(budget_chars) * section.share));
    size_t allowance = own + section.extra_chars + (section.takes_carry ? carry : 0);
    // Never past the whole budget, whatever the shares add up to.
    allowance = std::min(allowance, budget_chars - block.chars);
    if (index == end) return allowance;
    const std::string header = SectionHeader(block, section);
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
  return 0;
}

}  // namespace

PackedBlock PackContextBlock(const std::vector<BlockSection>& sections, size_t budget_chars) {
  PackedBlock block;
  PackSections(sections, budget_chars, sections.size(), block);
  return block;
}

size_t SectionRoom(const std::vector<BlockSection>& sections, size_t budget_chars, size_t index) {
  PackedBlock block;
  const size_t allowance = PackSections(sections, budget_chars, index, block);
  if (index >= sections.size()) return 0;
  const size_t header_chars = text::CountCodePoints(SectionHeader(block, sections[index]));
  return allowance - std::min(allowance, header_chars);
}

}  // namespace mnemo::context

// The context block of memory.context_build (spec 50, "Context block"): the
// memory a harness injects for one turn, packed into a character budget.
// Pure functions: the engine gathers the items, this file decides what fits
// and renders it, byte for byte the same for the same input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::context {

struct Preset {
  std::string_view name;
  size_t budget_chars;
  int items_per_section;  // how many candidates the engine gathers per section
};

// minimal 2 000, balanced 8 000, extended 16 000, maximum 32 000 characters.
inline constexpr Preset kPresets[] = {
    {"minimal", 2000, 5},
    {"balanced", 8000, 10},
    {"extended", 16000, 20},
    {"maximum", 32000, 40},
};
const Preset* FindPreset(std::string_view name);

struct BlockSection {
  std::string title;  // "Relevant memories", ...
  double share = 0;   // of the budget, before carry-over
  // Whether the room earlier sections left unused is offered to this one;
  // when not, it passes on to the next section that takes it.
  bool takes_carry = true;
  // Characters beyond the share, taken from what the sections after it
  // would have had (they still get at most what is left of the budget).
  size_t extra_chars = 0;
  std::vector<std::string> items;  // best first
};

struct PackedSection {
  std::string title;
  size_t items = 0;  // items that made it in (the last one possibly cut)
  size_t chars = 0;  // characters of the section, header included
};

struct PackedBlock {
  std::string text;
  size_t chars = 0;  // code points of text, <= the budget
  std::vector<PackedSection> sections;
};

// Packs `sections` in order. Each gets floor(budget * share) characters plus,
// when it takes_carry, whatever the sections before it left unused. A section is "## <title>\n"
// then one "- <item>\n" line per item (an item's line breaks and runs of
// whitespace become one space), sections separated by one blank line; an
// empty section is left out. An item that does not fit whole is cut at a
// code point and ends with "…" when at least kMinCutChars of it fit;
// otherwise the section ends there. Characters are Unicode code points;
// the result never exceeds `budget_chars`.
inline constexpr size_t kMinCutChars = 24;
PackedBlock PackContextBlock(const std::vector<BlockSection>& sections, size_t budget_chars);

// The characters section `index` has for its "- <item>\n" lines when
// packed after `sections[0, index)` as they are: its share, the carry the
// sections before it leave, less its header. The items of `index` and later
// sections do not matter. 0 when `index` is past the last section.
size_t SectionRoom(const std::vector<BlockSection>& sections, size_t budget_chars, size_t index);

}  // namespace mnemo::context

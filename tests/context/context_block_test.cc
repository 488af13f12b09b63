// Packing the context block (spec 50): never past the budget, sections in
// order with what earlier ones left over, items cut only when enough fits,
// and the same input gives the same bytes.
#include "context/context_block.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "text/utf8.h"

namespace mnemo::context {
namespace {

TEST(ContextBlock, RendersSectionsInOrderAndLeavesEmptyOnesOut) {
  const PackedBlock b = PackContextBlock({{.title = "Memories", .share = 0.5, .items = {"a: 1"}},
                                          {.title = "Empty", .share = 0.2, .items = {}},
                                          {.title = "Turns", .share = 0.3, .items = {"x\n  y"}}},
                                         1000);
  EXPECT_EQ(b.text, "## Memories\n- a: 1\n\n## Turns\n- x y\n");
  EXPECT_EQ(b.chars, text::CountCodePoints(b.text));
  ASSERT_EQ(b.sections.size(), 2u);
  EXPECT_EQ(b.sections[1].title, "Turns");
  EXPECT_EQ(b.sections[1].items, 1u);
}

TEST(ContextBlock, UnusedShareCarriesOverToLaterSections) {
  // The first section needs little; the second may use the rest.
  const std::string long_item(150, 'z');
  const PackedBlock b = PackContextBlock({{.title = "A", .share = 0.5, .items = {"short"}},
                                          {.title = "B", .share = 0.5, .items = {long_item}}},
                                         200);
  EXPECT_NE(b.text.find(long_item + "\n"), std::string::npos) << b.text;
  EXPECT_LE(b.chars, 200u);
}

TEST(ContextBlock, ASectionThatTakesNoCarryPassesTheRoomOnToTheNext) {
  // A needs nothing; B (takes_carry false) keeps to its own 20 %; C gets
  // A's 40 % and B's unused part on top of its own.
  const std::string long_item(300, 'z');
  const PackedBlock b =
      PackContextBlock({{.title = "A", .share = 0.4, .items = {}},
                        {.title = "B", .share = 0.2, .takes_carry = false, .items = {long_item}},
                        {.title = "C", .share = 0.4, .items = {long_item}}},
                       400);
  ASSERT_EQ(b.sections.size(), 2u);
  EXPECT_EQ(b.sections[0].title, "B");
  EXPECT_LE(b.sections[0].chars, 80u);  // its own share, the item cut
  EXPECT_EQ(b.sections[1].title, "C");
  EXPECT_NE(b.text.find(long_item + "\n"), std::string::npos) << b.text;  // whole: 160 + 160
  EXPECT_LE(b.chars, 400u);
}

TEST(ContextBlock, CutsAnItemWithAnEllipsisOnlyWhenEnoughFits) {
  const std::string item(500, 'q');
  PackedBlock b = PackContextBlock({{.title = "S", .share = 1, .items = {item}}}, 100);
  EXPECT_EQ(b.chars, 100u);
  EXPECT_TRUE(b.text.ends_with("q\xE2\x80\xA6\n")) << b.text;
  // Too little room for kMinCutChars: the section is left out.
  b = PackContextBlock({{.title = "S", .share = 1, .items = {item}}}, 20);
  EXPECT_EQ(b.text, "");
  EXPECT_TRUE(b.sections.empty());
}

TEST(ContextBlock, ChineseIsCountedInCharactersAndNeverCutMidCharacter) {
  std::string item;
  for (int i = 0; i < 200; ++i) item += "记忆";
  const PackedBlock b = PackContextBlock({{.title = "中文", .share = 1, .items = {item}}}, 120);
  EXPECT_TRUE(text::IsValidUtf8(b.text));
  EXPECT_EQ(text::CountCodePoints(b.text), b.chars);
  EXPECT_LE(b.chars, 120u);
}

TEST(ContextBlock, NeverExceedsTheBudgetOverRandomInputs) {
  std::mt19937 rng(7);
  for (int round = 0; round < 500; ++round) {
    std::vector<BlockSection> sections;
    const int n = 1 + static_cast<int>(rng() % 5);
    for (int s = 0; s < n; ++s) {
      BlockSection section{.title = "S" + std::to_string(s), .share = (rng() % 60) / 100.0};
      const int items = static_cast<int>(rng() % 8);
      for (int i = 0; i < items; ++i) {
        section.items.push_back(std::string(rng() % 400, static_cast<char>('a' + rng() % 26)));
      }
      sections.push_back(std::move(section));
    }
    const size_t budget = rng() % 3000;
    const PackedBlock b = PackContextBlock(sections, budget);
    ASSERT_LE(text::CountCodePoints(b.text), budget) << "round " << round;
    ASSERT_EQ(text::CountCodePoints(b.text), b.chars) << "round " << round;
    ASSERT_EQ(PackContextBlock(sections, budget).text, b.text);  // deterministic
  }
}

TEST(ContextBlock, PresetsHaveTheSpecBudgets) {
  EXPECT_EQ(FindPreset("minimal")->budget_chars, 2000u);
  EXPECT_EQ(FindPreset("balanced")->budget_chars, 8000u);
  EXPECT_EQ(FindPreset("extended")->budget_chars, 16000u);
  EXPECT_EQ(FindPreset("maximum")->budget_chars, 32000u);
  EXPECT_EQ(FindPreset("huge"), nullptr);
}

}  // namespace
}  // namespace mnemo::context

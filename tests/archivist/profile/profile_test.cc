#include "archivist/profile/profile.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mnemo::archivist {
namespace {

using Strings = std::vector<std::string>;

// The slot and value of one sentence, as a fact or preference event.
std::pair<std::string, std::string> SlotOf(std::string_view type, std::string text) {
  std::optional<Facet> f =
      FacetFromEvent({.type = std::string(type), .text = std::move(text), .confidence = 0.6}, "");
  if (!f) return {"", ""};
  return {f->key, f->value};
}

using KV = std::pair<std::string, std::string>;

TEST(FacetFromEvent, FactsFillReadableSlots) {
  EXPECT_EQ(SlotOf("fact", "My name is Alice."), (KV{"name", "Alice"}));
  EXPECT_EQ(SlotOf("fact", "I live in Pune."), (KV{"location", "Pune"}));
  EXPECT_EQ(SlotOf("fact", "I moved to Bangalore last month."), (KV{"location", "Bangalore"}));
  EXPECT_EQ(SlotOf("fact", "I work at Infosys."), (KV{"employer", "Infosys"}));
  EXPECT_EQ(SlotOf("fact", "I joined Wipro."), (KV{"employer", "Wipro"}));
  EXPECT_EQ(SlotOf("fact", "My timezone is Europe/Lisbon."), (KV{"timezone", "Europe/Lisbon"}));
  EXPECT_EQ(SlotOf("fact", "I have a dog named Rex."), (KV{"pet/dog", "Rex"}));
  EXPECT_EQ(SlotOf("fact", "我住在北京"), (KV{"location", "北京"}));
  EXPECT_EQ(SlotOf("fact", "我叫张伟"), (KV{"name", "张伟"}));
}

// Spec 40 §5: "call me" names the user; pets are slots in Chinese as in
// English, keyed by their kind in English like every slot.
TEST(FacetFromEvent, NamesAndPetsFillSlotsInEitherLanguage) {
  EXPECT_EQ(SlotOf("fact", "You can call me Sam."), (KV{"name", "Sam"}));
  EXPECT_EQ(SlotOf("fact", "Please call me Dr. Lee."), (KV{"name", "Dr. Lee"}));
  EXPECT_EQ(SlotOf("fact", "My cat is called Tom."), (KV{"pet/cat", "Tom"}));
  EXPECT_EQ(SlotOf("fact", "我的猫叫咪咪。"), (KV{"pet/cat", "咪咪"}));
  EXPECT_EQ(SlotOf("fact", "我养了一只叫旺财的狗。"), (KV{"pet/dog", "旺财"}));
  EXPECT_EQ(SlotOf("fact", "我有一只兔子。"), (KV{"pet/rabbit", "兔子"}));
  // A request to call is no name, a question had is no pet.
  EXPECT_NE(SlotOf("fact", "Call me when you land.").first, "name");
  EXPECT_EQ(SlotOf("fact", "我有一个问题。").first.rfind("pet/", 0), std::string::npos);
}

TEST(FacetFromEvent, ValuesLeaveFillersAndTopicMarkersOut) {
  EXPECT_EQ(SlotOf("fact", "By the way, I live in Lisbon now."), (KV{"location", "Lisbon"}));
  EXPECT_EQ(SlotOf("fact", "Actually, I work at Globex."), (KV{"employer", "Globex"}));
  EXPECT_EQ(SlotOf("preference", "换个话题，我喜欢绿茶。"), (KV{"绿茶", "绿茶"}));
  EXPECT_EQ(SlotOf("preference", "Anyway, I prefer window seats."),
            (KV{"window seats", "window seats"}));
}

TEST(FacetFromEvent, KeysAreNeverStemmedOrTypePrefixed) {
  for (const std::string& text :
       {std::string("My timezone is Europe/Lisbon"), std::string("换个话题，我喜欢这个话题"),
        std::string("I'm based in São Paulo")}) {
    const std::string key = SlotOf(text.starts_with("换") ? "preference" : "fact", text).first;
    EXPECT_FALSE(key.starts_with("context_")) << key;
    EXPECT_FALSE(key.starts_with("preference_")) << key;
    EXPECT_EQ(key.find("timezon_"), std::string::npos) << key;
  }
  EXPECT_EQ(SlotOf("fact", "I'm based in São Paulo").first, "location");
}

TEST(FacetFromEvent, MapsPreferencesAndFactsOnly) {
  const std::optional<Facet> pref = FacetFromEvent(
      {.type = "preference", .text = "I prefer dark mode", .confidence = 0.6}, "seg-1");
  ASSERT_TRUE(pref.has_value());
  EXPECT_EQ(pref->facet_type, "preference");
  EXPECT_EQ(pref->key, "dark mode");
  EXPECT_EQ(pref->value, "dark mode");
  EXPECT_EQ(pref->evidence, "I prefer dark mode");
  EXPECT_DOUBLE_EQ(pref->confidence, 0.6);
  EXPECT_EQ(pref->evidence_count, 1);
  EXPECT_EQ(pref->segment_ids, Strings{"seg-1"});

  const std::optional<Facet> fact =
      FacetFromEvent({.type = "fact", .text = "我住在北京", .confidence = 0.4}, "");
  ASSERT_TRUE(fact.has_value());
  EXPECT_EQ(fact->facet_type, "context");
  EXPECT_DOUBLE_EQ(fact->confidence, 0.4);
  EXPECT_TRUE(fact->segment_ids.empty());

  EXPECT_FALSE(FacetFromEvent({.type = "decision", .text = "We decided", .confidence = 0.6}, "s")
                   .has_value());
  EXPECT_FALSE(
      FacetFromEvent({.type = "commitment", .text = "I will", .confidence = 0.6}, "s").has_value());
}

TEST(FacetFromEvent, AFactWithoutASlotKeepsItsHeadWords) {
  EXPECT_EQ(SlotOf("fact", "I've been learning the cello for years.").first,
            "i've been learning the");
}

Facet Make(std::string type, std::string key, std::string value, int64_t count) {
  return {.facet_type = std::move(type),
          .key = std::move(key),
          .value = std::move(value),
          .confidence = 0.6,
          .evidence_count = count};
}

TEST(RenderProfile, EmptyIsEmpty) { EXPECT_EQ(RenderProfile({}), ""); }

TEST(RenderProfile, WritesSectionsInOrderWithSortedKeys) {
  const std::vector<Facet> facets = {
      Make("context", "context_live_berlin", "I live in Berlin", 1),
      Make("zeta", "zeta_b", "b", 1),
      Make("preference", "preference_prefer_dark_mode", "I prefer dark mode", 3),
      Make("alpha", "alpha_a", "a", 2),
      Make("preference", "preference_like_tea", "I like tea", 2),
      Make("context", "context_名字_张伟", "我的名字是张伟", 4),
  };
  EXPECT_EQ(RenderProfile(facets),
            "### Preference\n"
            "- preference_like_tea: I like tea (confirmed 2x)\n"
            "- preference_prefer_dark_mode: I prefer dark mode (confirmed 3x)\n"
            "\n"
            "### Context\n"
            "- context_live_berlin: I live in Berlin (confirmed 1x)\n"
            "- context_名字_张伟: 我的名字是张伟 (confirmed 4x)\n"
            "\n"
            "### Alpha\n"
            "- alpha_a: a (confirmed 2x)\n"
            "\n"
            "### Zeta\n"
            "- zeta_b: b (confirmed 1x)\n");
}

TEST(RenderProfile, OneSectionHasNoBlankLine) {
  EXPECT_EQ(RenderProfile({Make("context", "context_x", "x", 1)}),
            "### Context\n- context_x: x (confirmed 1x)\n");
}

TEST(RenderProfile, KeepsEachFacetOnOneLine) {
  EXPECT_EQ(RenderProfile({Make("preference", "preference_a\nb", "line one\r\nline two\n", 2)}),
            "### Preference\n- preference_a b: line one line two  (confirmed 2x)\n");
}

}  // namespace
}  // namespace mnemo::archivist

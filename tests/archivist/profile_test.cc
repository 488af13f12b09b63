#include "archivist/profile.h"

#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mnemo::archivist {
namespace {

using Strings = std::vector<std::string>;

TEST(FacetKey, UsesTheFirstFourMeaningfulWords) {
  EXPECT_EQ(FacetKey("preference", "I prefer dark mode"), "preference_prefer_dark_mode");
  EXPECT_EQ(FacetKey("context", "My name is Alice"), "context_name_alic");
  EXPECT_EQ(FacetKey("context", "I'm a software engineer at Google in Zurich"),
            "context_softwar_engin_googl_zurich");
  EXPECT_EQ(FacetKey("context", "I’m based in São Paulo"), "context_base_são_paulo");
}

TEST(FacetKey, KeepsPolarityWords) {
  EXPECT_NE(FacetKey("preference", "I like tea"), FacetKey("preference", "I hate tea"));
  EXPECT_NE(FacetKey("preference", "I always use tabs"),
            FacetKey("preference", "I never use tabs"));
}

TEST(FacetKey, IsStableAcrossCaseAndInflection) {
  EXPECT_EQ(FacetKey("preference", "I like cats"), FacetKey("preference", "i LIKE cat"));
  EXPECT_EQ(FacetKey("context", "I’m from Lyon"), FacetKey("context", "I'm from Lyon."));
}

TEST(FacetKey, KeepsIdentifiersWithoutTheirParts) {
  EXPECT_EQ(FacetKey("context", "I work at acme.io"), "context_work_acme.io");
  EXPECT_EQ(FacetKey("preference", "I like io and acme.io"), "preference_like_io_acme.io");
}

TEST(FacetKey, ChineseFactsGetDistinctKeys) {
  const Strings facts = {"我的名字是张伟", "我的名字是李娜", "我住在北京", "我住在上海",
                         "我在腾讯工作",   "我在阿里工作",   "我来自成都", "我来自重庆",
                         "我是一名医生",   "我是一名教师"};
  std::set<std::string> keys;
  for (const std::string& fact : facts) {
    const std::string key = FacetKey("context", fact);
    EXPECT_TRUE(key.starts_with("context_")) << key;
    EXPECT_EQ(key.find("unknown"), std::string::npos) << key;
    keys.insert(key);
  }
  EXPECT_EQ(keys.size(), facts.size());
  EXPECT_EQ(FacetKey("context", "我的名字是张伟"), "context_名字_张伟");
  EXPECT_EQ(FacetKey("context", "我住在北京"), "context_住在_在北_北京");
}

TEST(FacetKey, ChinesePreferencesDifferInTheirObject) {
  EXPECT_NE(FacetKey("preference", "我更喜欢用Vim"), FacetKey("preference", "我更喜欢用Emacs"));
  EXPECT_NE(FacetKey("preference", "我喜欢吃苹果"), FacetKey("preference", "我喜欢吃香蕉"));
}

TEST(FacetKey, FallsBackToStopWordsThenToAHash) {
  EXPECT_EQ(FacetKey("context", "I am a"), "context_i_am_a");
  const std::string a = FacetKey("context", "!!!");
  const std::string b = FacetKey("context", "???");
  EXPECT_EQ(a.size(), std::string("context_").size() + 12);
  EXPECT_TRUE(a.starts_with("context_"));
  EXPECT_NE(a, b);
  EXPECT_EQ(a, FacetKey("context", "!!!"));
}

TEST(FacetFromEvent, MapsPreferencesAndFactsOnly) {
  const std::optional<Facet> pref = FacetFromEvent(
      {.type = "preference", .text = "I prefer dark mode", .confidence = 0.6}, "seg-1");
  ASSERT_TRUE(pref.has_value());
  EXPECT_EQ(pref->facet_type, "preference");
  EXPECT_EQ(pref->key, "preference_prefer_dark_mode");
  EXPECT_EQ(pref->value, "I prefer dark mode");
  EXPECT_DOUBLE_EQ(pref->confidence, 0.6);
  EXPECT_EQ(pref->evidence_count, 1);
  EXPECT_EQ(pref->segment_ids, Strings{"seg-1"});

  const std::optional<Facet> fact =
      FacetFromEvent({.type = "fact", .text = "我住在北京", .confidence = 0.4}, "");
  ASSERT_TRUE(fact.has_value());
  EXPECT_EQ(fact->facet_type, "context");
  EXPECT_EQ(fact->key, "context_住在_在北_北京");
  EXPECT_DOUBLE_EQ(fact->confidence, 0.4);
  EXPECT_TRUE(fact->segment_ids.empty());

  EXPECT_FALSE(FacetFromEvent({.type = "decision", .text = "We decided", .confidence = 0.6}, "s")
                   .has_value());
  EXPECT_FALSE(
      FacetFromEvent({.type = "commitment", .text = "I will", .confidence = 0.6}, "s").has_value());
}

Facet Observation(std::string value, double confidence, Strings segments) {
  return {.facet_type = "preference",
          .key = "preference_like_tea",
          .value = std::move(value),
          .confidence = confidence,
          .evidence_count = 1,
          .segment_ids = std::move(segments)};
}

TEST(MergeFacet, CountsEvidenceAndMergesSegmentsInOrder) {
  Facet facet = Observation("I like tea", 0.6, {"s1"});
  MergeFacet(facet, Observation("I like tea", 0.6, {"s2"}));
  MergeFacet(facet, Observation("I like tea", 0.6, {"s1"}));
  MergeFacet(facet, Observation("I like tea", 0.6, {"s3", "s2", "s4"}));
  EXPECT_EQ(facet.evidence_count, 4);
  EXPECT_EQ(facet.segment_ids, (Strings{"s1", "s2", "s3", "s4"}));
}

TEST(MergeFacet, AWeakerObservationDoesNotReplaceTheValue) {
  Facet facet = Observation("I like tea", 0.6, {"s1"});
  MergeFacet(facet, Observation("I think I like tea", 0.4, {"s2"}));
  EXPECT_EQ(facet.value, "I like tea");
  EXPECT_DOUBLE_EQ(facet.confidence, 0.6);
  EXPECT_EQ(facet.evidence_count, 2);
  EXPECT_EQ(facet.segment_ids, (Strings{"s1", "s2"}));
}

TEST(MergeFacet, AnEqualOrStrongerObservationReplacesTheValue) {
  Facet facet = Observation("I think I like tea", 0.4, {"s1"});
  MergeFacet(facet, Observation("Maybe I like tea", 0.4, {"s1"}));
  EXPECT_EQ(facet.value, "Maybe I like tea");
  MergeFacet(facet, Observation("I like tea!", 0.6, {}));
  EXPECT_EQ(facet.value, "I like tea!");
  EXPECT_DOUBLE_EQ(facet.confidence, 0.6);
  MergeFacet(facet, Observation("I like green tea", 0.9, {}));
  EXPECT_EQ(facet.value, "I like green tea");
  EXPECT_DOUBLE_EQ(facet.confidence, 0.9);
  MergeFacet(facet, Observation("I like tea", 0.6, {}));
  EXPECT_EQ(facet.value, "I like green tea");
  EXPECT_EQ(facet.evidence_count, 5);
  EXPECT_EQ(facet.segment_ids, Strings{"s1"});
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

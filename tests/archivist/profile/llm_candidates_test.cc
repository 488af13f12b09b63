#include "archivist/profile/llm_candidates.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mnemo::archivist {
namespace {

llm::SlotCandidate Slot(std::string slot, std::string value, std::string sentence,
                        std::string about = "") {
  return {.slot = std::move(slot),
          .about = std::move(about),
          .value = std::move(value),
          .sentence = std::move(sentence)};
}

TEST(ValidateCandidates, KeepsTheUsersOwnSlotsOfTheTable) {
  const std::string message = "I'm Swiss. Honestly I take my espresso without sugar.";
  llm::Candidates c;
  c.slots = {Slot("origin", "Switzerland", "I'm Swiss."),
             Slot("preference", "without sugar", "Honestly I take my espresso without sugar.",
                  "Espresso")};
  const LlmFindings found = ValidateCandidates(c, message, {}, {}, "seg-1");
  ASSERT_EQ(found.facets.size(), 2U);
  EXPECT_EQ(found.facets[0].facet_type, kFacetContext);
  EXPECT_EQ(found.facets[0].key, "origin");
  EXPECT_EQ(found.facets[0].value, "Switzerland");
  EXPECT_DOUBLE_EQ(found.facets[0].confidence, kLlmConfidence);
  EXPECT_EQ(found.facets[0].evidence, "I'm Swiss.");
  EXPECT_EQ(found.facets[0].segment_ids, std::vector<std::string>{"seg-1"});
  EXPECT_EQ(found.facets[1].facet_type, kFacetPreference);
  EXPECT_EQ(found.facets[1].key, "espresso");
}

TEST(ValidateCandidates, DropsUnknownSlotsAndWhatIsNotTheUsersNow) {
  const std::string message =
      "My aunt lives in Bergen. If I lived in Oslo I'd ski daily. I used to work at Hooli. "
      "I live in Trondheim but my son lives in Tromso.";
  llm::Candidates c;
  c.slots = {Slot("location", "Bergen", "My aunt lives in Bergen."),
             Slot("location", "Oslo", "If I lived in Oslo I'd ski daily."),
             Slot("employer", "Hooli", "I used to work at Hooli."),
             Slot("location", "Tromso", "I live in Trondheim but my son lives in Tromso."),
             Slot("favourite_colour", "red", "I live in Trondheim but my son lives in Tromso."),
             Slot("location", "Lima", "I live in Lima."),  // not in the message
             Slot("preference", "green", "I used to work at Hooli.", "tea")};
  EXPECT_TRUE(ValidateCandidates(c, message, {}, {}, "").facets.empty());
}

TEST(ValidateCandidates, AddsOnlyWhatTheDeterministicReadingMissed) {
  const std::string message = "I live in Trondheim. I promise to return the drill by Sunday.";
  llm::Candidates c;
  c.slots = {Slot("location", "Trondheim, Norway", "I live in Trondheim.")};
  c.events = {{.type = "commitment", .sentence = "I promise to return the drill by Sunday."},
              {.type = "gossip", .sentence = "I live in Trondheim."},
              {.type = "fact", .sentence = "I live in Trondheim."}};
  const std::vector<Facet> facets = {{.facet_type = "context", .key = "location", .value = "x"}};
  const std::vector<Event> events = {
      {.type = "commitment", .text = "I promise to return the drill by Sunday."}};
  const LlmFindings found = ValidateCandidates(c, message, facets, events, "");
  EXPECT_TRUE(found.facets.empty());
  ASSERT_EQ(found.events.size(), 1U);
  EXPECT_EQ(found.events[0].type, "fact");
  EXPECT_EQ(found.events[0].text, "I live in Trondheim.");
}

TEST(ValidateCandidates, SmallTalkAndOtherPeoplesPlansAreNoEvents) {
  const std::string message = "Haha, thanks! My boss will fly to Rome on Monday.";
  llm::Candidates c;
  c.events = {{.type = "fact", .sentence = "Haha, thanks!"},
              {.type = "commitment", .sentence = "My boss will fly to Rome on Monday."}};
  EXPECT_TRUE(ValidateCandidates(c, message, {}, {}, "").events.empty());
}

}  // namespace
}  // namespace mnemo::archivist

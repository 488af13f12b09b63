// memory_recall's order (spec 10): the evidence first, derived results only
// in the places it leaves free and only when they add something.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/search/recall_order.h"

namespace mnemo {
namespace {

RecallHit Hit(std::string source, std::string content, double score) {
  return {.source = std::move(source), .content = std::move(content), .score = score};
}

std::vector<std::string> Sources(const std::vector<RecallHit>& hits) {
  std::vector<std::string> out;
  for (const RecallHit& h : hits) out.push_back(h.source + ":" + h.content);
  return out;
}

TEST(RecallOrder, ADerivedResultNeverTakesTheEvidencesPlace) {
  // The recap scores higher than every turn, and adds something: still the
  // three turns fill the three places.
  const auto out =
      EvidenceFirst({Hit("turn", "a", 0.4), Hit("turn", "b", 0.5), Hit("entry", "c", 0.3)},
                    {Hit("segment", "a recap of other things", 0.95)}, {"a", "b"}, 3);
  EXPECT_EQ(Sources(out), (std::vector<std::string>{"turn:b", "turn:a", "entry:c"}));
}

TEST(RecallOrder, DerivedResultsFillFreePlacesUnlessTheyRepeatATurn) {
  const auto out = EvidenceFirst(
      {Hit("turn", "we chose PostgreSQL", 0.6)},
      {Hit("event", "we chose PostgreSQL", 0.9), Hit("document", "the billing plan", 0.7),
       Hit("segment", "weekly sync notes", 0.2)},
      {"we chose PostgreSQL"}, 3);
  EXPECT_EQ(Sources(out),
            (std::vector<std::string>{"turn:we chose PostgreSQL", "document:the billing plan",
                                      "segment:weekly sync notes"}));
}

}  // namespace
}  // namespace mnemo

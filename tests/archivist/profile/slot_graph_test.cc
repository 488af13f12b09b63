// The profile's slots in the graph (slot_graph.h): after a segment is
// finalised, the user's triple of every slot with a predicate is the
// profile's current value, on every backend; chat documents give none of
// their own.
#include "archivist/profile/slot_graph.h"

#include <gtest/gtest.h>

#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "archivist/profile/profile.h"
#include "archivist/segments.h"
#include "context/graph.h"
#include "storage/backend_factory.h"
#include "storage/rules/graph_rules.h"

namespace mnemo::archivist {
namespace {

TEST(SlotPredicates, EverySlotPredicateIsSingleValuedAndNamesASlot) {
  for (const SlotPredicate& p : kSlotPredicates) {
    EXPECT_TRUE(context::IsSingleValued(p.predicate)) << p.predicate;
    EXPECT_TRUE(IsSlotKey(p.slot)) << p.slot;
    EXPECT_FALSE(IsListSlot(p.slot)) << p.slot << " holds several values";
    EXPECT_EQ(storage::internal::NormalizePredicate(p.predicate), p.predicate);
    EXPECT_EQ(PredicateOfSlot(SlotOfPredicate(p.predicate)).empty(), false);
  }
  EXPECT_EQ(PredicateOfSlot(kSlotLocation), "lives_in");
  EXPECT_EQ(PredicateOfSlot(kSlotEmployer), "works_at");
  EXPECT_EQ(SlotOfPredicate("boss"), kSlotManager);
  EXPECT_TRUE(PredicateOfSlot(kSlotPet).empty());
  EXPECT_FALSE(IsSlotPredicate("likes"));
}

class SlotGraph : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  // One segment of `session` whose user turns are `said`, a minute apart
  // from `at`, closed and finalised.
  void Say(const std::string& session, const std::vector<std::string>& said, TimeMs at) {
    std::vector<storage::TurnWrite> rows;
    for (const std::string& s : said) {
      rows.push_back({.row = {.owner = "local",
                              .session_id = session,
                              .role = "user",
                              .content = s,
                              .timestamp_ms = at},
                      .search_text = s});
      rows.push_back({.row = {.owner = "local",
                              .session_id = session,
                              .role = "assistant",
                              .content = "Noted.",
                              .timestamp_ms = at},
                      .search_text = "Noted."});
      at += 60000;
    }
    auto stored = stores_.episodic->AppendTurns(rows);
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    for (size_t i = 0; i + 1 < stored->size(); i += 2) {
      auto step = AdvanceSegment(*stores_.episodic, (*stored)[i], (*stored)[i + 1],
                                 (*stored)[i].content, {}, policy_);
      ASSERT_TRUE(step.ok()) << step.status().ToString();
    }
    auto closed = CloseOpenSegment(*stores_.episodic, "local", TestSessionId(session), at);
    ASSERT_TRUE(closed.ok() && !closed->empty());
    Status done = FinalizeSegment(*stores_.episodic, *stores_.documents, *stores_.graph, *closed,
                                  {.documents = true}, at + 1000);
    ASSERT_TRUE(done.ok()) << done.ToString();
  }

  // The profile's current context slots that have a predicate.
  std::map<std::string, std::string> ProfileSlots() {
    std::map<std::string, std::string> out;
    auto facets = stores_.episodic->Facets(false, "local");
    EXPECT_TRUE(facets.ok());
    for (const storage::FacetRow& f : *facets) {
      if (f.facet_type == kFacetContext && !PredicateOfSlot(f.key).empty() && !f.value.empty()) {
        out[f.key] = f.value;
      }
    }
    return out;
  }

  // The user's current triples of slot predicates, by slot.
  std::map<std::string, std::string> GraphSlots() {
    std::map<std::string, std::string> out;
    auto rows = stores_.graph->QueryTriples(
        {.subject = std::string(context::kUserSubject), .owner = "local", .limit = 1000});
    EXPECT_TRUE(rows.ok());
    for (const storage::TripleRow& t : *rows) {
      const std::string_view slot = SlotOfPredicate(t.predicate);
      if (slot.empty()) continue;
      EXPECT_FALSE(out.contains(std::string(slot))) << "two current triples of " << slot;
      out[std::string(slot)] = t.object;
    }
    return out;
  }

  // The objects the user's triples of `predicate` ever had, current or not.
  std::vector<std::string> Objects(std::string_view predicate, bool include_history) {
    std::vector<std::string> out;
    auto rows = stores_.graph->QueryTriples({.subject = std::string(context::kUserSubject),
                                             .predicate = std::string(predicate),
                                             .owner = "local",
                                             .include_history = include_history});
    EXPECT_TRUE(rows.ok());
    for (const storage::TripleRow& t : *rows) out.push_back(t.object);
    return out;
  }

  mnemo::testing::TempDir dir_;
  storage::Stores stores_;
  SegmentPolicy policy_{.max_turns = 20, .max_time_gap_secs = 600};
};

TEST_P(SlotGraph, AChainOfMovesEndsAtItsLastPlaceInBoth) {
  Say("s", {"We moved to Cardiff and then to Bristol."}, 1000);
  EXPECT_EQ(ProfileSlots()["location"], "Bristol");
  EXPECT_EQ(GraphSlots(), ProfileSlots());
  // Cardiff was never read from the chat as the user's current place.
  EXPECT_EQ(Objects("lives_in", false), std::vector<std::string>{"Bristol"});
}

TEST_P(SlotGraph, ANewJobSupersedesTheOldOneInBoth) {
  Say("s", {"I work at Northwind Traders as a buyer."}, 1000);
  EXPECT_EQ(GraphSlots()["employer"], "Northwind Traders");
  Say("t", {"As of this week I work for Contoso."}, 10'000'000);
  EXPECT_EQ(ProfileSlots()["employer"], "Contoso");
  EXPECT_EQ(GraphSlots(), ProfileSlots());
  std::vector<std::string> all = Objects("works_at", true);
  EXPECT_EQ(all, (std::vector<std::string>{"Contoso", "Northwind Traders"}))
      << "the old employer stays as history";
}

TEST_P(SlotGraph, APlaceAfterZaiIsNoEmployerInEither) {
  Say("s", {"我在杭州工作，平时很忙。"}, 1000);
  EXPECT_FALSE(ProfileSlots().contains("employer"));
  EXPECT_TRUE(Objects("works_at", true).empty());
  Say("t", {"我住在深圳，在腾讯工作。"}, 10'000'000);
  EXPECT_EQ(ProfileSlots()["employer"], "腾讯");
  EXPECT_EQ(GraphSlots(), ProfileSlots());
}

TEST_P(SlotGraph, AnEndedSlotClosesItsTriple) {
  Say("s", {"I work at Contoso."}, 1000);
  ASSERT_EQ(GraphSlots()["employer"], "Contoso");
  Say("t", {"I don't work at Contoso anymore."}, 10'000'000);
  EXPECT_FALSE(ProfileSlots().contains("employer"));
  EXPECT_EQ(GraphSlots(), ProfileSlots());
  EXPECT_EQ(Objects("works_at", true), std::vector<std::string>{"Contoso"})
      << "the ended value stays as history";
}

TEST_P(SlotGraph, OtherTriplesOfTheChatStay) {
  Say("s", {"Priya lives in Dundee, near her sister.", "I like long train rides."}, 1000);
  auto priya = stores_.graph->QueryTriples({.subject = "Priya", .owner = "local"});
  ASSERT_TRUE(priya.ok());
  ASSERT_EQ(priya->size(), 1u);
  EXPECT_EQ((*priya)[0].predicate, "lives_in");
  EXPECT_FALSE(Objects("likes", false).empty());
}

TEST_P(SlotGraph, AStatementThatDoesNotSupersedeLeavesBothAsTheyWere) {
  Say("s", {"My manager is Ines Duarte."}, 1000);
  // A hedged guess about the manager does not replace a plain statement.
  Say("t", {"I think my manager is Paulo now, not sure."}, 10'000'000);
  EXPECT_EQ(GraphSlots(), ProfileSlots());
}

INSTANTIATE_TEST_SUITE_P(
    Backends, SlotGraph,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace mnemo::archivist

// The corrections part of the storage contract (episodic_store.h and
// graph_store.h, "Corrections"), run unchanged against every backend in
// kConformanceBackends: a corrected event is found by its new words only, a
// deleted event, facet or triple is gone from every read, and nothing else
// changes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

EventRow Event(std::string type, std::string text, std::string owner = "local") {
  EventRow e;
  e.id = mnemo::internal::NewUuidV4();
  e.owner = std::move(owner);
  e.session_id = "s";
  e.segment_id = "seg";
  e.type = std::move(type);
  e.text = std::move(text);
  e.confidence = 0.6;
  e.created_at = 1000;
  return e;
}

class CorrectionConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  std::vector<std::string> EventTexts(std::string_view q) {
    auto r = stores_.episodic->SearchEvents({.terms = text::QueryTerms(q)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const EventHit& h : *r) out.push_back(h.row.text);
    }
    return out;
  }

  std::vector<std::string> FacetKeys() {
    auto r = stores_.episodic->Facets(true, "");
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const FacetRow& f : *r) out.push_back(f.owner + "/" + f.key + "=" + f.value);
    }
    return out;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(CorrectionConformance, ACorrectedEventIsFoundByItsNewWordsOnly) {
  EventRow wrong = Event("decision", "we go with postgres for billing");
  ASSERT_TRUE(stores_.episodic->AddEvents({{wrong}}).ok());
  EventRow fixed = wrong;
  fixed.type = "commitment";
  fixed.text = "we evaluate cassandra for billing";
  fixed.owner = "ignored";  // the stored owner is kept
  auto replaced = stores_.episodic->ReplaceEvent(fixed);
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_TRUE(*replaced);
  EXPECT_THAT(EventTexts("postgres"), IsEmpty());
  EXPECT_THAT(EventTexts("cassandra"), ElementsAre("we evaluate cassandra for billing"));
  auto got = stores_.episodic->GetEvent(wrong.id);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->type, "commitment");
  EXPECT_EQ((*got)->owner, "local");
  EXPECT_EQ((*got)->session_id, "s");
  EXPECT_EQ((*got)->created_at, 1000);
}

TEST_P(CorrectionConformance, ACorrectionThatRepeatsAnotherEventIsAConflict) {
  EventRow a = Event("fact", "the office is in lisbon");
  EventRow b = Event("fact", "the office is in porto");
  ASSERT_TRUE(stores_.episodic->AddEvents({{a, b}}).ok());
  EventRow same = b;
  same.text = a.text;
  auto r = stores_.episodic->ReplaceEvent(same);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_THAT(EventTexts("porto"), ElementsAre("the office is in porto"));
}

TEST_P(CorrectionConformance, ReplacingOrDeletingAMissingEventReportsFalse) {
  auto replaced = stores_.episodic->ReplaceEvent(Event("fact", "nothing like it"));
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_FALSE(*replaced);
  auto deleted = stores_.episodic->DeleteEvent("no-such-event");
  ASSERT_TRUE(deleted.ok());
  EXPECT_FALSE(*deleted);
  auto got = stores_.episodic->GetEvent("no-such-event");
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
}

TEST_P(CorrectionConformance, ReplaceEventRejectsAnUnknownType) {
  EventRow e = Event("fact", "the sky is blue");
  ASSERT_TRUE(stores_.episodic->AddEvents({{e}}).ok());
  e.type = "rumour";
  auto r = stores_.episodic->ReplaceEvent(e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(CorrectionConformance, ADeletedEventLeavesEveryReadAndItsTextCanComeBack) {
  EventRow gone = Event("preference", "i like quokkas");
  EventRow kept = Event("preference", "i like wombats");
  ASSERT_TRUE(stores_.episodic->AddEvents({{gone, kept}}).ok());
  auto deleted = stores_.episodic->DeleteEvent(gone.id);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(*deleted);
  EXPECT_THAT(EventTexts("quokkas"), IsEmpty());
  EXPECT_THAT(EventTexts(""), ElementsAre("i like wombats"));
  EXPECT_THAT(EventTexts("like"), ElementsAre("i like wombats"));
  auto got = stores_.episodic->GetEvent(gone.id);
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  // The (owner, type, text) is free again: the same words can be said anew.
  auto added = stores_.episodic->AddEvents({{Event("preference", "i like quokkas")}});
  ASSERT_TRUE(added.ok());
  EXPECT_EQ(*added, 1);
}

TEST_P(CorrectionConformance, ADeletedFacetIsGoneWithItsStatementsAndOtherOwnersKeepTheirs) {
  for (const std::string owner : {"alice", "bob"}) {
    FacetRow f{.owner = owner,
               .facet_type = "context",
               .key = "location",
               .value = "Lisbon",
               .confidence = 0.6,
               .segment_ids = {"seg-1"},
               .updated_at = 1000,
               .session_id = "s1",
               .seq = 0};
    ASSERT_TRUE(stores_.episodic->MergeFacet(f).ok());
  }
  auto deleted = stores_.episodic->DeleteFacet("alice", "context", "location");
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(*deleted);
  EXPECT_THAT(FacetKeys(), ElementsAre("bob/location=Lisbon"));
  auto again = stores_.episodic->DeleteFacet("alice", "context", "location");
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  // A later erasure of another session of the owner folds nothing back.
  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("s2")}).ok());
  EXPECT_THAT(FacetKeys(), ElementsAre("bob/location=Lisbon"));
}

TEST_P(CorrectionConformance, ACorrectionFoldedLikeAStatementSurvivesARefold) {
  // What the engine's correction writes: a direct statement at full
  // confidence. Erasing the session that said the old value leaves it.
  FacetRow said{.owner = "local",
                .facet_type = "context",
                .key = "employer",
                .value = "Acme",
                .confidence = 0.6,
                .segment_ids = {"seg-1"},
                .updated_at = 1000,
                .session_id = "s1",
                .seq = 2};
  ASSERT_TRUE(stores_.episodic->MergeFacet(said).ok());
  said.session_id = "s2";
  said.segment_ids = {"seg-2"};
  ASSERT_TRUE(stores_.episodic->MergeFacet(said).ok());
  FacetRow corrected{.owner = "local",
                     .facet_type = "context",
                     .key = "employer",
                     .value = "Helios",
                     .confidence = 1.0,
                     .updated_at = 2000,
                     .valid_from = 2000};
  auto merged = stores_.episodic->MergeFacet(corrected);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->value, "Helios");
  ASSERT_EQ(merged->history.size(), 1u);
  EXPECT_EQ(merged->history[0].value, "Acme");
  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "local", .session_id = TestSessionId("s1")}).ok());
  EXPECT_THAT(FacetKeys(), ElementsAre("local/employer=Helios"));
}

TEST_P(CorrectionConformance, ADeletedTripleLeavesEveryReadAndEndsNothingElse) {
  TripleRow t{.owner = "local",
              .subject = "user",
              .predicate = "works_at",
              .object = "Acme",
              .confidence = 0.9,
              .valid_from = 1000,
              .created_at = 1000};
  auto first = stores_.graph->UpsertTriple(t, /*single_valued=*/true);
  ASSERT_TRUE(first.ok());
  t.object = "Helios";
  t.valid_from = 2000;
  t.created_at = 2000;
  auto second = stores_.graph->UpsertTriple(t, /*single_valued=*/true);
  ASSERT_TRUE(second.ok());
  auto got = stores_.graph->GetTriple(second->row.id);
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->object, "Helios");
  auto deleted = stores_.graph->DeleteTriple(second->row.id);
  ASSERT_TRUE(deleted.ok()) << deleted.status().ToString();
  EXPECT_TRUE(*deleted);
  auto rows = stores_.graph->QueryTriples({.include_history = true});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].object, "Acme");
  EXPECT_NE((*rows)[0].valid_to, 0) << "the superseded triple stays history";
  auto missing = stores_.graph->GetTriple(second->row.id);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
  auto again = stores_.graph->DeleteTriple(second->row.id);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
}

TEST_P(CorrectionConformance, AClosedTripleStaysAsHistoryAndClosesOnce) {
  TripleRow t{.owner = "u",
              .subject = "user",
              .predicate = "works_at",
              .object = "Acme",
              .confidence = 0.6,
              .valid_from = 1000,
              .created_at = 1000};
  auto up = stores_.graph->UpsertTriple(t, /*single_valued=*/true);
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  // Never before it began.
  auto closed = stores_.graph->CloseTriple(up->row.id, 500);
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  EXPECT_TRUE(*closed);
  auto current = stores_.graph->QueryTriples({.owner = "u"});
  ASSERT_TRUE(current.ok());
  EXPECT_TRUE(current->empty()) << "a closed triple is not current";
  auto rows = stores_.graph->QueryTriples({.owner = "u", .include_history = true});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].valid_to, 1000);
  auto again = stores_.graph->CloseTriple(up->row.id, 2000);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again) << "history is closed already";
  auto missing = stores_.graph->CloseTriple("no-such-id", 2000);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(*missing);
  // A new object after the close is current and supersedes nothing.
  t.object = "Helios";
  t.valid_from = 3000;
  auto next = stores_.graph->UpsertTriple(t, /*single_valued=*/true);
  ASSERT_TRUE(next.ok());
  EXPECT_TRUE(next->superseded.empty());
  EXPECT_EQ(next->row.valid_to, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, CorrectionConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

// The erasure part of the storage contract (admin_store.h "Erasure"), run
// unchanged against every backend in kConformanceBackends: what an erasure
// removes is gone from every read, and what it must keep is untouched.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "base/uuid.h"
#include "storage/backend_factory.h"
#include "storage/rules/episodic_rules.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

constexpr char kSignature[] = "external:3";

class ErasureConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  // A session of `owner` whose every text holds `word`: two turn rows, a
  // closed segment with a recap and a recap vector, an event, a context
  // event, a document with a triple. Returns the segment and document ids.
  struct Built {
    std::string segment_id;
    std::string document_id;
  };
  Built BuildSession(const std::string& owner, const std::string& session,
                     const std::string& word) {
    std::vector<TurnWrite> rows(2);
    for (size_t i = 0; i < rows.size(); ++i) {
      rows[i].row.owner = owner;
      rows[i].row.session_id = session;
      rows[i].row.role = i == 0 ? "user" : "assistant";
      rows[i].row.content = "we talked about " + word;
      rows[i].row.timestamp_ms = 1000;
      rows[i].search_text = rows[i].row.content;
    }
    EXPECT_TRUE(stores_.episodic->AppendTurns(rows).ok());
    SegmentRow s{.id = mnemo::internal::NewUuidV4(),
                 .owner = owner,
                 .session_id = session,
                 .status = "closed",
                 .first_seq = 0,
                 .last_seq = 1,
                 .turn_count = 2,
                 .started_at = 1000,
                 .last_turn_at = 1000,
                 .closed_at = 2000,
                 .recap = "recap of " + word,
                 .recap_source = "extractive"};
    EXPECT_TRUE(stores_.episodic->PutSegment(s).ok());
    EXPECT_TRUE(
        stores_.episodic->PutSegmentVector(s.id, kSignature, std::vector<float>{1, 0, 0}).ok());
    EventRow e{.id = mnemo::internal::NewUuidV4(),
               .owner = owner,
               .session_id = session,
               .segment_id = s.id,
               .type = "fact",
               .text = "the user likes " + word,
               .confidence = 0.6,
               .created_at = 2000};
    EXPECT_TRUE(stores_.episodic->AddEvents(std::vector<EventRow>{e}).ok());
    EXPECT_TRUE(stores_.context_events
                    ->AppendContextEvent({.owner = owner,
                                          .session_id = session,
                                          .event_json = "{\"text\":\"" + word + "\"}",
                                          .search_text = word,
                                          .timestamp_ms = 1000,
                                          .created_at = 1000})
                    .ok());
    auto doc = stores_.documents->PutDocument({.owner = owner,
                                               .source = "test:" + session,
                                               .content = "document about " + word + " " + session,
                                               .search_text = "document about " + word,
                                               .created_at = 1000});
    EXPECT_TRUE(doc.ok());
    EXPECT_TRUE(stores_.graph
                    ->UpsertTriple({.owner = owner,
                                    .subject = "user",
                                    .predicate = "likes_" + session,
                                    .object = word,
                                    .confidence = 0.5,
                                    .source = doc.ok() ? doc->row.id : "",
                                    .valid_from = 1000,
                                    .created_at = 1000},
                                   false)
                    .ok());
    return {.segment_id = s.id, .document_id = doc.ok() ? doc->row.id : ""};
  }

  void Facet(const std::string& owner, const std::string& key,
             std::vector<std::string> segment_ids) {
    EXPECT_TRUE(stores_.episodic
                    ->MergeFacet({.owner = owner,
                                  .facet_type = "preference",
                                  .key = key,
                                  .value = key,
                                  .confidence = 0.5,
                                  .segment_ids = std::move(segment_ids),
                                  .updated_at = 1000})
                    .ok());
  }

  int64_t TurnHits(const std::string& word) {
    auto hits = stores_.episodic->SearchTurns({.terms = text::QueryTerms(word)});
    EXPECT_TRUE(hits.ok());
    return hits.ok() ? static_cast<int64_t>(hits->size()) : -1;
  }

  std::vector<std::string> RecapVectorSegments() {
    auto v = stores_.episodic->SegmentVectorsSince(kSignature, 0, 100);
    EXPECT_TRUE(v.ok());
    std::vector<std::string> ids;
    if (v.ok()) {
      for (const SegmentVector& s : *v) ids.push_back(s.segment_id);
    }
    return ids;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(ErasureConformance, EraseSessionRemovesEverythingOfTheSessionAndNothingElse) {
  const Built a = BuildSession("alice", "s1", "zebra");
  const Built b = BuildSession("alice", "s2", "okapi");
  const Built bob = BuildSession("bob", "s1", "zebra");
  Facet("alice", "only_s1", {a.segment_id});
  Facet("alice", "both", {a.segment_id});
  Facet("alice", "both", {b.segment_id});
  Facet("alice", "only_s2", {b.segment_id});

  auto counts = stores_.admin->EraseSession({.owner = "alice",
                                             .session_id = TestSessionId("s1"),
                                             .document_ids = {a.document_id, bob.document_id}});
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->turns, 2);
  EXPECT_EQ(counts->segments, 1);
  EXPECT_EQ(counts->recaps, 1);
  EXPECT_EQ(counts->recap_vectors, 1);
  EXPECT_EQ(counts->events, 1);
  EXPECT_EQ(counts->context_events, 1);
  EXPECT_EQ(counts->facets_removed, 1);
  EXPECT_EQ(counts->facets_reduced, 1);
  EXPECT_EQ(counts->documents, 1);  // bob's document is not alice's to erase
  EXPECT_EQ(counts->triples, 1);
  EXPECT_EQ(counts->entries, 0);

  // Gone from every read of alice's s1.
  EXPECT_THAT(*stores_.episodic->SessionTurns("alice", TestSessionId("s1"), 0, 100), IsEmpty());
  EXPECT_EQ(*stores_.episodic->GetSegment(a.segment_id), std::nullopt);
  EXPECT_THAT(*stores_.context_events->ContextEvents("alice", TestSessionId("s1")), IsEmpty());
  EXPECT_EQ(*stores_.documents->GetDocument(a.document_id, false), std::nullopt);
  auto zebra_segments = stores_.episodic->SearchSegments({.terms = text::QueryTerms("zebra")});
  ASSERT_EQ(zebra_segments->size(), 1u);
  EXPECT_EQ((*zebra_segments)[0].row.owner, "bob");
  EXPECT_THAT(RecapVectorSegments(), UnorderedElementsAre(b.segment_id, bob.segment_id));
  auto zebra_events =
      stores_.episodic->SearchEvents({.terms = text::QueryTerms("zebra"), .all = true});
  ASSERT_EQ(zebra_events->size(), 1u);
  EXPECT_EQ((*zebra_events)[0].row.owner, "bob");
  auto zebra_context =
      stores_.context_events->SearchContextEvents({.terms = text::QueryTerms("zebra")});
  ASSERT_EQ(zebra_context->size(), 1u);
  EXPECT_EQ((*zebra_context)[0].row.owner, "bob");
  EXPECT_EQ(TurnHits("zebra"), 2);  // bob's
  auto alice_triples = stores_.graph->QueryTriples({.owner = "alice", .include_history = true});
  ASSERT_EQ(alice_triples->size(), 1u);
  EXPECT_EQ((*alice_triples)[0].object, "okapi");
  auto alice_docs = stores_.documents->ListDocuments(std::string("alice"), std::nullopt, 10, 0);
  ASSERT_EQ(alice_docs->size(), 1u);
  EXPECT_EQ((*alice_docs)[0].id, b.document_id);

  // The facets: one gone, one with s2's evidence only, one untouched.
  auto facets = stores_.episodic->Facets(false, "alice");
  ASSERT_EQ(facets->size(), 2u);
  EXPECT_EQ((*facets)[0].key, "both");
  EXPECT_EQ((*facets)[0].evidence_count, 1);
  EXPECT_THAT((*facets)[0].segment_ids, ElementsAre(b.segment_id));
  EXPECT_EQ((*facets)[1].key, "only_s2");
  EXPECT_EQ((*facets)[1].evidence_count, 1);

  // Alice's s2 and bob's s1 are intact.
  EXPECT_EQ(stores_.episodic->SessionTurns("alice", TestSessionId("s2"), 0, 100)->size(), 2u);
  EXPECT_EQ(stores_.episodic->SessionTurns("bob", TestSessionId("s1"), 0, 100)->size(), 2u);
  EXPECT_NE(*stores_.episodic->GetSegment(bob.segment_id), std::nullopt);
  EXPECT_EQ(stores_.context_events->ContextEvents("bob", TestSessionId("s1"))->size(), 1u);
  EXPECT_NE(*stores_.documents->GetDocument(bob.document_id, false), std::nullopt);
  EXPECT_EQ(TurnHits("okapi"), 2);
}

TEST_P(ErasureConformance, AnErasedSessionStartsAgainFromSequenceZero) {
  BuildSession("alice", "s1", "zebra");
  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("s1")}).ok());
  auto event = stores_.context_events->AppendContextEvent({.owner = "alice",
                                                           .session_id = "s1",
                                                           .event_json = "{}",
                                                           .search_text = "new",
                                                           .timestamp_ms = 1,
                                                           .created_at = 1});
  ASSERT_TRUE(event.ok());
  EXPECT_EQ(event->seq, 0);
  TurnWrite w;
  w.row.owner = "alice";
  w.row.session_id = "s1";
  w.row.role = "user";
  w.row.content = "again";
  w.search_text = "again";
  auto turns = stores_.episodic->AppendTurns(std::vector<TurnWrite>{w});
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ((*turns)[0].seq, 0);
}

TEST_P(ErasureConformance, ErasureRemovesTheTurnClaimsAndTheirStoredResults) {
  auto claim = [&](const std::string& owner, const std::string& session) {
    TurnClaim c{
        .key = {.owner = owner, .session_id = TestSessionId(session), .turn_id = TestTurnId("t1")},
        .claimed_at = 1};
    ASSERT_TRUE(stores_.episodic->ClaimTurn(c, {}).ok());
    ASSERT_TRUE(
        stores_.episodic->FinishTurnClaim(c.key, "{\"rules\":[\"never email zebra\"]}").ok());
  };
  claim("alice", "s1");
  claim("alice", "s2");
  claim("bob", "s1");
  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("s1")}).ok());
  auto get = [&](const std::string& owner, const std::string& session) {
    auto got = stores_.episodic->GetTurnClaim(
        {.owner = owner, .session_id = TestSessionId(session), .turn_id = TestTurnId("t1")});
    EXPECT_TRUE(got.ok());
    return got.ok() && got->has_value();
  };
  EXPECT_FALSE(get("alice", "s1"));
  EXPECT_TRUE(get("alice", "s2"));
  EXPECT_TRUE(get("bob", "s1"));
  ASSERT_TRUE(stores_.admin->ErasePrincipal("alice").ok());
  EXPECT_FALSE(get("alice", "s2"));
  EXPECT_TRUE(get("bob", "s1"));
}

TEST_P(ErasureConformance, ErasingANonexistentSessionCountsNothing) {
  BuildSession("alice", "s1", "zebra");
  auto counts =
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("nope")});
  ASSERT_TRUE(counts.ok());
  for (const auto& [name, n] : counts->Named()) EXPECT_EQ(n, 0) << name;
  EXPECT_EQ(stores_.episodic->SessionTurns("alice", TestSessionId("s1"), 0, 100)->size(), 2u);
}

// A blank session cannot be asked for: SessionErasure takes a parsed
// SessionId (tests/storage/values_test.cc).
TEST_P(ErasureConformance, ErasureRejectsABlankOwner) {
  EXPECT_EQ(
      stores_.admin->EraseSession({.owner = " ", .session_id = TestSessionId("s")}).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(stores_.admin->ErasePrincipal("").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(ErasureConformance, ErasePrincipalRemovesEverythingTheOwnerOwns) {
  BuildSession("alice", "s1", "zebra");
  BuildSession("alice", "s2", "zebra");
  const Built bob = BuildSession("bob", "s1", "zebra");
  Facet("alice", "stated", {});
  Facet("bob", "stated", {});
  auto alice_entry = stores_.entries->Upsert(
      {.owner = "alice", .ns = "global", .key = "k", .content = "zebra entry", .now = 1});
  auto alice_rule = stores_.entries->Upsert(
      {.owner = "alice", .ns = "tool-shell", .key = "r", .content = "zebra rule", .now = 1});
  auto bob_entry = stores_.entries->Upsert(
      {.owner = "bob", .ns = "global", .key = "k", .content = "zebra entry", .now = 1});
  ASSERT_TRUE(alice_entry.ok() && alice_rule.ok() && bob_entry.ok());
  ASSERT_TRUE(
      stores_.entries
          ->PutVectors(kSignature, std::vector<LabeledVector>{{alice_entry->label, {1, 0, 0}},
                                                              {bob_entry->label, {0, 1, 0}}})
          .ok());
  auto before = stores_.entries->VectorWatermark(kSignature);
  ASSERT_TRUE(before.ok());

  auto counts = stores_.admin->ErasePrincipal("alice");
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->entries, 2);
  EXPECT_EQ(counts->entry_vectors, 1);
  EXPECT_EQ(counts->turns, 4);
  EXPECT_EQ(counts->segments, 2);
  EXPECT_EQ(counts->recaps, 2);
  EXPECT_EQ(counts->recap_vectors, 2);
  EXPECT_EQ(counts->events, 1);  // the second session's event had the same text
  EXPECT_EQ(counts->context_events, 2);
  EXPECT_EQ(counts->facets_removed, 1);
  EXPECT_EQ(counts->documents, 2);
  EXPECT_EQ(counts->triples, 2);

  auto hits = stores_.entries->KeywordSearch({.terms = text::QueryTerms("zebra")});
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].entry.owner, "bob");
  EXPECT_EQ(*stores_.entries->FindExact("alice", TestNamespace("tool-shell"), TestKey("r")),
            std::nullopt);
  std::vector<Label> labels;
  ASSERT_TRUE(stores_.entries
                  ->ForEachVector(kSignature,
                                  [&](const LabeledVector& v) {
                                    labels.push_back(v.label);
                                    return Status::Ok();
                                  })
                  .ok());
  EXPECT_THAT(labels, ElementsAre(bob_entry->label));
  // The removal is in the change log, so every process's index drops it.
  auto changes = stores_.entries->VectorChangesSince(kSignature, *before, 10);
  ASSERT_TRUE(changes.ok());
  ASSERT_EQ(changes->size(), 1u);
  EXPECT_EQ((*changes)[0].label, alice_entry->label);
  EXPECT_THAT((*changes)[0].vector, IsEmpty());

  EXPECT_EQ(TurnHits("zebra"), 2);
  EXPECT_THAT(*stores_.episodic->Facets(false, "alice"), IsEmpty());
  EXPECT_EQ(stores_.episodic->Facets(false, "bob")->size(), 1u);
  EXPECT_EQ(*stores_.documents->CountDocuments(std::string("alice")), 0);
  EXPECT_THAT(*stores_.graph->QueryTriples({.owner = "alice", .include_history = true}), IsEmpty());
  EXPECT_EQ(stores_.graph->QueryTriples({.owner = "bob"})->size(), 1u);
  EXPECT_THAT(RecapVectorSegments(), ElementsAre(bob.segment_id));
  EXPECT_THAT(*stores_.episodic->Segments(false, "alice", std::nullopt), IsEmpty());
  EXPECT_EQ(stores_.episodic->Segments(false, "bob", std::nullopt)->size(), 1u);
}

// Issue 42 item 2: a facet's evidence is counted per turn and erased per
// statement. What one session said is folded away; what another said stays,
// as if the erased session had never been.
TEST_P(ErasureConformance, EraseSessionFoldsAFacetAgainFromTheOtherSessionsStatements) {
  const Built kept = BuildSession("alice", "kept", "okapi");
  const Built gone = BuildSession("alice", "gone", "zebra");
  auto say = [&](const std::string& session, const Built& built, int64_t seq,
                 const std::string& key, const std::string& value, const std::string& sentence,
                 TimeMs at) {
    auto r = stores_.episodic->MergeFacet({.owner = "alice",
                                           .facet_type = "context",
                                           .key = key,
                                           .value = value,
                                           .confidence = 0.6,
                                           .segment_ids = {built.segment_id},
                                           .updated_at = at,
                                           .valid_from = at,
                                           .evidence = sentence,
                                           .session_id = session,
                                           .seq = seq});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FacetRow{};
  };
  say("kept", kept, 0, "location", "Porto", "I live in Porto.", 1000);
  say("gone", gone, 0, "location", "Lisbon", "I live in Lisbon now.", 2000);
  // The same turn saying it again confirms nothing; another turn does.
  EXPECT_EQ(say("gone", gone, 0, "location", "Lisbon", "Lisbon, I said.", 2001).evidence_count, 1);
  FacetRow before =
      say("gone", gone, 2, "location", "Lisbon", "As I said, I live in Lisbon.", 3000);
  ASSERT_EQ(before.value, "Lisbon");
  EXPECT_EQ(before.evidence_count, 2);
  ASSERT_EQ(before.history.size(), 1u);
  say("gone", gone, 2, "employer", "Zebra Corp", "I work at Zebra Corp.", 3000);
  say("gone", gone, 4, "employer", "Zebra Corp", "Still at Zebra Corp.", 4000);

  auto counts =
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("gone")});
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->facets_removed, 1);
  EXPECT_EQ(counts->facets_reduced, 1);
  auto facets = stores_.episodic->Facets(false, "alice");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  const FacetRow& location = (*facets)[0];
  EXPECT_EQ(location.key, "location");
  EXPECT_EQ(location.value, "Porto");
  EXPECT_EQ(location.evidence_count, 1);
  EXPECT_EQ(location.evidence, "I live in Porto.");
  EXPECT_EQ(location.valid_from, 1000);
  EXPECT_THAT(location.history, IsEmpty());
  EXPECT_THAT(location.segment_ids, ElementsAre(kept.segment_id));
  ASSERT_TRUE(location.statements.has_value());
  ASSERT_EQ(location.statements->size(), 1u);
  EXPECT_EQ((*location.statements)[0].session_id, "kept");
}

// A list facet (FacetRow::joins) records each item alone and joins the
// items of its live statements: erasing a session takes its item off the
// list, from the value, the history and the stored statements.
TEST_P(ErasureConformance, EraseSessionTakesItsItemOffAListFacet) {
  const Built kept = BuildSession("alice", "kept", "okapi");
  const Built gone = BuildSession("alice", "gone", "zebra");
  auto say = [&](const std::string& session, const Built& built, int64_t seq,
                 const std::string& value, TimeMs at) {
    auto r = stores_.episodic->MergeFacet({.owner = "alice",
                                           .facet_type = "context",
                                           .key = "pet",
                                           .value = value,
                                           .confidence = 0.6,
                                           .segment_ids = {built.segment_id},
                                           .updated_at = at,
                                           .valid_from = at,
                                           .evidence = "I have " + value,
                                           .session_id = session,
                                           .seq = seq,
                                           .joins = true});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FacetRow{};
  };
  say("gone", gone, 0, "Quagga (cat)", 1000);
  say("kept", kept, 0, "Rex (dog)", 2000);
  // An item already on the list is a confirmation, not a second entry.
  FacetRow before = say("kept", kept, 2, "rex (dog)", 3000);
  EXPECT_EQ(before.value, "Quagga (cat), Rex (dog)");
  EXPECT_EQ(before.evidence_count, 2);
  ASSERT_TRUE(before.statements.has_value());
  ASSERT_EQ(before.statements->size(), 3u);
  EXPECT_EQ((*before.statements)[1].value, "Rex (dog)");
  EXPECT_TRUE((*before.statements)[1].joins);

  // Read back from the store: the items and their flag survive it.
  auto stored = stores_.episodic->Facets(false, "alice");
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  ASSERT_TRUE((*stored)[0].statements.has_value());
  EXPECT_EQ((*stored)[0].statements->size(), 3u);
  EXPECT_TRUE((*stored)[0].statements->back().joins);

  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("gone")}).ok());
  auto facets = stores_.episodic->Facets(false, "alice");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  const FacetRow& pet = (*facets)[0];
  EXPECT_EQ(pet.value, "Rex (dog)");
  EXPECT_EQ(pet.evidence_count, 2);
  EXPECT_THAT(pet.history, IsEmpty());
  ASSERT_TRUE(pet.statements.has_value());
  for (const FacetStatement& st : *pet.statements) {
    EXPECT_EQ(st.value.find("Quagga"), std::string::npos) << st.value;
    EXPECT_EQ(st.evidence.find("Quagga"), std::string::npos) << st.evidence;
  }
}

// An ended list (an empty value) starts again from the next item.
TEST_P(ErasureConformance, AnEndedListFacetStartsAgainFromTheNextItem) {
  const Built s = BuildSession("alice", "s", "okapi");
  auto say = [&](int64_t seq, const std::string& value, TimeMs at) {
    auto r = stores_.episodic->MergeFacet({.owner = "alice",
                                           .facet_type = "context",
                                           .key = "pet",
                                           .value = value,
                                           .confidence = 0.6,
                                           .segment_ids = {s.segment_id},
                                           .updated_at = at,
                                           .valid_from = at,
                                           .session_id = "s",
                                           .seq = seq,
                                           .joins = true});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : FacetRow{};
  };
  EXPECT_EQ(say(0, "Mochi (cat)", 1000).value, "Mochi (cat)");
  EXPECT_EQ(say(2, "", 2000).value, "");
  EXPECT_EQ(say(4, "Rex (dog)", 3000).value, "Rex (dog)");
}

TEST(JoinFacetItem, JoinsInOrderWithoutRepeats) {
  EXPECT_EQ(internal::JoinFacetItem("", "Kiwi (parrot)"), "Kiwi (parrot)");
  EXPECT_EQ(internal::JoinFacetItem("Kiwi (parrot)", "Pepper (dog)"),
            "Kiwi (parrot), Pepper (dog)");
  EXPECT_EQ(internal::JoinFacetItem("Kiwi (parrot), Pepper (dog)", "pepper (dog)"),
            "Kiwi (parrot), Pepper (dog)");
}

TEST(FacetStatements, TheJoinsFlagSurvivesTheStoredForm) {
  std::vector<FacetStatement> in = {{.session_id = "a", .value = "Kiwi (parrot)"},
                                    {.session_id = "b", .value = "Rex (dog)", .joins = true}};
  auto out = internal::DecodeFacetStatements(internal::EncodeFacetStatements(in));
  ASSERT_TRUE(out.has_value());
  ASSERT_EQ(out->size(), 2u);
  EXPECT_FALSE((*out)[0].joins);
  EXPECT_TRUE((*out)[1].joins);
  // Without any joining statement the form is the eight fields each, as before.
  in[1].joins = false;
  EXPECT_EQ(internal::DecodeFacetStatements(internal::EncodeFacetStatements(in))->size(), 2u);
  EXPECT_FALSE(internal::DecodeFacetStatements(R"(["a","","0","v","0.5","","0","0","joins:11"])")
                   .has_value());
  EXPECT_FALSE(
      internal::DecodeFacetStatements(R"(["a","","0","v","0.5","","0","0","other"])").has_value());
}

// Issue 42 item 18: the sessions captured rules came from go with the
// session, and all of an owner's with the owner.
TEST_P(ErasureConformance, ErasureRemovesTheRuleCapturesOfTheSession) {
  for (const auto& [owner, session, id] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"alice", "s1", "r1"},
                                                                      {"alice", "s2", "r1"},
                                                                      {"alice", "s2", "r2"},
                                                                      {"bob", "s1", "r3"}}) {
    ASSERT_TRUE(stores_.episodic
                    ->AddRuleCapture({.owner = owner,
                                      .session_id = TestSessionId(session),
                                      .tool_name = "*",
                                      .rule_id = id})
                    .ok());
  }
  ASSERT_TRUE(stores_.episodic
                  ->AddRuleCapture({.owner = "alice",
                                    .session_id = TestSessionId("s1"),
                                    .tool_name = "*",
                                    .rule_id = "r1"})
                  .ok());  // again: no twin
  EXPECT_EQ(stores_.episodic
                ->AddRuleCapture({.owner = "alice",
                                  .session_id = TestSessionId("s1"),
                                  .tool_name = "*",
                                  .rule_id = " "})
                .code(),
            StatusCode::kInvalidArgument);
  auto ids = [&](const std::string& owner) {
    std::vector<std::string> out;
    for (const RuleCapture& c : *stores_.episodic->RuleCaptures(owner)) {
      out.push_back(c.session_id + "/" + c.rule_id);
    }
    return out;
  };
  EXPECT_THAT(ids("alice"), ElementsAre("s1/r1", "s2/r1", "s2/r2"));
  ASSERT_TRUE(
      stores_.admin->EraseSession({.owner = "alice", .session_id = TestSessionId("s2")}).ok());
  EXPECT_THAT(ids("alice"), ElementsAre("s1/r1"));
  ASSERT_TRUE(stores_.admin->ErasePrincipal("alice").ok());
  EXPECT_THAT(ids("alice"), IsEmpty());
  EXPECT_THAT(ids("bob"), ElementsAre("s1/r3"));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, ErasureConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

// The backup part of the storage contract (admin_store.h "Backup", restore.h),
// run unchanged against every backend in kConformanceBackends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

class RestoreConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  // One row of every kind, with ids, seqs and times a live write would
  // never pick.
  static RestoreBatch Batch() {
    RestoreBatch b;
    EntryWrite e;
    e.owner = "alice";
    e.ns = "global";
    e.key = "k";
    e.content = "restored entry text";
    e.now = 5000;
    e.id = "00000000-0000-4000-8000-000000000001";
    e.created_at = 4000;
    e.access_count = 7;
    e.useful_count = 3;
    e.archived = true;
    b.entries.push_back(e);
    b.vectors.push_back({.entry = 0, .signature = "external:2", .vector = {0.6f, 0.8f}});
    for (int64_t seq : {0, 1}) {
      b.turns.push_back({.row = {.id = 40 + seq,
                                 .owner = "alice",
                                 .session_id = "s1",
                                 .seq = seq,
                                 .role = seq == 0 ? "user" : "assistant",
                                 .content = "restored turn " + std::to_string(seq),
                                 .timestamp_ms = 1000 + seq,
                                 .cost_microdollars = 5,
                                 .agent_id = "a"},
                         .search_text = "restored turn zebra"});
    }
    b.segments.push_back({.id = "seg-1",
                          .owner = "alice",
                          .session_id = "s1",
                          .status = "closed",
                          .first_seq = 0,
                          .last_seq = 1,
                          .turn_count = 1,
                          .started_at = 1000,
                          .last_turn_at = 1001,
                          .closed_at = 1002,
                          .recap = "a recap about zebras",
                          .recap_source = "extractive"});
    b.events.push_back({.id = "ev-1",
                        .owner = "alice",
                        .session_id = "s1",
                        .segment_id = "seg-1",
                        .type = "decision",
                        .text = "use zebras",
                        .confidence = 0.6,
                        .created_at = 1002});
    b.facets.push_back({.owner = "alice",
                        .facet_type = "preference",
                        .key = "animal",
                        .value = "zebra",
                        .confidence = 0.6,
                        .evidence_count = 3,
                        .segment_ids = {"seg-1", "seg-0"},
                        .updated_at = 1002});
    b.documents.push_back({.id = "doc-1",
                           .owner = "alice",
                           .source = "notes://z",
                           .content = "raw document",
                           .search_text = "zebra document",
                           .summary = "about zebras",
                           .tags = {"zebra"},
                           .access_count = 2,
                           .created_at = 900,
                           .updated_at = 950});
    b.context_events.push_back({.id = 70,
                                .owner = "alice",
                                .session_id = "ctx",
                                .seq = 5,
                                .event_json = "{\"input\":\"x\"}",
                                .search_text = "zebra context",
                                .timestamp_ms = 800,
                                .created_at = 801});
    b.triples.push_back({.id = "t-old",
                         .owner = "alice",
                         .subject = "user",
                         .predicate = "lives_in",
                         .object = "Berlin",
                         .confidence = 0.9,
                         .valid_from = 100,
                         .valid_to = 200,
                         .created_at = 100});
    b.triples.push_back({.id = "t-new",
                         .owner = "alice",
                         .subject = "user",
                         .predicate = "lives_in",
                         .object = "Lisbon",
                         .confidence = 0.9,
                         .valid_from = 200,
                         .created_at = 200});
    return b;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(RestoreConformance, WritesEveryRowAsGivenWithItsIndexRows) {
  auto r = stores_.admin->Restore(Batch());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->entries_created, 1);
  EXPECT_EQ(r->skipped, 0);

  auto entry = stores_.entries->FindExact("alice", TestNamespace("global"), TestKey("k"));
  ASSERT_TRUE(entry.ok() && entry->has_value());
  EXPECT_EQ((*entry)->id, "00000000-0000-4000-8000-000000000001");
  EXPECT_EQ((*entry)->created_at, 4000);
  EXPECT_EQ((*entry)->access_count, 7);
  EXPECT_TRUE((*entry)->archived);
  auto signatures = stores_.entries->VectorSignatures();
  ASSERT_TRUE(signatures.ok());
  EXPECT_EQ(*signatures, std::vector<std::string>{"external:2"});

  auto turns = stores_.episodic->SessionTurns("alice", TestSessionId("s1"), 0, 10);
  ASSERT_TRUE(turns.ok());
  ASSERT_EQ(turns->size(), 2u);
  EXPECT_EQ((*turns)[1].id, 41);
  EXPECT_EQ((*turns)[1].seq, 1);
  auto turn_hits = stores_.episodic->SearchTurns({.terms = text::QueryTerms("zebra")});
  ASSERT_TRUE(turn_hits.ok());
  EXPECT_EQ(turn_hits->size(), 2u);
  // The next append continues after the restored rows.
  auto appended = stores_.episodic->AppendTurns(std::vector<TurnWrite>{
      {.row = {.owner = "alice", .session_id = "s1", .role = "user", .content = "next"},
       .search_text = "next"}});
  ASSERT_TRUE(appended.ok()) << appended.status().ToString();
  EXPECT_EQ((*appended)[0].seq, 2);
  EXPECT_GT((*appended)[0].id, 41);

  auto recaps = stores_.episodic->SearchSegments({.terms = text::QueryTerms("zebras")});
  ASSERT_TRUE(recaps.ok());
  ASSERT_EQ(recaps->size(), 1u);
  EXPECT_EQ((*recaps)[0].row.closed_at, 1002);
  auto events = stores_.episodic->SearchEvents({.terms = text::QueryTerms("zebras")});
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].row.id, "ev-1");
  auto facets = stores_.episodic->Facets(true, "");
  ASSERT_TRUE(facets.ok());
  ASSERT_EQ(facets->size(), 1u);
  EXPECT_EQ((*facets)[0].evidence_count, 3);
  EXPECT_EQ((*facets)[0].segment_ids, (std::vector<std::string>{"seg-1", "seg-0"}));
  auto docs = stores_.documents->SearchDocuments({.terms = text::QueryTerms("zebra")});
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->size(), 1u);
  EXPECT_EQ((*docs)[0].row.access_count, 2);
  EXPECT_EQ((*docs)[0].row.updated_at, 950);
  EXPECT_FALSE((*docs)[0].row.content_hash.empty());

  auto context = stores_.context_events->ContextEventsAfter(0, 10);
  ASSERT_TRUE(context.ok());
  ASSERT_EQ(context->size(), 1u);
  EXPECT_EQ((*context)[0].id, 70);
  auto next = stores_.context_events->AppendContextEvent(
      {.owner = "alice", .session_id = "ctx", .event_json = "{}", .search_text = "x"});
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->seq, 6);
  EXPECT_GT(next->id, 70);

  auto triples = stores_.graph->QueryTriples({.subject = "user", .include_history = true});
  ASSERT_TRUE(triples.ok());
  ASSERT_EQ(triples->size(), 2u);
  EXPECT_EQ((*triples)[0].id, "t-new");
  EXPECT_EQ((*triples)[1].valid_to, 200);
}

TEST_P(RestoreConformance, AgainSkipsEveryRowButTheEntries) {
  ASSERT_TRUE(stores_.admin->Restore(Batch()).ok());
  auto again = stores_.admin->Restore(Batch());
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->entries_created, 0);
  EXPECT_EQ(again->skipped, 2 + 1 + 1 + 1 + 1 + 1 + 2);
  auto turns = stores_.episodic->SessionTurns("alice", TestSessionId("s1"), 0, 10);
  ASSERT_TRUE(turns.ok());
  EXPECT_EQ(turns->size(), 2u);
}

TEST_P(RestoreConformance, ABadRowWritesNothing) {
  RestoreBatch b = Batch();
  b.events.push_back(b.events[0]);
  b.events.back().type = "rumour";
  auto r = stores_.admin->Restore(b);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  auto entry = stores_.entries->FindExact("alice", TestNamespace("global"), TestKey("k"));
  ASSERT_TRUE(entry.ok());
  EXPECT_FALSE(entry->has_value());
  auto turns = stores_.episodic->TurnsAfter(0, 10);
  ASSERT_TRUE(turns.ok());
  EXPECT_TRUE(turns->empty());
}

INSTANTIATE_TEST_SUITE_P(
    Backends, RestoreConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))));

}  // namespace
}  // namespace mnemo::storage

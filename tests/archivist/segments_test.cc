// Segments over a real backend (both kinds): turns that reach AdvanceSegment
// out of order still tile the session, and a finalised segment yields its
// document with agent:// provenance and a recap vector.
#include "archivist/segments.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

#include "embed/hash_embedder.h"
#include "storage/backend_factory.h"

namespace mnemo::archivist {
namespace {

class Segments : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  // Stores one turn's two rows (seqs from the store) without advancing.
  std::pair<storage::TurnRow, storage::TurnRow> Store(const std::string& session,
                                                      const std::string& user,
                                                      const std::string& assistant,
                                                      TimeMs at = 1000) {
    std::vector<storage::TurnWrite> rows = {{.row = {.owner = "local",
                                                     .session_id = session,
                                                     .role = "user",
                                                     .content = user,
                                                     .timestamp_ms = at},
                                             .search_text = user},
                                            {.row = {.owner = "local",
                                                     .session_id = session,
                                                     .role = "assistant",
                                                     .content = assistant,
                                                     .timestamp_ms = at},
                                             .search_text = assistant}};
    auto r = stores_.episodic->AppendTurns(rows);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return {(*r)[0], (*r)[1]};
  }

  SegmentStep Advance(const std::pair<storage::TurnRow, storage::TurnRow>& turn) {
    auto r =
        AdvanceSegment(*stores_.episodic, turn.first, turn.second, turn.first.content, {}, policy_);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : SegmentStep{};
  }

  std::vector<storage::SegmentRow> All(const std::string& session) {
    auto r = stores_.episodic->Segments(true, "", SessionId::Parse(session).value());
    EXPECT_TRUE(r.ok());
    std::vector<storage::SegmentRow> all = r.ok() ? *r : std::vector<storage::SegmentRow>{};
    // Equal start times here: order by the rows they cover.
    std::sort(all.begin(), all.end(),
              [](const auto& a, const auto& b) { return a.first_seq < b.first_seq; });
    return all;
  }

  mnemo::testing::TempDir dir_;
  storage::Stores stores_;
  SegmentPolicy policy_{.max_turns = 20, .max_time_gap_secs = 600};
};

TEST_P(Segments, TurnsArrivingOutOfOrderStillTileTheSession) {
  auto t0 = Store("s", "hello there", "hi");
  auto t1 = Store("s", "more on that", "ok");
  auto t2 = Store("s", "By the way, can you help me with taxes?", "sure");
  auto t3 = Store("s", "and deductions", "ok");
  // t2 (a topic marker) arrives before t1, and t3 before t2's segment sees t1.
  EXPECT_TRUE(Advance(t0).closed_id.empty());
  SegmentStep s2 = Advance(t2);
  EXPECT_FALSE(s2.closed_id.empty());
  EXPECT_EQ(s2.reason, BoundaryReason::kTopicMarker);
  Advance(t3);
  SegmentStep s1 = Advance(t1);  // late: its rows are in the new segment's range
  EXPECT_EQ(s1.open_id, s2.open_id);
  const std::vector<storage::SegmentRow> all = All("s");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].first_seq, 0);
  EXPECT_EQ(all[0].last_seq, 1);
  EXPECT_EQ(all[0].status, "closed");
  // The second segment starts right after the first: t1 is not dropped.
  EXPECT_EQ(all[1].first_seq, 2);
  EXPECT_EQ(all[1].last_seq, 7);
  EXPECT_EQ(all[1].turn_count, 3);
}

TEST_P(Segments, ALateTurnInsideAClosedRangeChangesNothing) {
  auto t0 = Store("late", "first", "a");
  auto t1 = Store("late", "second", "b");
  Advance(t0);
  Advance(t1);
  auto closed = CloseOpenSegment(*stores_.episodic, "local", TestSessionId("late"), 5000);
  ASSERT_TRUE(closed.ok() && !closed->empty());
  // Advancing t1 again (a retried call) neither reopens nor extends anything.
  SegmentStep again = Advance(t1);
  EXPECT_TRUE(again.open_id.empty());
  EXPECT_TRUE(again.closed_id.empty());
  ASSERT_EQ(All("late").size(), 1u);
  // The next turn opens a segment right after the closed one.
  auto t2 = Store("late", "third", "c");
  SegmentStep next = Advance(t2);
  const std::vector<storage::SegmentRow> all = All("late");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].id, next.open_id);
  EXPECT_EQ(all[1].first_seq, 4);
}

TEST_P(Segments, AFinalisedSegmentBecomesADocumentAndGetsARecapVector) {
  auto t0 = Store("a/b?c", "We decided to deploy with deploy.py on Friday.", "Good plan.");
  Advance(t0);
  auto closed = CloseOpenSegment(*stores_.episodic, "local", TestSessionId("a/b?c"), 5000);
  ASSERT_TRUE(closed.ok() && !closed->empty());
  embed::HashEmbedder embedder(64);
  ASSERT_TRUE(FinalizeSegment(*stores_.episodic, *stores_.documents, *stores_.graph, *closed,
                              {.embedder = &embedder, .documents = true}, 6000)
                  .ok());

  auto docs = stores_.documents->ListDocuments(std::nullopt, "agent://session/", 10, 0);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_EQ(docs->size(), 1u);
  const storage::DocumentRow& doc = (*docs)[0];
  // The session id is percent-encoded; the range names the rows.
  EXPECT_EQ(doc.source, "agent://session/a%2Fb%3Fc/segment/" + *closed + "#seq0-1");
  EXPECT_EQ(doc.content,
            "user: We decided to deploy with deploy.py on Friday.\n\nassistant: Good plan.");
  EXPECT_NE(std::find(doc.entities.begin(), doc.entities.end(), "file:deploy.py"),
            doc.entities.end());
  EXPECT_FALSE(doc.summary.empty());
  // The recap is never fed to the document; it has its vector instead.
  auto segment = stores_.episodic->GetSegment(*closed);
  ASSERT_TRUE(segment.ok() && segment->has_value());
  EXPECT_EQ(doc.content.find((*segment)->recap), std::string::npos);
  auto vectors = stores_.episodic->SegmentVectorsSince(embedder.signature(), 0, 10);
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 1u);
  EXPECT_EQ((*vectors)[0].segment_id, *closed);
  EXPECT_EQ((*vectors)[0].vector.size(), 64u);

  // Finalising again stores no second copy.
  ASSERT_TRUE(FinalizeSegment(*stores_.episodic, *stores_.documents, *stores_.graph, *closed,
                              {.documents = true}, 7000)
                  .ok());
  docs = stores_.documents->ListDocuments(std::nullopt, std::nullopt, 10, 0);
  ASSERT_TRUE(docs.ok());
  EXPECT_EQ(docs->size(), 1u);
}

TEST_P(Segments, DocumentsCanBeSwitchedOff) {
  Advance(Store("off", "Something worth keeping, surely.", "Yes."));
  auto closed = CloseOpenSegment(*stores_.episodic, "local", TestSessionId("off"), 5000);
  ASSERT_TRUE(closed.ok() && !closed->empty());
  ASSERT_TRUE(FinalizeSegment(*stores_.episodic, *stores_.documents, *stores_.graph, *closed,
                              {.documents = false}, 6000)
                  .ok());
  auto docs = stores_.documents->ListDocuments(std::nullopt, std::nullopt, 10, 0);
  ASSERT_TRUE(docs.ok());
  EXPECT_TRUE(docs->empty());
}

INSTANTIATE_TEST_SUITE_P(
    Backends, Segments,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))));

TEST(SegmentDocumentSource, ParsesBackToTheSessionAndSpanItNames) {
  const storage::SegmentRow segment{
      .id = "seg-1", .session_id = "a/b c", .first_seq = 4, .last_seq = 17};
  const std::string source = SegmentDocumentSource(segment);
  const std::optional<SegmentSpan> span = ParseSegmentDocumentSource(source);
  ASSERT_TRUE(span.has_value()) << source;
  EXPECT_EQ(span->session_id, "a/b c");
  EXPECT_EQ(span->first_seq, 4);
  EXPECT_EQ(span->last_seq, 17);
  for (const char* other :
       {"", "context:s1", "https://example.com/#seq1-2", "agent://session/s/segment/x#seq1",
        "agent://session/s%zz/segment/x#seq1-2", "agent://session/s/segment/x#seq1-2trailing"}) {
    EXPECT_FALSE(ParseSegmentDocumentSource(other).has_value()) << other;
  }
}

}  // namespace
}  // namespace mnemo::archivist

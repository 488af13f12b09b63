// IndexTurn over a real backend (each kind): the turn's user message moves
// into the stored user row, and the segment decision in the rows'
// transaction reads it there.
#include "archivist/turn_indexer.h"

#include <gtest/gtest.h>

#include <iterator>
#include <string>
#include <vector>

#include "storage/backend_factory.h"

namespace mnemo::archivist {
namespace {

class TurnIndexer : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  Result<IndexedTurn> Index(Turn& turn, TimeMs at) {
    context::TurnComputation computation = TurnComputationOf(turn, nullptr);
    return IndexTurn(*stores_.episodic, "local", turn, at, std::move(computation), {});
  }

  mnemo::testing::TempDir dir_;
  storage::Stores stores_;
};

// Issue 45: the user message is stored without a copy (the turn's own is
// moved out), and the topic marker that closes a segment is read from the
// stored row.
TEST_P(TurnIndexer, TheUserMessageMovesIntoTheUserRowWhereTheSegmentStepReadsIt) {
  const std::string first = "Which harbour keeps the old lantern lit through the winter nights?";
  Turn turn{.session_id = "s", .user_message = first, .assistant_response = "The north one."};
  auto indexed = Index(turn, 1000);
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_EQ(indexed->user.content, first);
  EXPECT_TRUE(turn.user_message.empty());  // moved, not copied
  EXPECT_EQ(turn.assistant_response, "The north one.");
  const std::string opened = indexed->segment.open_id;
  ASSERT_FALSE(opened.empty());
  EXPECT_TRUE(indexed->segment.closed_id.empty());

  const std::string second = "Changing subject: what should I cook for dinner tonight, then?";
  Turn next{.session_id = "s", .user_message = second, .assistant_response = "Soup."};
  indexed = Index(next, 2000);
  ASSERT_TRUE(indexed.ok()) << indexed.status().ToString();
  EXPECT_TRUE(next.user_message.empty());
  EXPECT_EQ(indexed->user.content, second);
  EXPECT_EQ(indexed->segment.reason, BoundaryReason::kTopicMarker);
  EXPECT_EQ(indexed->segment.closed_id, opened);
  EXPECT_NE(indexed->segment.open_id, opened);
  auto rows = stores_.episodic->SessionTurns("local", SessionId::Parse("s").value(), 0, 10);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 4u);
  EXPECT_EQ((*rows)[0].content, first);
  EXPECT_EQ((*rows)[2].content, second);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, TurnIndexer,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::archivist

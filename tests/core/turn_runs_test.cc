// The turns of a context block in runs (spec 50, "Context block").
#include "core/archivist/turn_runs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/utf8.h"

namespace mnemo {
namespace {

constexpr TimeMs kMay8 = 1683554160000;  // 2023-05-08T13:56:00Z

storage::TurnRow Row(const std::string& session, int64_t seq) {
  return {.session_id = session,
          .seq = seq,
          .role = seq % 2 == 0 ? "user" : "assistant",
          .timestamp_ms = kMay8 + seq * 60'000};
}

size_t LinesChars(const TurnRuns& runs) {
  size_t chars = 0;
  for (const std::string& line : runs.Lines()) chars += text::CountCodePoints(line) + 3;
  return chars;
}

TEST(TurnRuns, NeighbouringTurnsShareOneLineInSessionOrder) {
  TurnRuns runs;
  ASSERT_TRUE(runs.AddIfFits(Row("s", 5), "Lisbon.", 1000));
  ASSERT_TRUE(runs.AddIfFits(Row("t", 1), "Elsewhere.", 1000));
  ASSERT_TRUE(runs.AddIfFits(Row("s", 4), "Where did you go?", 1000));
  EXPECT_EQ(runs.Lines(),
            (std::vector<std::string>{
                "(s, 2023-05-08 14:00) #4 user: Where did you go? #5 assistant: Lisbon.",
                "(t, 2023-05-08 13:57) #1 assistant: Elsewhere."}));
  EXPECT_EQ(runs.count(), 3u);
  EXPECT_EQ(runs.chars(), LinesChars(runs));
}

TEST(TurnRuns, ATurnThatClosesAGapJoinsTwoRunsAtTheBetterPlace) {
  TurnRuns runs;
  ASSERT_TRUE(runs.AddIfFits(Row("other", 9), "first", 1000));
  ASSERT_TRUE(runs.AddIfFits(Row("s", 3), "c", 1000));
  ASSERT_TRUE(runs.AddIfFits(Row("s", 1), "a", 1000));
  ASSERT_TRUE(runs.AddIfFits(Row("s", 2), "b", 1000));
  EXPECT_EQ(runs.Lines(),
            (std::vector<std::string>{"(other, 2023-05-08 14:05) #9 assistant: first",
                                      "(s, 2023-05-08 13:57) #1 assistant: a #2 user: b #3 "
                                      "assistant: c"}));
  EXPECT_EQ(runs.chars(), LinesChars(runs));
  EXPECT_FALSE(runs.AddIfFits(Row("s", 2), "b", 1000)) << "a turn is quoted once";
}

TEST(TurnRuns, ATurnThatDoesNotFitLeavesTheRoomToAShorterOne) {
  TurnRuns runs;
  ASSERT_TRUE(runs.AddIfFits(Row("s", 0), "short", 60));
  EXPECT_FALSE(runs.AddIfFits(Row("u", 0), std::string(100, 'x'), 60));
  EXPECT_TRUE(runs.AddIfFits(Row("s", 1), "ok", 60)) << runs.chars();
  EXPECT_LE(runs.chars(), 60u);
  EXPECT_EQ(runs.chars(), LinesChars(runs));
  EXPECT_TRUE(runs.HoldsTurnIn("local", "s", 1, 3));
  EXPECT_FALSE(runs.HoldsTurnIn("local", "u", 0, 3));
  EXPECT_FALSE(runs.HoldsTurnIn("local", "s", 2, 9));
}

}  // namespace
}  // namespace mnemo

#include "context/computation_text.h"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace mnemo::context {
namespace {

class ComputationText : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.Put(ToolSource::kConfig, {.name = "cmd_run", .no_memory = true});
    registry_.Put(ToolSource::kConfig,
                  {.name = "files_read",
                   .cleaner = text::Cleaner::Parse(R"([{"json_field": "content"}])").value()});
  }

  TurnComputation Compute(std::vector<ToolCall> calls) {
    return ComputeTurnText(registry_, "read the file", "the answer", calls);
  }

  // Names as called are matched case-insensitively, as the engine does.
  ToolRegistry registry_{[](std::string_view name) {
    std::string out(name);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  }};
};

// Issue 45: the user message is viewed, not copied.
TEST_F(ComputationText, TheUserTextViewsTheMessage) {
  const std::string message(2000, 'm');
  const TurnComputation t = ComputeTurnText(registry_, message, "answer", {});
  EXPECT_EQ(static_cast<const void*>(t.user.data()), static_cast<const void*>(message.data()));
  EXPECT_EQ(t.user.size(), message.size());
  EXPECT_EQ(t.Joined(), message + "\nanswer");
}

TEST_F(ComputationText, NoMemoryLeavesOnlyTheOutputOut) {
  TurnComputation t = Compute({{.name = "cmd_run", .output = "root:x:0:0:root:/root:/bin/bash"},
                               {.name = "other", .output = "kept output"}});
  EXPECT_EQ(t.user, "read the file");
  EXPECT_EQ(t.assistant, "the answer\nkept output");
  EXPECT_EQ(t.assistant.find("root:x"), std::string::npos);
  EXPECT_TRUE(t.failures.empty());
}

TEST_F(ComputationText, NoMemoryAlsoIgnoresACallersCleanOutput) {
  TurnComputation t = Compute({{.name = "cmd_run", .output = "secret", .clean_output = "sec"}});
  EXPECT_EQ(t.assistant, "the answer");
}

TEST_F(ComputationText, TheCleanerTakesItsPart) {
  TurnComputation t = Compute(
      {{.name = "files_read", .output = R"({"path":"/srv/app","content":"main.py, deploy.py"})"}});
  EXPECT_EQ(t.assistant, "the answer\nmain.py, deploy.py");
  EXPECT_TRUE(t.failures.empty());
}

TEST_F(ComputationText, ACallersCleanOutputWinsOverTheCleaner) {
  TurnComputation t =
      Compute({{.name = "files_read", .output = R"({"content":"a"})", .clean_output = "mine"}});
  EXPECT_EQ(t.assistant, "the answer\nmine");
}

TEST_F(ComputationText, ABlankCleanOutputIsIgnored) {
  TurnComputation t =
      Compute({{.name = "files_read", .output = R"({"content":"a.py"})", .clean_output = "  "}});
  EXPECT_EQ(t.assistant, "the answer\na.py");
}

TEST_F(ComputationText, AFailingCleanerFallsBackToTheRawOutputAndIsReported) {
  TurnComputation t = Compute(
      {{.name = "other", .output = "x"}, {.name = "Files_Read", .output = "plain text, not JSON"}});
  EXPECT_EQ(t.assistant, "the answer\nx\nplain text, not JSON");
  ASSERT_EQ(t.failures.size(), 1u);
  EXPECT_EQ(t.failures[0].call_index, 1u);
  EXPECT_EQ(t.failures[0].tool, "Files_Read");
  EXPECT_FALSE(t.failures[0].reason.empty());
}

TEST_F(ComputationText, UnknownToolsTakePartRawInCallOrder) {
  TurnComputation t = Compute({{.name = "b", .output = "second"},
                               {.name = "a", .output = ""},
                               {.name = "c", .output = "third"}});
  EXPECT_EQ(t.assistant, "the answer\nsecond\nthird");
  EXPECT_EQ(t.Joined(), "read the file\nthe answer\nsecond\nthird");
}

TEST(ComputationTextJoined, LeavesEmptyPartsOut) {
  EXPECT_EQ((TurnComputation{.user = "", .assistant = "a"}).Joined(), "a");
  EXPECT_EQ((TurnComputation{.user = "u", .assistant = ""}).Joined(), "u");
}

TEST(DocumentComputationText, IsTheStoredComputationTextElseTheContent) {
  ToolRegistry registry;
  EXPECT_EQ(DocumentComputationText(registry, {.content = "raw", .search_text = "computed"}),
            "computed");
  EXPECT_EQ(DocumentComputationText(registry, {.content = "raw"}), "raw");
}

}  // namespace
}  // namespace mnemo::context

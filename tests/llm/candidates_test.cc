#include "llm/candidates.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace mnemo::llm {
namespace {

TEST(CandidatesPrompt, NamesTheSlotsAndQuotesEveryUserMessage) {
  const std::vector<std::string> messages = {"I live in Ghent.", "我住在成都。"};
  constexpr std::string_view kSlots[] = {"location", "diet"};
  const std::vector<ChatMessage> prompt = CandidatesPrompt(messages, kSlots);
  ASSERT_EQ(prompt.size(), 2U);
  EXPECT_EQ(prompt[0].role, "system");
  EXPECT_NE(prompt[0].content.find("location, diet"), std::string::npos);
  EXPECT_NE(prompt[0].content.find("\"slots\""), std::string::npos);
  EXPECT_EQ(prompt[1].content, "User: I live in Ghent.\nUser: 我住在成都。");
}

TEST(ParseCandidates, ReadsSlotsAndEventsInOrWithoutAFence) {
  const std::string body =
      R"({"slots": [{"slot": "diet", "value": "vegan", "sentence": "I'm vegan."},
                    {"slot": "preference", "about": "tea", "value": "green",
                     "sentence": "I drink my tea green."}],
          "events": [{"type": "reminder", "sentence": "Remind me to call Ana."}]})";
  for (const std::string& answer : {body, "```json\n" + body + "\n```", "```\n" + body + "```"}) {
    Result<Candidates> c = ParseCandidates(answer);
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_EQ(c->slots.size(), 2U);
    EXPECT_EQ(c->slots[0].slot, "diet");
    EXPECT_EQ(c->slots[0].value, "vegan");
    EXPECT_EQ(c->slots[1].about, "tea");
    ASSERT_EQ(c->events.size(), 1U);
    EXPECT_EQ(c->events[0].type, "reminder");
    EXPECT_EQ(c->events[0].sentence, "Remind me to call Ana.");
  }
  Result<Candidates> empty = ParseCandidates(R"({"slots": []})");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->slots.empty());
  EXPECT_TRUE(empty->events.empty());
}

TEST(ParseCandidates, RefusesWhatIsNotTheExpectedShape) {
  for (const char* answer : {"location is Ghent", "[1, 2]", R"({"slots": {"slot": "diet"}})",
                             R"({"slots": [{"slot": "diet", "value": "vegan"}]})",
                             R"({"slots": [{"slot": 3, "value": "x", "sentence": "I am x."}]})",
                             R"({"events": ["I'm vegan."]})"}) {
    Result<Candidates> c = ParseCandidates(answer);
    ASSERT_FALSE(c.ok()) << answer;
    EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument) << answer;
  }
}

}  // namespace
}  // namespace mnemo::llm

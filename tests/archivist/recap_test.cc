#include "archivist/recap.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/utf8.h"

namespace mnemo::archivist {
namespace {

using Strings = std::vector<std::string>;

const Strings kDeployTalk = {
    "The deploy to production failed last night.",
    "My cat knocked over a plant this morning.",
    "The production deploy failed because the migration timed out.",
    "We should rerun the deploy after fixing the migration.",
    "Lunch is at noon on Friday.",
    "Thanks, that sounds good.",  // small talk: never in a recap (text/phatic.h)
};

TEST(ExtractiveRecap, EmptyInputOrBudgetGivesNothing) {
  EXPECT_EQ(ExtractiveRecap({}, 100), "");
  EXPECT_EQ(ExtractiveRecap({"", "  ", "ok", "hi!"}, 100), "");
  EXPECT_EQ(ExtractiveRecap(kDeployTalk, 0), "");
  EXPECT_EQ(ExtractiveRecap(kDeployTalk, -5), "");
}

TEST(ExtractiveRecap, PicksTheCentralSentenceOverAnOffTopicOne) {
  // Room for about one sentence: the one that shares most with the rest.
  const std::string recap = ExtractiveRecap(kDeployTalk, 16);
  EXPECT_EQ(recap, "The production deploy failed because the migration timed out.");
  EXPECT_EQ(recap.find("cat"), std::string::npos);
}

TEST(ExtractiveRecap, EmitsChosenSentencesInOriginalOrder) {
  const std::string recap = ExtractiveRecap(kDeployTalk, 40);
  EXPECT_EQ(recap,
            "The deploy to production failed last night. "
            "The production deploy failed because the migration timed out. "
            "We should rerun the deploy after fixing the migration.");
}

TEST(ExtractiveRecap, AGenerousBudgetKeepsEverySentenceOnce) {
  Strings turns = kDeployTalk;
  turns.push_back("The deploy to production failed last night.");
  EXPECT_EQ(ExtractiveRecap(turns, 1000),
            "The deploy to production failed last night. "
            "My cat knocked over a plant this morning. "
            "The production deploy failed because the migration timed out. "
            "We should rerun the deploy after fixing the migration. "
            "Lunch is at noon on Friday.");
}

TEST(ExtractiveRecap, RespectsTheBudget) {
  for (int64_t budget = 1; budget <= 80; ++budget) {
    const std::string recap = ExtractiveRecap(kDeployTalk, budget);
    EXPECT_LE(static_cast<int64_t>(recap.size()), budget * kBytesPerToken) << budget;
    EXPECT_FALSE(recap.empty()) << budget;
    EXPECT_TRUE(text::IsValidUtf8(recap)) << budget;
  }
}

TEST(ExtractiveRecap, FillsLeftoverRoomWithShorterSentences) {
  // 25 tokens = 100 bytes: the 62-byte best sentence, then the 27-byte
  // "Lunch…" fits where the longer ones do not.
  const std::string recap = ExtractiveRecap(kDeployTalk, 25);
  EXPECT_EQ(recap,
            "The production deploy failed because the migration timed out. "
            "Lunch is at noon on Friday.");
}

TEST(ExtractiveRecap, IsNotABookendStub) {
  const Strings turns = {
      "Hello there, I have a question.",
      "Our Postgres replica lags behind the primary by minutes.",
      "The replica lag grows when the nightly batch job runs on the primary.",
      "Raising the WAL sender timeout did not reduce the replica lag.",
      "Thanks a lot, bye for now.",
  };
  const std::string recap = ExtractiveRecap(turns, 35);
  EXPECT_EQ(recap.find("Hello"), std::string::npos) << recap;
  EXPECT_EQ(recap.find("bye"), std::string::npos) << recap;
  EXPECT_NE(recap.find("replica lag"), std::string::npos) << recap;
}

TEST(ExtractiveRecap, CutsTheBestSentenceWhenNothingFits) {
  const std::string recap = ExtractiveRecap(kDeployTalk, 5);
  EXPECT_EQ(recap, "The production\xE2\x80\xA6");
  EXPECT_LE(recap.size(), 20U);
}

TEST(ExtractiveRecap, CutsChineseAtACodePoint) {
  const std::string recap = ExtractiveRecap({"部署到生产环境失败了，因为数据库迁移超时。"}, 3);
  EXPECT_TRUE(text::IsValidUtf8(recap));
  EXPECT_LE(recap.size(), 12U);
  EXPECT_EQ(recap, "部署到\xE2\x80\xA6");
}

TEST(ExtractiveRecap, IsDeterministic) {
  const std::string first = ExtractiveRecap(kDeployTalk, 30);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(ExtractiveRecap(kDeployTalk, 30), first);
}

TEST(ExtractiveRecap, WorksForChinese) {
  const Strings turns = {
      "数据库迁移昨晚失败了。",
      "我家的猫今天早上打翻了花盆。",
      "数据库迁移失败是因为迁移脚本超时。",
      "修好迁移脚本以后再重新运行数据库迁移。",
  };
  const std::string recap = ExtractiveRecap(turns, 12);
  EXPECT_NE(recap.find("迁移"), std::string::npos) << recap;
  EXPECT_EQ(recap.find("猫"), std::string::npos) << recap;
  EXPECT_LE(recap.size(), 48U);
}

TEST(ExtractiveRecap, SplitsTurnsIntoSentences) {
  const Strings turns = {
      "The build is red. My cat is asleep. The build fails on the linker step.",
      "Fix the linker flags and the build will pass.",
  };
  // 25 tokens = 100 bytes: room for all but one sentence, and the aside
  // about the cat is the one left out.
  EXPECT_EQ(ExtractiveRecap(turns, 25),
            "The build is red. The build fails on the linker step. "
            "Fix the linker flags and the build will pass.");
}

}  // namespace
}  // namespace mnemo::archivist

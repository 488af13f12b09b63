#include "text/phatic.h"

#include <gtest/gtest.h>

#include "text/summary.h"

namespace mnemo::text {
namespace {

TEST(Phatic, SmallTalkIsPhaticInEnglishChineseAndArabic) {
  for (const char* s :
       {"Hi!", "Hello, how are you doing today?", "Thanks a lot!", "Bye!", "No problem.",
        "Good morning!", "You're welcome.", "See you later.", "Okay, sounds good.", "你好！",
        "谢谢！", "再见。", "مرحبا", "شكرا جزيلا"}) {
    EXPECT_TRUE(IsPhaticSentence(s)) << s;
  }
}

TEST(Phatic, ASentenceThatSaysSomethingIsNot) {
  for (const char* s : {"Thanks, the Lisbon flight is booked.", "Bye, I moved to Bangalore.",
                        "Good morning, my meeting is at 9.", "I am going tomorrow.",
                        "The build has a problem with the linker.", "我住在北京。", ""}) {
    EXPECT_FALSE(IsPhaticSentence(s)) << s;
  }
}

TEST(Phatic, WithoutPhaticSentencesKeepsTheRestOrEverything) {
  EXPECT_EQ(WithoutPhaticSentences("Hi! I adopted a cat named Luna. Thanks, bye!"),
            "I adopted a cat named Luna.");
  EXPECT_EQ(WithoutPhaticSentences("Hi! Thanks!"), "Hi! Thanks!");
}

TEST(Phatic, SummariesSkipSmallTalkUnlessThatIsAllThereIs) {
  EXPECT_EQ(ExtractiveSummary({"Hello! How are you?", "I adopted a cat named Luna.", "Bye!"}, 200),
            "I adopted a cat named Luna.");
  EXPECT_EQ(ExtractiveSummary({"Hello!", "Bye!"}, 200), "Hello! Bye!");
}

}  // namespace
}  // namespace mnemo::text

#include "archivist/events.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mnemo::archivist {
namespace {

using Strings = std::vector<std::string>;

TEST(EventSentences, SplitsOnTerminatorsAndLineBreaks) {
  EXPECT_EQ(EventSentences("First one here. Second one here! Third one here? Fourth"),
            (Strings{"First one here.", "Second one here!", "Third one here?", "Fourth"}));
  EXPECT_EQ(EventSentences("line number one\nline number two\r\nline three"),
            (Strings{"line number one", "line number two", "line three"}));
  EXPECT_EQ(EventSentences("我决定用它。我喜欢茶！你呢？好的"),
            (Strings{"我决定用它。", "我喜欢茶！", "你呢？", "好的"}));
}

TEST(EventSentences, KeepsRunsOfTerminatorsAndClosersWithTheSentence) {
  EXPECT_EQ(EventSentences("Really?! Yes indeed... \"Quoted sentence.\" (Bracketed one.) Done now"),
            (Strings{"Really?!", "Yes indeed...", "\"Quoted sentence.\"", "(Bracketed one.)",
                     "Done now"}));
  EXPECT_EQ(EventSentences("他说「好的。」然后走了"), (Strings{"他说「好的。」", "然后走了"}));
}

TEST(EventSentences, DoesNotSplitEmailsUrlsOrDecimals) {
  EXPECT_EQ(EventSentences("Mail sarah.connor@example.com today. Then rest."),
            (Strings{"Mail sarah.connor@example.com today.", "Then rest."}));
  EXPECT_EQ(EventSentences("See https://example.com/a.b?c=1&d=2!x for it. Done here."),
            (Strings{"See https://example.com/a.b?c=1&d=2!x for it.", "Done here."}));
  EXPECT_EQ(EventSentences("Pi is 3.14 and v1.2.3 shipped. Next up."),
            (Strings{"Pi is 3.14 and v1.2.3 shipped.", "Next up."}));
  EXPECT_EQ(EventSentences("Read notes.txt first"), (Strings{"Read notes.txt first"}));
}

TEST(EventSentences, AnAsciiTerminatorBeforeChineseEndsTheSentence) {
  EXPECT_EQ(EventSentences("I like tea.我喜欢咖啡"), (Strings{"I like tea.", "我喜欢咖啡"}));
}

TEST(EventSentences, SkipsPiecesShorterThanSixBytesAndTrims) {
  EXPECT_EQ(EventSentences("Ok. Sure. Hello. Hello there. Fine!"), (Strings{"Hello there."}));
  EXPECT_EQ(EventSentences("嗯。好。行吧。"), (Strings{"行吧。"}));  // 行吧 is 6 bytes
  EXPECT_EQ(EventSentences("  \t padded words here  \n\n\n   "), (Strings{"padded words here"}));
  EXPECT_EQ(EventSentences("\xE3\x80\x80全角空格前后\xE3\x80\x80"), (Strings{"全角空格前后"}));
  EXPECT_EQ(EventSentences(""), Strings{});
  EXPECT_EQ(EventSentences("...!!!???"), Strings{});
  EXPECT_EQ(EventSentences("... ! ?"), Strings{});
}

TEST(EventSentences, SurvivesInvalidUtf8) {
  const Strings out = EventSentences("bad \xFF\xFE bytes here. ok then \xE4\xB8");
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], "bad \xFF\xFE bytes here.");
}

struct TypeCase {
  std::string sentence;
  std::string type;  // "" for no event
};

TEST(ExtractEvents, ClassifiesSentencesByTheSpecTable) {
  const std::vector<TypeCase> cases = {
      // decisions
      {"Let's go with PostgreSQL", "decision"},
      {"I've decided to stay", "decision"},
      {"I’ve decided to stay", "decision"},
      {"We agreed on weekly releases", "decision"},
      {"The decision is final", "decision"},
      {"Going with the flow is my thing", "decision"},
      {"We'll use Redis for the cache", "decision"},
      {"I choose the blue one", "decision"},
      {"我决定明天出发", "decision"},
      {"那就用MySQL吧", "decision"},
      {"方案定了", "decision"},
      // commitments
      {"I'll send it by Friday", "commitment"},
      {"Done by wednesday, promise", "commitment"},
      {"I will review the PR", "commitment"},
      {"The deadline is March 3", "commitment"},
      {"We plan to migrate in Q3", "commitment"},
      {"It's scheduled for noon", "commitment"},
      {"我会在周五前发给你", "commitment"},
      {"下周前交付报告", "commitment"},
      {"我们打算搬家", "commitment"},
      // preferences
      {"I prefer dark mode", "preference"},
      {"I LOVE spicy food", "preference"},
      {"My favourite editor is Vim", "preference"},
      {"I'm used to tabs", "preference"},
      {"I tend to work late", "preference"},
      {"我喜欢喝绿茶", "preference"},
      {"我不喜欢开会", "preference"},
      {"我习惯早起", "preference"},
      // facts
      {"I'm based in Berlin", "fact"},
      {"My name is Alice", "fact"},
      {"I work at Acme Corp", "fact"},
      {"I am a nurse", "fact"},
      {"I’m from Lyon", "fact"},
      {"My time zone is CET", "fact"},
      {"我叫张伟", "fact"},
      {"我的猫叫咪咪", "fact"},
      {"我养了一只狗", "fact"},
      {"我有一只兔子", "fact"},
      {"我住在上海", "fact"},
      {"我在腾讯工作", "fact"},
      {"我在北京的一家公司工作", "fact"},
      {"我来自成都", "fact"},
      // nothing
      {"The weather is nice today", ""},
      {"Unlike you, I am an engineer", ""},  // "i am a" needs the word "a"
      {"Ohi like this", ""},                 // word boundary before "i like"
      {"I liked the film", ""},              // word boundary after "i like"
      {"I willfully disregard it", ""},      // "i will" + "fully"
      {"工作在我之前", ""},                  // 工作 before 我在
      {"今天天气很好", ""},
  };
  for (const TypeCase& c : cases) {
    const std::vector<Event> events = ExtractEvents(c.sentence);
    if (c.type.empty()) {
      EXPECT_TRUE(events.empty()) << c.sentence << " -> " << events.front().type;
      continue;
    }
    ASSERT_EQ(events.size(), 1U) << c.sentence;
    EXPECT_EQ(events[0].type, c.type) << c.sentence;
    EXPECT_EQ(events[0].text, c.sentence);
    EXPECT_DOUBLE_EQ(events[0].confidence, kPlainConfidence) << c.sentence;
  }
}

TEST(ExtractEvents, RemindersAreKeptAsReminders) {
  for (const char* sentence :
       {"Don't forget the oat milk.", "Please remind me to renew my passport.",
        "Do not forget the parking permit!", "Remember to water the basil on Sunday.",
        "别忘了周六的牙医预约。", "提醒我给房东打电话。"}) {
    const std::vector<Event> events = ExtractEvents(sentence);
    ASSERT_EQ(events.size(), 1U) << sentence;
    EXPECT_EQ(events[0].type, kEventReminder) << sentence;
    EXPECT_TRUE(IsClosableEvent(events[0].type));
  }
  EXPECT_TRUE(IsClosableEvent(kEventCommitment));
  EXPECT_FALSE(IsClosableEvent(kEventDecision));
  EXPECT_FALSE(IsClosableEvent(kEventFact));
}

TEST(ExtractEvents, SmallTalkAndReactionsAreNeverEvents) {
  for (const char* sentence :
       {"Haha, I love it!", "Wow, I like that a lot.", "Thanks, I will!", "I'll do that, thanks.",
        "lol I always do", "Okay, going with that", "Cool, thanks so much!", "Great, I promise!"}) {
    EXPECT_TRUE(ExtractEvents(sentence).empty())
        << sentence << " -> " << ExtractEvents(sentence).front().type;
  }
  // The same patterns with something of their own are events.
  EXPECT_EQ(ExtractEvents("Haha, I love sailing!").size(), 1U);
  EXPECT_EQ(ExtractEvents("Thanks, I will book the ferry.").size(), 1U);
}

TEST(ExtractEvents, EveryWeekdayIsADeadline) {
  for (const char* day :
       {"Monday", "tuesday", "WEDNESDAY", "Thursday", "friday", "Saturday", "sunday"}) {
    const std::string sentence = std::string("Ship it by ") + day;
    const std::vector<Event> events = ExtractEvents(sentence);
    ASSERT_EQ(events.size(), 1U) << sentence;
    EXPECT_EQ(events[0].type, "commitment") << sentence;
  }
}

TEST(ExtractEvents, HedgedSentencesGetLowerConfidence) {
  const std::vector<std::string> hedged = {
      "I think I prefer Go",
      "Maybe we'll use Kafka",
      "Probably I live in Oslo",
      "Not sure, but I like jazz",
      "I'm not sure I will go",
      "我觉得我喜欢这个",
      "可能我会迟到",
      "也许就用这个",
      "我住在这附近，好像是",
      "I THINK my name is Bob, maybe",
  };
  for (const std::string& s : hedged) {
    const std::vector<Event> events = ExtractEvents(s);
    ASSERT_EQ(events.size(), 1U) << s;
    EXPECT_DOUBLE_EQ(events[0].confidence, kHedgedConfidence) << s;
  }
  // "maybelline" is not "maybe"
  const std::vector<Event> plain = ExtractEvents("I like Maybelline");
  ASSERT_EQ(plain.size(), 1U);
  EXPECT_DOUBLE_EQ(plain[0].confidence, kPlainConfidence);
}

TEST(ExtractEvents, DecisionBeatsCommitmentBeatsPreferenceBeatsFact) {
  auto type_of = [](std::string_view s) {
    const std::vector<Event> events = ExtractEvents(s);
    return events.size() == 1 ? events[0].type : std::string("?");
  };
  EXPECT_EQ(type_of("I prefer Rust so let's go with it"), "decision");
  EXPECT_EQ(type_of("I'm a dev and I will ship by Friday"), "commitment");
  EXPECT_EQ(type_of("I live in Rome and I love pasta"), "preference");
  EXPECT_EQ(type_of("We decided I will do the release"), "decision");
  EXPECT_EQ(type_of("我喜欢Python，所以我决定用它"), "decision");
  EXPECT_EQ(type_of("我住在杭州，我喜欢西湖"), "preference");
}

TEST(ExtractEvents, OneEventPerSentenceInOrderAndDuplicatesOnce) {
  const std::vector<Event> events = ExtractEvents(
      "I prefer tea. The sky is blue. I prefer tea. We decided to ship!\nI prefer tea.\n"
      "I prefer tea!");
  ASSERT_EQ(events.size(), 3U);
  EXPECT_EQ(events[0].text, "I prefer tea.");
  EXPECT_EQ(events[0].type, "preference");
  EXPECT_EQ(events[1].text, "We decided to ship!");
  EXPECT_EQ(events[1].type, "decision");
  EXPECT_EQ(events[2].text, "I prefer tea!");  // not byte-identical
}

TEST(ExtractEvents, SentencesAreSplitBeforeMatching) {
  const std::vector<Event> events =
      ExtractEvents("Mail me at bob.smith@example.com. I work at example.org since 2.5 years");
  ASSERT_EQ(events.size(), 1U);
  EXPECT_EQ(events[0].type, "fact");
  EXPECT_EQ(events[0].text, "I work at example.org since 2.5 years");
  // "i" at the end of one sentence and "like" at the start of the next
  // never form "i like": the piece boundary is a line break.
  EXPECT_TRUE(ExtractEvents("this is pi\nlike a circle").empty());
  // Short pieces are skipped before matching.
  EXPECT_TRUE(ExtractEvents("I'm a").empty());
  EXPECT_TRUE(ExtractEvents("Ok. I'm a...").empty());
  EXPECT_EQ(ExtractEvents("I will ship.").size(), 1U);
  EXPECT_EQ(ExtractEvents("我爱猫。").size(), 1U);
  // A pattern with nothing of its own is a reaction, never an event.
  EXPECT_TRUE(ExtractEvents("I will.").empty());
}

TEST(FoldForMatch, FoldsCaseApostrophesAndSpaces) {
  EXPECT_EQ(FoldForMatch("I’M  Here\t\nNOW"), "i'm here now");
  EXPECT_EQ(FoldForMatch("Ünïcode 中文 ʼx"), "Ünïcode 中文 'x");
}

TEST(ContainsPhrase, RespectsWordBoundariesOnlyAtWordEdges) {
  EXPECT_TRUE(ContainsPhrase("so i like it", "i like"));
  EXPECT_FALSE(ContainsPhrase("hi like it", "i like"));
  EXPECT_FALSE(ContainsPhrase("i liked it", "i like"));
  EXPECT_TRUE(ContainsPhrase("i liked it, then i like it", "i like"));
  EXPECT_TRUE(ContainsPhrase("anyway,x", "anyway,"));
  EXPECT_FALSE(ContainsPhrase("anyway x", "anyway,"));
  EXPECT_TRUE(ContainsPhrase("好的新问题吗", "新问题"));
  EXPECT_FALSE(ContainsPhrase("anything", ""));
}

}  // namespace
}  // namespace mnemo::archivist

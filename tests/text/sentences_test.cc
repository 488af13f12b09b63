#include "text/sentences.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "text/utf8.h"

namespace mnemo::text {
namespace {

using Strings = std::vector<std::string>;

// The options the archivist uses for events (spec 40).
constexpr SentenceOptions kEventLike{.split_on_semicolon = false,
                                     .keep_abbreviations = false,
                                     .split_before_non_ascii = true,
                                     .min_bytes = 6};

TEST(SplitSentences, SplitsAfterTerminatorsFollowedBySpace) {
  EXPECT_EQ(SplitSentences("One here. Two here! Three here? Four"),
            (Strings{"One here.", "Two here!", "Three here?", "Four"}));
}

TEST(SplitSentences, SplitsAtEveryKindOfLineBreak) {
  EXPECT_EQ(SplitSentences("a\nb\r\nc\rd\xC2\x85"
                           "e\xE2\x80\xA8"
                           "f\xE2\x80\xA9g"),
            (Strings{"a", "b", "c", "d", "e", "f", "g"}));
}

TEST(SplitSentences, KeepsEmailAddressesWhole) {
  EXPECT_EQ(SplitSentences("Mail sarah.chen@example.com. Then stop."),
            (Strings{"Mail sarah.chen@example.com.", "Then stop."}));
  EXPECT_EQ(SplitSentences("Ask a@b.io!", kEventLike), (Strings{"Ask a@b.io!"}));
}

TEST(SplitSentences, KeepsUrlsWhole) {
  EXPECT_EQ(SplitSentences("See https://x.io/a.b?c=1&d=2!x now. Done."),
            (Strings{"See https://x.io/a.b?c=1&d=2!x now.", "Done."}));
  EXPECT_EQ(SplitSentences("Open www.example.org/a;b=c today"),
            (Strings{"Open www.example.org/a;b=c today"}));
}

TEST(SplitSentences, KeepsFileNamesDecimalsAndVersionsWhole) {
  EXPECT_EQ(SplitSentences("Read notes.txt first. Pi is 3.14 and v1.2.3 shipped."),
            (Strings{"Read notes.txt first.", "Pi is 3.14 and v1.2.3 shipped."}));
}

TEST(SplitSentences, DoesNotSplitAfterAbbreviationsOrInitials) {
  EXPECT_EQ(SplitSentences("Use e.g. grep, i.e. rg, etc. Ask Dr. Who vs. Mr. X. Done."),
            (Strings{"Use e.g. grep, i.e. rg, etc. Ask Dr. Who vs. Mr. X. Done."}));
  EXPECT_EQ(SplitSentences("Email J. Smith. Then MRS. Doe at Main St. today."),
            (Strings{"Email J. Smith.", "Then MRS. Doe at Main St. today."}));
  // Longer words are not abbreviations, nor is a run of terminators.
  EXPECT_EQ(SplitSentences("Visit Paris. Then Mr.. Done"),
            (Strings{"Visit Paris.", "Then Mr..", "Done"}));
}

TEST(SplitSentences, AbbreviationsCanBeTurnedOff) {
  EXPECT_EQ(SplitSentences("Use e.g. tea here", {.keep_abbreviations = false}),
            (Strings{"Use e.g.", "tea here"}));
}

TEST(SplitSentences, SplitsOnChinesePunctuationWithoutSpaces) {
  EXPECT_EQ(SplitSentences("我决定用它。我喜欢茶！你呢？好；行"),
            (Strings{"我决定用它。", "我喜欢茶！", "你呢？", "好；", "行"}));
}

TEST(SplitSentences, SemicolonsCanBeTurnedOff) {
  EXPECT_EQ(SplitSentences("first part; second part"), (Strings{"first part;", "second part"}));
  EXPECT_EQ(SplitSentences("first part; second part", {.split_on_semicolon = false}),
            (Strings{"first part; second part"}));
  EXPECT_EQ(SplitSentences("好；行", {.split_on_semicolon = false}), (Strings{"好；行"}));
}

TEST(SplitSentences, SplitsBeforeNonAsciiOnlyWhenAsked) {
  EXPECT_EQ(SplitSentences("I like tea.我喜欢咖啡"), (Strings{"I like tea.我喜欢咖啡"}));
  EXPECT_EQ(SplitSentences("I like tea.我喜欢咖啡", {.split_before_non_ascii = true}),
            (Strings{"I like tea.", "我喜欢咖啡"}));
}

TEST(SplitSentences, KeepsRunsOfTerminatorsAndClosersWithTheSentence) {
  EXPECT_EQ(SplitSentences("Really?! He said \"no.\" Wait... (Yes.) 他说「好。」然后《走。》了"),
            (Strings{"Really?!", "He said \"no.\"", "Wait...", "(Yes.)", "他说「好。」",
                     "然后《走。》", "了"}));
  EXPECT_EQ(SplitSentences("Wait?\xE2\x80\xA6 next"), (Strings{"Wait?\xE2\x80\xA6", "next"}));
}

TEST(SplitSentences, DropsPiecesShorterThanMinBytesWithoutTheirPunctuation) {
  EXPECT_EQ(SplitSentences("Ok. Sure. Hello. Hello there. Fine!", kEventLike),
            (Strings{"Hello there."}));
  EXPECT_EQ(SplitSentences("嗯。好。行吧。", kEventLike), (Strings{"行吧。"}));
  EXPECT_EQ(SplitSentences("...!!!???", kEventLike), Strings{});
  EXPECT_EQ(SplitSentences("...!!!???"), (Strings{"...!!!???"}));
}

TEST(SplitSentences, TrimsAndDropsEmptyPieces) {
  EXPECT_TRUE(SplitSentences("").empty());
  EXPECT_TRUE(SplitSentences(" \n\t \xE3\x80\x80 ").empty());
  EXPECT_EQ(SplitSentences("  a.  \n\n  b  "), (Strings{"a.", "b"}));
  EXPECT_EQ(SplitSentences("\xE3\x80\x80全角空格前后\xE3\x80\x80"), (Strings{"全角空格前后"}));
}

TEST(SplitSentences, CopiesInvalidUtf8Through) {
  const Strings out = SplitSentences("bad \xFF\xFE bytes here. ok then \xE4\xB8");
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(out[0], "bad \xFF\xFE bytes here.");
  EXPECT_EQ(out[1], "ok then \xE4\xB8");
  // An ill-formed byte after a terminator ends the sentence only when
  // splitting before non-ASCII.
  EXPECT_EQ(SplitSentences("stop.\xFF"), (Strings{"stop.\xFF"}));
  EXPECT_EQ(SplitSentences("stop.\xFF", {.split_before_non_ascii = true}),
            (Strings{"stop.", "\xFF"}));
  for (const char* in : {"\xE3\x80", "\xF0\x9F\x98", ".\xE2\x80", "\xEF\xBC"}) {
    for (const std::string& s : SplitSentences(in)) EXPECT_FALSE(s.empty());
  }
}

TEST(IsSentenceCloser, CoversQuotesBracketsAndEllipsis) {
  for (int32_t cp : std::vector<int32_t>{'"', '\'', ')', ']', '}', 0x00BB, 0x2019, 0x201D, 0x2026,
                                         0x300B, 0x300D, 0x300F, 0x3011, 0xFF09}) {
    EXPECT_TRUE(IsSentenceCloser(cp)) << cp;
  }
  for (int32_t cp : std::vector<int32_t>{'(', '.', 'a', 0x201C, 0x300C, -1})
    EXPECT_FALSE(IsSentenceCloser(cp)) << cp;
}

}  // namespace
}  // namespace mnemo::text

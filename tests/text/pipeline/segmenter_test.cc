#include "text/pipeline/segmenter.h"

#include <gtest/gtest.h>
#include <unicode/brkiter.h>
#include <unicode/utext.h>

#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace mnemo::text {
namespace {

std::vector<std::string> Identifiers(std::string_view text) {
  std::vector<ByteSpan> spans;
  FindIdentifiers(text, &spans);
  std::vector<std::string> out;
  for (const auto& s : spans) out.emplace_back(text.substr(s.start, s.end - s.start));
  return out;
}

// Each segment's end and whether it is a word (rule status of a letter,
// number, kana or ideograph).
using Segments = std::vector<std::pair<int32_t, bool>>;

Segments IcuSegments(std::string_view text) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> bi(
      icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
  UText ut = UTEXT_INITIALIZER;
  utext_openUTF8(&ut, text.data(), static_cast<int64_t>(text.size()), &status);
  bi->setText(&ut, status);
  EXPECT_TRUE(U_SUCCESS(status));
  Segments out;
  bi->first();
  for (int32_t end = bi->next(); end != icu::BreakIterator::DONE; end = bi->next()) {
    out.emplace_back(end, bi->getRuleStatus() >= UBRK_WORD_NONE_LIMIT);
  }
  utext_close(&ut);
  return out;
}

Segments AsciiSegments(std::string_view text) {
  Segments out;
  for (int32_t pos = 0; pos < static_cast<int32_t>(text.size());) {
    bool word = false;
    pos = NextAsciiSegment(text, pos, &word);
    out.emplace_back(pos, word);
  }
  return out;
}

TEST(Segmenter, AsciiRulesEqualIcu) {
  for (const std::string_view text :
       {"a:b 1:2 __ _ a_ _a 1_ _1 a__b _._", "  x\t\ty\r\n\r\rz\n\v\f",
        "a.b.c 1,000.5 a.1 1.a a..b don't 1'2 a;b 1;2 a,b", "e.g. U.S.A. 3.14, x'",
        "'a' \"q\" -1"}) {
    EXPECT_EQ(AsciiSegments(text), IcuSegments(text)) << text;
  }
  // Random text over the bytes the rules treat apart, and now and then any
  // ASCII byte.
  constexpr std::string_view kAlphabet = "aZk09_.',;: \t\r\n\v\f-\"/@";
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string text(1 + rng() % 12, ' ');
    for (char& c : text) {
      c = rng() % 8 == 0 ? static_cast<char>(rng() % 128) : kAlphabet[rng() % kAlphabet.size()];
    }
    ASSERT_EQ(AsciiSegments(text), IcuSegments(text)) << "[" << text << "]";
  }
}

TEST(Segmenter, FindsIdentifiersWithJoiners) {
  EXPECT_EQ(Identifiers("run deploy.py, then /etc/passwd."),
            (std::vector<std::string>{"deploy.py", "/etc/passwd"}));
  EXPECT_EQ(Identifiers("x@y.com 1.2 a::b ~/.bashrc C++ #tag"),
            (std::vector<std::string>{"x@y.com", "1.2", "a::b"}));
  EXPECT_TRUE(Identifiers("plain words only").empty());
}

TEST(Segmenter, IgnoresRunsGluedToForeignLetters) {
  EXPECT_TRUE(Identifiers("naïve_bayes").empty());
  EXPECT_EQ(Identifiers("的deploy.py"), (std::vector<std::string>{"deploy.py"}));
}

TEST(Segmenter, LeavesOverlongRunsToIcu) {
  std::string run = "a";
  for (int i = 0; i < 100; ++i) run += ".b";
  EXPECT_TRUE(Identifiers(run).empty());
}

TEST(Segmenter, ClassifiesCjk) {
  EXPECT_TRUE(IsCjk(U'中'));
  EXPECT_TRUE(IsCjk(U'の'));
  EXPECT_TRUE(IsCjk(U'タ'));
  EXPECT_TRUE(IsCjk(U'ー'));
  EXPECT_TRUE(IsCjk(0x20000));
  EXPECT_FALSE(IsCjk(U'한'));
  EXPECT_FALSE(IsCjk(U'ก'));
  EXPECT_FALSE(IsCjk(U'。'));
  EXPECT_FALSE(IsCjk(U'・'));
  EXPECT_FALSE(IsCjk('a'));
}

TEST(Segmenter, PreparesInvalidTextWithoutMovingOffsets) {
  std::string storage;
  const std::string bad =
      "ab\xFF"
      "cd\xE4\xB8";
  const std::string_view prepared = PrepareText(bad, &storage);
  EXPECT_EQ(prepared, "ab cd  ");
  const std::string good = "fine";
  EXPECT_EQ(PrepareText(good, &storage).data(), good.data());
}

}  // namespace
}  // namespace mnemo::text

#include "text/segmenter.h"

#include <gtest/gtest.h>

#include <string>
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

#include "text/snippet.h"

#include <gtest/gtest.h>

#include <string>

#include "text/pipeline/query.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

// Visible length: code points without the ** markers.
size_t VisibleChars(std::string s) {
  for (size_t p; (p = s.find("**")) != std::string::npos;) s.erase(p, 2);
  return CountCodePoints(s);
}

std::string Filler(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += "lorem ipsum dolor sit amet ";
  return s;
}

TEST(Snippet, WrapsMatchesInShortContent) {
  EXPECT_EQ(MakeSnippet("She emailed the reports", QueryTerms("email report")),
            "She **emailed** the **reports**");
}

TEST(Snippet, ChoosesTheWindowWithTheMostDistinctTerms) {
  const std::string content =
      "alpha at the start. " + Filler(20) + "here alpha and beta and gamma meet. " + Filler(20);
  const std::string s = MakeSnippet(content, QueryTerms("alpha beta gamma"), 80);
  EXPECT_NE(s.find("**alpha** and **beta** and **gamma**"), std::string::npos) << s;
  EXPECT_TRUE(s.starts_with("…"));
  EXPECT_TRUE(s.ends_with("…"));
  EXPECT_LE(VisibleChars(s), 80u);
}

TEST(Snippet, HighlightsIdentifiersOnceAndCjkAsOneRun) {
  EXPECT_EQ(MakeSnippet("run deploy.py now", QueryTerms("deploy.py")), "run **deploy.py** now");
  EXPECT_EQ(MakeSnippet("服务器上的 deploy.py", QueryTerms("服务器")), "**服务器**上的 deploy.py");
}

TEST(Snippet, RespectsMaxCharsInCodePoints) {
  std::string content;
  for (int i = 0; i < 300; ++i) content += "服务器";
  content += "邮件";
  for (int i = 0; i < 300; ++i) content += "服务器";
  const std::string s = MakeSnippet(content, QueryTerms("邮件"), 50);
  EXPECT_TRUE(IsValidUtf8(s));
  EXPECT_LE(VisibleChars(s), 50u);
  EXPECT_NE(s.find("**邮件**"), std::string::npos);
}

TEST(Snippet, StartsAtTheBeginningWithoutAMatch) {
  const std::string content = Filler(30);
  const std::string s = MakeSnippet(content, QueryTerms("nothing"), 40);
  EXPECT_TRUE(s.starts_with("lorem ipsum"));
  EXPECT_TRUE(s.ends_with("…"));
  EXPECT_LE(VisibleChars(s), 40u);
  EXPECT_EQ(s.find("**"), std::string::npos);
}

TEST(Snippet, NeverBreaksUtf8) {
  const std::string content =
      "é" + std::string(10, 'x') + " مرحبا بالعالم " + Filler(10) + "\xFF tail";
  for (size_t n = 1; n < 60; ++n) {
    const std::string s = MakeSnippet(content, QueryTerms("العالم tail"), n);
    EXPECT_TRUE(IsValidUtf8(s)) << n;
    EXPECT_LE(VisibleChars(s), n) << n;
  }
  EXPECT_EQ(MakeSnippet(content, {}, 0), "");
  EXPECT_EQ(MakeSnippet("", QueryTerms("x"), 10), "");
}

TEST(Snippet, APassageIsTheSnippetsWindowWithoutMarkers) {
  const std::string content = Filler(40) + " the Lisbon office opens at nine " + Filler(40);
  const std::vector<std::string> terms = QueryTerms("Lisbon office");
  const std::string passage = MakePassage(content, terms, 60);
  EXPECT_NE(passage.find("the Lisbon office opens"), std::string::npos) << passage;
  EXPECT_EQ(passage.find("**"), std::string::npos);
  std::string unmarked = MakeSnippet(content, terms, 60);
  for (size_t at; (at = unmarked.find("**")) != std::string::npos;) unmarked.erase(at, 2);
  EXPECT_EQ(passage, unmarked);
}

TEST(Snippet, MatchesAnyTermComparesIndexTokens) {
  EXPECT_TRUE(MatchesAnyTerm("We deployed the billing service", QueryTerms("billing")));
  EXPECT_TRUE(MatchesAnyTerm("Three python files: deploy.py", QueryTerms("deploy.py")));
  EXPECT_FALSE(MatchesAnyTerm("We called him Biscuit.", QueryTerms("puppy name")));
  EXPECT_FALSE(MatchesAnyTerm("", QueryTerms("puppy")));
  EXPECT_FALSE(MatchesAnyTerm("puppy", {}));
}

}  // namespace
}  // namespace mnemo::text

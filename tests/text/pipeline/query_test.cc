#include "text/pipeline/query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "text/match_util.h"

namespace mnemo::text {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using text::testing::QueryMatchesText;

TEST(QueryTerms, StemsLikeTheIndex) {
  EXPECT_THAT(QueryTerms("Emails REPORTS"), ElementsAre("email", "report"));
}

TEST(QueryTerms, DropsQuestionWrappers) {
  EXPECT_THAT(QueryTerms("what did I say about kubernetes"), ElementsAre("kubernet"));
  EXPECT_THAT(QueryTerms("remind me about the dentist"), ElementsAre("dentist"));
  EXPECT_THAT(QueryTerms("Do you know what Sarah said?"), ElementsAre("sarah"));
  EXPECT_THAT(QueryTerms("tell me about deploy.py"), ElementsAre("deploy.py", "deploy", "py"));
}

TEST(QueryTerms, KeepsStopWordsWhenNothingElseRemains) {
  EXPECT_THAT(QueryTerms("what is it"), ElementsAre("what", "is", "it"));
  EXPECT_THAT(QueryTerms("的"), ElementsAre("的"));
}

TEST(QueryTerms, ReturnsDistinctTermsInFirstOccurrenceOrder) {
  EXPECT_THAT(QueryTerms("beta alpha beta Alpha gamma"), ElementsAre("beta", "alpha", "gamma"));
}

TEST(QueryTerms, StripsQueryLanguageSyntax) {
  EXPECT_THAT(QueryTerms("\"deploy\" OR title:foo* AND NEAR(a b, 3) NOT -x ^y"),
              ElementsAre("deploy", "title:foo", "titl", "foo", "near", "b", "3", "x", "y"));
  EXPECT_THAT(QueryTerms("'; DROP TABLE entries; --"), ElementsAre("drop", "tabl", "entri"));
  EXPECT_THAT(QueryTerms("*"), IsEmpty());
  EXPECT_THAT(QueryTerms("\"\"\"((()))"), IsEmpty());
  for (const auto& q : {"a\"b", "NEAR(", "col:\"x\" OR (", "{a b}", "x AND", "^"}) {
    for (const std::string& t : QueryTerms(q)) {
      EXPECT_EQ(t.find_first_of("\"()*{}^"), std::string::npos) << q << " -> " << t;
    }
  }
}

TEST(QueryTerms, SplitsChineseIntoWordsThenBigrams) {
  EXPECT_THAT(QueryTerms("服务器上的"), ElementsAre("服务", "务器"));
  EXPECT_THAT(QueryTerms("邮件"), ElementsAre("邮件"));
  EXPECT_THAT(QueryTerms("发邮件"), ElementsAre("发邮", "邮件"));
  EXPECT_THAT(QueryTerms("我的猫"), ElementsAre("猫"));
  EXPECT_TRUE(QueryMatchesText("服务器上的 deploy.py", "服务器上的 deploy.py"));
}

TEST(QueryTerms, UsesTheArticleFreeArabicForm) {
  EXPECT_THAT(QueryTerms("الذكريات"), ElementsAre("ذكريات"));
  EXPECT_THAT(QueryTerms("بالكلمات"), ElementsAre("كلمات"));
  EXPECT_THAT(QueryTerms("كلمات"), ElementsAre("كلمات"));
  EXPECT_THAT(QueryTerms("ما هي الكلمات"), ElementsAre("كلمات"));
  EXPECT_TRUE(QueryMatchesText("الكلمات المفتاحية", "تسترجع الذكريات بالكلمات المفتاحية"));
}

TEST(QueryTerms, SurvivesInvalidUtf8) {
  EXPECT_THAT(QueryTerms("kube\xFF"
                         "rnetes"),
              ElementsAre("kube", "rnete"));
  EXPECT_THAT(QueryTerms("\xC0\xAF\xED\xA0\x80"), IsEmpty());
}

TEST(QueryTerms, CapsTermsOfAHugeQueryCheaply) {
  std::string query;
  for (int i = 0; query.size() < 100 * 1024; ++i) query += "word" + std::to_string(i) + " ";
  const auto start = std::chrono::steady_clock::now();
  const auto terms = QueryTerms(query);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(terms.size(), kMaxQueryTerms);
  EXPECT_EQ(terms.front(), "word0");
  EXPECT_LT(elapsed, std::chrono::milliseconds(50));
  const std::string punctuation(100 * 1024, '(');
  EXPECT_THAT(QueryTerms(punctuation), IsEmpty());
}

}  // namespace
}  // namespace mnemo::text

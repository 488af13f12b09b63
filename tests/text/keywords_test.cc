#include "text/keywords.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "text/pipeline/query.h"
#include "text/utf8.h"

namespace mnemo::text {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Not;

// A store where every token has the given document frequency (0 if absent),
// recording what it was asked.
struct FakeStore {
  std::map<std::string, int64_t, std::less<>> df;
  std::vector<std::string> asked;

  DocFreqFn Fn() {
    return [this](std::string_view token) {
      asked.emplace_back(token);
      const auto it = df.find(token);
      return it == df.end() ? int64_t{0} : it->second;
    };
  }
};

std::vector<std::string> TfOnly(std::string_view text, size_t k = 10) {
  return TopKeywords(text, k, nullptr, 0);
}

TEST(TopKeywords, DropsEnglishAndChineseStopWords) {
  const auto tags = TfOnly("The cluster is down and I am on it. 我们的集群在哪里？我们的集群");
  for (const char* stop : {"the", "is", "and", "i", "am", "on", "it", "我们", "的", "在", "哪里"}) {
    EXPECT_THAT(tags, Not(Contains(stop)));
  }
  EXPECT_THAT(tags, Contains("cluster"));
  EXPECT_THAT(tags, Contains("集群"));
}

TEST(TopKeywords, JsonGivesNoPunctuationAndNoKeys) {
  const std::string json =
      R"({"path":"/srv/app","status":"deployed","retries":3,"owner":{"email":"ops@example.com"}})";
  const auto tags = TfOnly(json, 20);
  EXPECT_THAT(tags, Not(IsEmpty()));
  for (const std::string& tag : tags) {
    for (char c : std::string_view("{}[]\":,/@.;")) {
      EXPECT_EQ(tag.find(c), std::string::npos) << tag;
    }
  }
  for (const char* key : {"path", "status", "retries", "owner", "email"}) {
    EXPECT_THAT(tags, Not(Contains(key)));
  }
  EXPECT_THAT(tags, Contains("srv"));
  EXPECT_THAT(tags, Contains("deployed"));
  EXPECT_THAT(tags, Contains("example"));
  // Pretty-printed keys are keys too; the same word as a value is not.
  EXPECT_THAT(TfOnly("{\n  \"path\" : \"path\",\n  \"mode\": 1\n}"), ElementsAre("path"));
}

TEST(TopKeywords, RareTokensInTheStoreOutrankFrequentOnes) {
  FakeStore store;
  store.df = {{"server", 90}, {"kubernet", 2}};
  // "server" is more frequent in the text, but in 90 of 100 documents.
  const std::string text = "server server server kubernetes kubernetes";
  EXPECT_THAT(TopKeywords(text, 2, store.Fn(), 100), ElementsAre("kubernetes", "server"));
  EXPECT_THAT(TfOnly(text, 2), ElementsAre("server", "kubernetes"));
}

TEST(TopKeywords, FallsBackToTermFrequencyWithAnEmptyStore) {
  FakeStore store;
  EXPECT_THAT(TopKeywords("beta alpha beta gamma", 3, store.Fn(), 0),
              ElementsAre("beta", "alpha", "gamma"));
  EXPECT_THAT(store.asked, IsEmpty());
}

TEST(TopKeywords, BreaksTiesByToken) {
  EXPECT_THAT(TfOnly("zeta alpha mike alpha zeta mike"), ElementsAre("alpha", "mike", "zeta"));
  FakeStore store;
  store.df = {{"zeta", 5}, {"alpha", 5}};
  EXPECT_THAT(TopKeywords("zeta alpha", 2, store.Fn(), 10), ElementsAre("alpha", "zeta"));
}

TEST(TopKeywords, CountsInflectionsAsOneKeywordAndAsksForTheIndexToken) {
  FakeStore store;
  const auto tags = TopKeywords("Deploying now; deploys daily; deploy often.", 5, store.Fn(), 10);
  EXPECT_THAT(tags, ElementsAre("deploying", "daily", "now", "often"));
  EXPECT_THAT(store.asked, Contains("deploy"));
  // The store's form of each tag is what a query for the tag searches.
  for (const std::string& tag : tags) EXPECT_THAT(store.asked, Contains(QueryTerms(tag)[0]));
}

TEST(TopKeywords, DropsNumbersShortTokensAndPossessives) {
  EXPECT_THAT(TfOnly("x y 2024 3.14 42 v2 16GB Sarah's laptop"),
              ElementsAre("laptop", "sarah", "v2"));
  EXPECT_THAT(TfOnly("Let's go, it's fine"), ElementsAre("fine", "go"));
}

TEST(TopKeywords, TakesIdentifierPartsNotWholeIdentifiers) {
  EXPECT_THAT(TfOnly("run deploy.py with send_email"),
              ElementsAre("deploy", "email", "py", "run", "send"));
}

TEST(TopKeywords, UsesChineseWordsAndTheirBigramsForDocumentFrequency) {
  FakeStore store;
  store.df = {{"数据", 50}, {"据库", 3}};
  const auto tags = TopKeywords("数据库很慢。数据库需要优化。", 10, store.Fn(), 100);
  ASSERT_THAT(tags, Not(IsEmpty()));
  EXPECT_EQ(tags[0], "数据库");
  EXPECT_THAT(store.asked, Contains("数据"));
  EXPECT_THAT(store.asked, Contains("据库"));
  // ICU splits 数据库 as 数据|库 and 优化 as 优|化: both come back whole.
  EXPECT_THAT(tags, Contains("优化"));
  for (const std::string& tag : tags) EXPECT_GE(CountCodePoints(tag), 2U) << tag;
}

TEST(TopKeywords, DoesNotAskTheStoreAboutCandidatesThatCannotWin) {
  FakeStore store;
  store.df = {{"alpha", 0}};
  // alpha: tf 5, idf ln(2/1)+1; every other word: tf 1, at most the same idf.
  const auto tags =
      TopKeywords("alpha alpha alpha alpha alpha bravo charlie delta", 1, store.Fn(), 1);
  EXPECT_THAT(tags, ElementsAre("alpha"));
  EXPECT_THAT(store.asked, ElementsAre("alpha"));
}

TEST(TopKeywords, ReturnsAtMostKDistinctKeywords) {
  EXPECT_THAT(TfOnly("one two three four five six", 0), IsEmpty());
  EXPECT_EQ(TfOnly("apple banana cherry durian elder", 3).size(), 3U);
  EXPECT_THAT(TfOnly("apple Apple APPLE"), ElementsAre("apple"));
  EXPECT_THAT(TfOnly(""), IsEmpty());
}

TEST(TopKeywords, SurvivesInvalidUtf8) {
  const auto tags = TfOnly("bad\xFF\xFEword \xE4\xB8 kernel \xF0\x9F");
  for (const std::string& tag : tags) EXPECT_TRUE(IsValidUtf8(tag)) << tag;
  EXPECT_THAT(tags, Contains("kernel"));
}

}  // namespace
}  // namespace mnemo::text

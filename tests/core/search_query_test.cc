#include "core/search/search_query.h"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "core/search/turn_ranking.h"
#include "mnemo/limits.h"

namespace mnemo {
namespace {

void ExpectRefused(const Status& s, const std::string& field, const std::string& says) {
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  EXPECT_EQ(s.field(), field) << s.message();
  EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
}

TEST(SearchQuery, EachFieldIsCheckedByItsParse) {
  EXPECT_TRUE(Window::Parse({.since = 1, .until = 2}).ok());
  EXPECT_TRUE(Window::Parse({.since = 2}).ok());
  ExpectRefused(Window::Parse({.since = 2, .until = 2}).status(), "until", "later than since");
  EXPECT_TRUE(RecencyWeight::Parse(1).ok());
  ExpectRefused(RecencyWeight::Parse(1.01).status(), "recency_weight", "between 0 and 1");
  EXPECT_TRUE(ResultCount::Parse(kMaxResults).ok());
  ExpectRefused(ResultCount::Parse(kMaxResults + 1).status(), "max_results",
                std::to_string(kMaxResults));
  ExpectRefused(ResultCount::Parse(0).status(), "max_results", std::to_string(kMaxResults));
  ExpectRefused(NamespaceFilter::Parse("a", "b").status(), "namespace_prefix", "not both");
  ExpectRefused(NamespaceFilter::Parse(std::nullopt, "a b").status(), "namespace_prefix",
                "[A-Za-z0-9_.:*-]");
  auto ns = NamespaceFilter::Parse("skill-git", std::nullopt);
  ASSERT_TRUE(ns.ok());
  EXPECT_EQ(ns->ns(), "skill-git");
  EXPECT_FALSE(ns->prefix());
}

// The turn ranking (memory.episodic_search, recall, the context block)
// takes the recency weight as the checked type: a weight reaches it only
// through RecencyWeight::Parse. (On a tree where it takes a double this file
// does not compile.)
TEST(SearchQuery, TheTurnRankingTakesOnlyACheckedRecencyWeight) {
  static_assert(std::is_same_v<decltype(TurnRecency::weight), RecencyWeight>);
  static_assert(!std::is_constructible_v<RecencyWeight, double>);
  static_assert(!std::is_constructible_v<Window, TimeWindow>);
  EXPECT_EQ(TurnRecency{}.weight.value(), 0);  // relevance alone
}

TEST(SearchQuery, ParseChecksEveryFieldOfTheRequestOnceAndViewsIt) {
  const auto query = Query::Parse("where do I deploy");
  ASSERT_TRUE(query.ok());
  SearchRequest req{.query = "where do I deploy",
                    .category = "core",
                    .ns_prefix = "users.",
                    .tags = {"a", "b"},
                    .max_results = 7,
                    .embedding = std::vector<float>{1, 0},
                    .window = {.since = 1},
                    .recency_weight = 0.5};
  auto parsed = SearchQuery::Parse(*query, req, 0.2);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->category()->str(), "core");
  EXPECT_EQ(parsed->ns().prefix(), "users.");
  EXPECT_EQ(parsed->tags().data(), req.tags.data());  // a view: nothing copied
  EXPECT_EQ(parsed->embedding(), &*req.embedding);
  EXPECT_EQ(parsed->max_results(), 7);
  EXPECT_EQ(parsed->min_score(), 0.2);  // absent: the configuration's
  EXPECT_EQ(parsed->recency_weight(), 0.5);
  EXPECT_EQ(parsed->window().since, 1);

  auto bad = [&](auto change, const std::string& field) {
    SearchRequest r = req;
    change(r);
    ExpectRefused(SearchQuery::Parse(*query, r, 0.2).status(), field, "");
  };
  bad([](SearchRequest& r) { r.category = "Core!"; }, "category");
  bad([](SearchRequest& r) { r.max_results = 0; }, "max_results");
  bad([](SearchRequest& r) { r.ns = "global"; }, "namespace_prefix");
  bad([](SearchRequest& r) { r.tags = {""}; }, "tags");
  bad([](SearchRequest& r) { r.embedding = std::vector<float>{0, 0}; }, "embedding");
  bad([](SearchRequest& r) { r.window = {.since = 2, .until = 1}; }, "until");
  bad([](SearchRequest& r) { r.recency_weight = -0.1; }, "recency_weight");
  bad([](SearchRequest& r) { r.min_score = 1.5; }, "min_score");
  ExpectRefused(SearchQuery::Parse(*query, {.query = "q"}, 2).status(), "min_score",
                "between 0 and 1");
}

}  // namespace
}  // namespace mnemo

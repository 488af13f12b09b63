// The storage contract (storage/entry_store.h) as one suite, run unchanged
// against every backend in kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/stores.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::Pair;

EntryWrite Write(std::string key, std::string content, TimeMs now = 1000, std::string ns = "global",
                 std::string owner = "local") {
  return EntryWrite{.owner = std::move(owner),
                    .ns = std::move(ns),
                    .key = std::move(key),
                    .content = std::move(content),
                    .now = now};
}

KeywordQuery Query(std::string_view text, EntryFilter filter = {}, int limit = 20) {
  return KeywordQuery{.terms = text::QueryTerms(text), .filter = std::move(filter), .limit = limit};
}

std::vector<std::string> Keys(const std::vector<Entry>& entries) {
  std::vector<std::string> keys;
  for (const Entry& e : entries) keys.push_back(e.key);
  return keys;
}

std::vector<std::string> Keys(const std::vector<KeywordHit>& hits) {
  std::vector<std::string> keys;
  for (const KeywordHit& h : hits) keys.push_back(h.entry.key);
  return keys;
}

ReadScope ScopeOf(std::string name) {
  return ReadScope{.all = false, .principal = std::move(name)};
}

class BackendConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr) << "cannot open backend " << GetParam();
  }

  Entry Put(const EntryWrite& w) {
    auto r = stores_.entries->Upsert(w);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->entry : Entry{};
  }

  std::vector<KeywordHit> Search(const KeywordQuery& q) {
    auto r = stores_.entries->KeywordSearch(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<KeywordHit>{};
  }

  std::vector<Entry> ListAll(EntryFilter filter = {}, int limit = 100, int64_t offset = 0) {
    auto r = stores_.entries->List(filter, limit, offset);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Entry>{};
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(BackendConformance, UpsertCreatesThenUpdatesKeepingIdAndCreatedAt) {
  auto first = stores_.entries->Upsert(Write("editor", "uses vim", 1000));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->created);
  EXPECT_FALSE(first->entry.id.empty());
  EXPECT_EQ(first->entry.created_at, 1000);
  EXPECT_EQ(first->entry.updated_at, 1000);
  EXPECT_EQ(first->entry.visibility, Visibility::kPrivate);
  EXPECT_TRUE(first->entry.tags.empty());

  EntryWrite update = Write("editor", "uses helix", 2000);
  update.category = "daily";
  auto second = stores_.entries->Upsert(update);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->created);
  EXPECT_EQ(second->entry.id, first->entry.id);
  EXPECT_EQ(second->entry.created_at, 1000);
  EXPECT_EQ(second->entry.updated_at, 2000);
  EXPECT_EQ(second->entry.content, "uses helix");
  EXPECT_EQ(second->entry.category, "daily");

  auto stored = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("editor"));
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->id, first->entry.id);
  EXPECT_EQ((*stored)->content, "uses helix");
  EXPECT_EQ((*stored)->category, "daily");
  EXPECT_EQ((*stored)->created_at, 1000);
}

TEST_P(BackendConformance, UpsertKeepsTagsAndVisibilityWhenAbsent) {
  EntryWrite w = Write("k", "v1");
  w.tags = std::vector<std::string>{"a", "b \"quoted\"", "\xE4\xB8\xAD"};
  w.visibility = Visibility::kPublic;
  Put(w);
  Put(Write("k", "v2", 2000));
  auto e = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("k"));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_THAT((*e)->tags, ElementsAre("a", "b \"quoted\"", "\xE4\xB8\xAD"));
  EXPECT_EQ((*e)->visibility, Visibility::kPublic);

  EntryWrite clear = Write("k", "v3", 3000);
  clear.tags = std::vector<std::string>{};
  clear.visibility = Visibility::kPrivate;
  Put(clear);
  e = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("k"));
  ASSERT_TRUE(e.ok() && e->has_value());
  EXPECT_TRUE((*e)->tags.empty());
  EXPECT_EQ((*e)->visibility, Visibility::kPrivate);
}

TEST_P(BackendConformance, UpsertRestoresImportedFields) {
  EntryWrite w = Write("k", "v", 5000);
  w.id = "00000000-0000-4000-8000-000000000001";
  w.created_at = 42;
  w.access_count = 7;
  w.useful_count = 3;
  w.archived = true;
  Entry e = Put(w);
  EXPECT_EQ(e.id, *w.id);
  EXPECT_EQ(e.created_at, 42);
  EXPECT_EQ(e.updated_at, 5000);
  EXPECT_EQ(e.access_count, 7);
  EXPECT_EQ(e.useful_count, 3);
  EXPECT_TRUE(e.archived);
  auto stored = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("k"));
  ASSERT_TRUE(stored.ok() && stored->has_value());
  EXPECT_EQ((*stored)->id, *w.id);
  EXPECT_EQ((*stored)->created_at, 42);
  EXPECT_TRUE((*stored)->archived);
}

TEST_P(BackendConformance, RestoringAnIdHeldByAnotherEntryIsAConflict) {
  Entry a = Put(Write("a", "first"));
  EntryWrite w = Write("b", "second");
  w.id = a.id;
  auto r = stores_.entries->Upsert(w);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
  auto b = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("b"));
  ASSERT_TRUE(b.ok());
  EXPECT_FALSE(b->has_value());
}

TEST_P(BackendConformance, SameKeyForTwoOwnersIsTwoEntries) {
  Entry alice = Put(Write("plan", "alice plan", 1000, "global", "alice"));
  Entry bob = Put(Write("plan", "bob plan", 2000, "global", "bob"));
  EXPECT_NE(alice.id, bob.id);
  auto a = stores_.entries->FindExact("alice", TestNamespace("global"), TestKey("plan"));
  auto b = stores_.entries->FindExact("bob", TestNamespace("global"), TestKey("plan"));
  ASSERT_TRUE(a.ok() && a->has_value() && b.ok() && b->has_value());
  EXPECT_EQ((*a)->content, "alice plan");
  EXPECT_EQ((*b)->content, "bob plan");
  // Same key in another namespace is a third entry.
  Put(Write("plan", "other ns", 3000, "work", "alice"));
  auto stats = stores_.entries->GetStats({});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 3);
}

TEST_P(BackendConformance, FindExactMissesOtherAddresses) {
  Put(Write("k", "v", 1000, "global", "alice"));
  for (auto [owner, ns, key] : {std::tuple{"bob", "global", "k"}, std::tuple{"alice", "work", "k"},
                                std::tuple{"alice", "global", "K"}}) {
    auto r = stores_.entries->FindExact(owner, TestNamespace(ns), TestKey(key));
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r->has_value()) << owner << "/" << ns << "/" << key;
  }
}

TEST_P(BackendConformance, ResolvePrefersTheCallersOwnEntry) {
  EntryWrite pub = Write("k", "bob's", 5000, "global", "bob");
  pub.visibility = Visibility::kPublic;
  Put(pub);
  Put(Write("k", "alice's", 1000, "global", "alice"));
  auto r = stores_.entries->Resolve(TestNamespace("global"), TestKey("k"), ScopeOf("alice"));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->owner, "alice");
  r = stores_.entries->Resolve(TestNamespace("global"), TestKey("k"),
                               ReadScope{.all = true, .principal = "alice"});
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->owner, "alice");
}

TEST_P(BackendConformance, ResolveFallsBackToTheMostRecentReadableEntry) {
  for (auto [owner, when] : {std::pair{"bob", 1000}, std::pair{"carol", 3000}}) {
    EntryWrite w = Write("k", std::string(owner) + "'s", when, "global", owner);
    w.visibility = Visibility::kPublic;
    Put(w);
  }
  Put(Write("k", "dave's private", 9000, "global", "dave"));
  auto r = stores_.entries->Resolve(TestNamespace("global"), TestKey("k"), ScopeOf("alice"));
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->owner, "carol");
  // With the `all` scope the private, most recent one is readable too.
  r = stores_.entries->Resolve(TestNamespace("global"), TestKey("k"),
                               ReadScope{.all = true, .principal = "alice"});
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->owner, "dave");
}

TEST_P(BackendConformance, ResolveHidesOtherPrincipalsPrivateEntries) {
  Put(Write("k", "bob's private", 1000, "global", "bob"));
  auto r = stores_.entries->Resolve(TestNamespace("global"), TestKey("k"), ScopeOf("alice"));
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  r = stores_.entries->Resolve(TestNamespace("work"), TestKey("k"), ReadScope{});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_P(BackendConformance, DeleteRemovesTheEntryEverywhere) {
  Entry e = Put(Write("doomed", "ephemeral marmalade"));
  Put(Write("kept", "ordinary text"));
  auto deleted = stores_.entries->Delete(e.id);
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  auto again = stores_.entries->Delete(e.id);
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  auto found = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("doomed"));
  ASSERT_TRUE(found.ok());
  EXPECT_FALSE(found->has_value());
  EXPECT_TRUE(Search(Query("marmalade")).empty());
  EXPECT_THAT(Keys(ListAll()), ElementsAre("kept"));
  // The key can be used again and is a new entry.
  Entry reborn = Put(Write("doomed", "marmalade again", 2000));
  EXPECT_NE(reborn.id, e.id);
  EXPECT_THAT(Keys(Search(Query("marmalade"))), ElementsAre("doomed"));
}

TEST_P(BackendConformance, AddCountersAddsAndReturnsTheEntry) {
  Entry e = Put(Write("k", "v"));
  auto r = stores_.entries->AddCounters(e.id, 2, 1);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->access_count, 2);
  EXPECT_EQ((*r)->useful_count, 1);
  r = stores_.entries->AddCounters(e.id, 1, 0);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->access_count, 3);
  EXPECT_EQ((*r)->useful_count, 1);
  EXPECT_EQ((*r)->updated_at, e.updated_at);  // counters are not an update
  auto gone = stores_.entries->AddCounters("no-such-id", 1, 1);
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
}

TEST_P(BackendConformance, ListOrdersByUpdatedAtThenKeyThenOwner) {
  Put(Write("b", "x", 1000));
  Put(Write("a", "x", 1000));
  Put(Write("c", "x", 3000));
  Put(Write("a", "x", 1000, "global", "zed"));
  Put(Write("d", "x", 2000));
  auto list = ListAll();
  ASSERT_EQ(list.size(), 5u);
  EXPECT_THAT(Keys(list), ElementsAre("c", "d", "a", "a", "b"));
  EXPECT_EQ(list[2].owner, "local");
  EXPECT_EQ(list[3].owner, "zed");
}

TEST_P(BackendConformance, ListAppliesEveryFilter) {
  EntryWrite tagged = Write("tagged", "x", 1000);
  tagged.tags = std::vector<std::string>{"red", "blue"};
  Put(tagged);
  EntryWrite daily = Write("daily", "x", 2000);
  daily.category = "daily";
  daily.tags = std::vector<std::string>{"red"};
  Put(daily);
  EntryWrite archived = Write("old", "x", 3000);
  archived.archived = true;
  Put(archived);
  Put(Write("work", "x", 4000, "work"));
  Put(Write("bobs", "x", 5000, "global", "bob"));

  EXPECT_THAT(Keys(ListAll({.category = "daily"})), ElementsAre("daily"));
  EXPECT_THAT(Keys(ListAll({.ns = "work"})), ElementsAre("work"));
  EXPECT_THAT(Keys(ListAll({.tags = {"red"}})), ElementsAre("daily", "tagged"));
  EXPECT_THAT(Keys(ListAll({.tags = {"red", "blue"}})), ElementsAre("tagged"));
  EXPECT_THAT(Keys(ListAll({.tags = {"green"}})), ElementsAre());
  EXPECT_THAT(Keys(ListAll()), ElementsAre("bobs", "work", "daily", "tagged"));
  EXPECT_THAT(Keys(ListAll({.include_archived = true})),
              ElementsAre("bobs", "work", "old", "daily", "tagged"));
  EXPECT_THAT(Keys(ListAll({.scope = ScopeOf("local")})), ElementsAre("work", "daily", "tagged"));
}

TEST_P(BackendConformance, ListHidesSystemNamespacesUnlessAskedByName) {
  Put(Write("rule", "x", 1000, "tool-send_email"));
  Put(Write("stats", "x", 2000, "tool_effectiveness"));
  Put(Write("plain", "x", 3000, "global"));
  Put(Write("lookalike", "x", 4000, "tools"));
  EXPECT_THAT(Keys(ListAll()), ElementsAre("lookalike", "plain"));
  EXPECT_THAT(Keys(ListAll({.ns = "tool-send_email"})), ElementsAre("rule"));
  EXPECT_THAT(Keys(ListAll({.ns = "tool_effectiveness"})), ElementsAre("stats"));
}

// A namespace prefix keeps the subtree under it, byte for byte and in case,
// in list and in keyword search; system namespaces stay out.
TEST_P(BackendConformance, ANamespacePrefixKeepsItsSubtree) {
  Put(Write("alice_note", "needle one", 1000, "users.alice"));
  Put(Write("alice_deep", "needle two", 2000, "users.alice.work"));
  Put(Write("alicex", "needle three", 3000, "users.alicex"));
  Put(Write("upper", "needle four", 4000, "Users.alice"));
  Put(Write("bob", "needle five", 5000, "users.bob"));
  Put(Write("pct", "needle six", 6000, "users%"));
  Put(Write("rule", "needle rule", 7000, "tool-users"));
  EXPECT_THAT(Keys(ListAll({.ns_prefix = "users.alice."})), ElementsAre("alice_deep"));
  EXPECT_THAT(Keys(ListAll({.ns_prefix = "users.alice"})),
              ElementsAre("alicex", "alice_deep", "alice_note"));
  EXPECT_THAT(Keys(ListAll({.ns_prefix = "users."})),
              ElementsAre("bob", "alicex", "alice_deep", "alice_note"));
  EXPECT_THAT(Keys(ListAll({.ns_prefix = "users_"})), ElementsAre());  // no pattern characters
  EXPECT_THAT(Keys(ListAll({.ns_prefix = "tool"})), ElementsAre());
  std::vector<std::string> found = Keys(Search(Query("needle", {.ns_prefix = "users.alice"}, 10)));
  std::sort(found.begin(), found.end());
  EXPECT_THAT(found, ElementsAre("alice_deep", "alice_note", "alicex"));
  EXPECT_THAT(Keys(Search(Query("needle", {.ns_prefix = "Users."}, 10))), ElementsAre("upper"));
}

TEST_P(BackendConformance, ListPagesWithLimitAndOffset) {
  for (int i = 0; i < 7; ++i) Put(Write("k" + std::to_string(i), "x", 1000 + i));
  EXPECT_THAT(Keys(ListAll({}, 3, 0)), ElementsAre("k6", "k5", "k4"));
  EXPECT_THAT(Keys(ListAll({}, 3, 3)), ElementsAre("k3", "k2", "k1"));
  EXPECT_THAT(Keys(ListAll({}, 3, 6)), ElementsAre("k0"));
  EXPECT_THAT(Keys(ListAll({}, 3, 9)), ElementsAre());
}

TEST_P(BackendConformance, KeywordSearchFindsByContentWordAndByKey) {
  Put(Write("favourite_editor", "the user prefers helix over vim"));
  Put(Write("shell", "zsh with starship prompt"));
  Put(Write("weather", "it rained all day in Lisbon"));
  EXPECT_THAT(Keys(Search(Query("helix"))), ElementsAre("favourite_editor"));
  EXPECT_THAT(Keys(Search(Query("Lisbon"))), ElementsAre("weather"));
  EXPECT_THAT(Keys(Search(Query("shell"))), ElementsAre("shell"));
  EXPECT_THAT(Keys(Search(Query("favourite_editor"))), ElementsAre("favourite_editor"));
  EXPECT_TRUE(Search(Query("nonexistentword")).empty());
}

TEST_P(BackendConformance, KeywordSearchFindsEnglishChineseAndArabic) {
  Put(Write("deploy", "服务器上的 deploy.py 每天凌晨运行"));
  Put(Write("rule", "永远不要给 Sarah 发邮件"));
  Put(Write("arabic", "تسترجع الذكريات بالكلمات المفتاحية"));
  Put(Write("english", "the deployment pipeline runs nightly"));
  Put(Write("noise", "今天天气很好 we went hiking"));
  auto top = [&](std::string_view q) {
    auto hits = Search(Query(q));
    return hits.empty() ? std::string("<none>") : hits.front().entry.key;
  };
  EXPECT_EQ(top("deploy.py"), "deploy");
  EXPECT_EQ(top("服务器"), "deploy");
  EXPECT_EQ(top("服务器上的 deploy.py"), "deploy");
  EXPECT_EQ(top("永远不要给 Sarah 发邮件"), "rule");
  EXPECT_EQ(top("邮件"), "rule");
  EXPECT_EQ(top("Sarah"), "rule");
  EXPECT_EQ(top("تسترجع الذكريات بالكلمات المفتاحية"), "arabic");
  EXPECT_EQ(top("الذكريات"), "arabic");
  EXPECT_EQ(top("pipeline"), "english");
}

// Four entries of equal length (one key token, three content tokens), so
// every one is of average length.
void PutFruit(Stores& b) {
  const char* rows[][2] = {{"red", "apple banana cherry"},
                           {"green", "dolphin elephant falcon"},
                           {"blue", "grape hippo iguana"},
                           {"gold", "jaguar kiwi lemon"}};
  for (auto& row : rows) ASSERT_TRUE(b.entries->Upsert(Write(row[0], row[1])).ok());
}

TEST_P(BackendConformance, KeywordScoreIsOneForAllTermsInAnOrdinaryText) {
  PutFruit(stores_);
  auto hits = Search(Query("apple banana"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].entry.key, "red");
  EXPECT_DOUBLE_EQ(hits[0].keyword_score, 1.0);
  hits = Search(Query("cherry"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_DOUBLE_EQ(hits[0].keyword_score, 1.0);
}

TEST_P(BackendConformance, PartialMatchesScoreTheirShareOfTheIdfMass) {
  PutFruit(stores_);
  auto hits = Search(Query("apple dolphin"));
  ASSERT_EQ(hits.size(), 2u);
  // Equal idf on both sides: each entry has half of the query's mass.
  EXPECT_NEAR(hits[0].keyword_score, 0.5, 1e-9);
  EXPECT_NEAR(hits[1].keyword_score, 0.5, 1e-9);
  // An unknown word keeps its idf in the mass, that of a word of one
  // document: the score halves, as for any other half-matched query.
  hits = Search(Query("apple zyzzyvaquux"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_NEAR(hits[0].keyword_score, 0.5, 1e-9);
  for (const auto& h : Search(Query("apple banana dolphin jaguar kiwi"))) {
    EXPECT_GE(h.keyword_score, 0.0);
    EXPECT_LE(h.keyword_score, 1.0);
  }
}

// Scores stay meaningful at any store size (issue 18 section 4): with two
// entries FTS5's idf is 0 for a word of one of them (clamped to 1e-6), so an
// unknown second word took all of the idf mass and "decommission failover"
// scored 1e-6 where "decommission" alone scored 0.54.
TEST_P(BackendConformance, KeywordScoresStayMeaningfulInATinyStore) {
  Put(Write("plan", "decommission the legacy cluster"));
  Put(Write("notes", "cluster weekly notes"));
  auto single = Search(Query("decommission"));
  ASSERT_EQ(single.size(), 1u);
  auto pair = Search(Query("decommission failover"));
  ASSERT_EQ(pair.size(), 1u);
  EXPECT_EQ(pair[0].entry.key, "plan");
  EXPECT_NEAR(pair[0].keyword_score, single[0].keyword_score / 2, 1e-9);
  EXPECT_GT(pair[0].keyword_score, 0.2);  // the default min_relevance_score
  // A word in every entry still weighs something: the entry with both words
  // ranks first, the other keeps a small positive share.
  auto both = Search(Query("decommission cluster"));
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].entry.key, "plan");
  EXPECT_GT(both[1].keyword_score, 0.01);
  EXPECT_LT(both[1].keyword_score, both[0].keyword_score / 2);
}

TEST_P(BackendConformance, MoreMatchedTermsRankHigher) {
  PutFruit(stores_);
  auto hits = Search(Query("apple banana dolphin"));
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].entry.key, "red");
  EXPECT_EQ(hits[1].entry.key, "green");
  EXPECT_GT(hits[0].keyword_score, hits[1].keyword_score);
}

TEST_P(BackendConformance, KeywordTiesBreakByUpdatedAtThenKey) {
  Put(Write("bravo", "shared marker", 1000));
  Put(Write("alpha", "shared marker", 1000));
  Put(Write("charlie", "shared marker", 2000));
  Put(Write("delta", "unrelated words", 500));
  auto hits = Search(Query("marker"));
  EXPECT_THAT(Keys(hits), ElementsAre("charlie", "alpha", "bravo"));
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].keyword_score, hits[1].keyword_score);
  EXPECT_EQ(hits[1].keyword_score, hits[2].keyword_score);
}

// Issue 22: SQLite ranks by (score, updated_at) over narrow rows and reads
// the rest of the order (key, owner, namespace) for the rows tied at the
// limit; a tie longer than what it took runs the search again in full.
// Either way the order is the one above. Rows are written in reverse key
// order, so their storage order is not the answer.
TEST_P(BackendConformance, KeywordTiesAtTheLimitKeepTheFullOrder) {
  std::vector<EntryWrite> long_tie;
  for (int i = 59; i >= 0; --i) {
    long_tie.push_back(
        Write("t" + std::string(i < 10 ? "0" : "") + std::to_string(i), "marker words", 1000));
  }
  ASSERT_TRUE(stores_.entries->UpsertBatch(long_tie).ok());
  Put(Write("first", "marker words", 5000));
  EXPECT_THAT(Keys(Search(Query("marker", {}, 3))), ElementsAre("first", "t00", "t01"));
  EXPECT_THAT(Keys(Search(Query("marker", {}, 1))), ElementsAre("first"));

  Put(Write("s2", "beacon", 2000));
  Put(Write("s1", "beacon", 2000, "work"));
  Put(Write("s1", "beacon", 2000, "global", "zed"));
  Put(Write("s1", "beacon", 2000));
  Put(Write("s0", "beacon light", 1500));
  // s0 is older; s1 three times: owner, then namespace.
  const std::vector<KeywordHit> hits = Search(Query("beacon", {}, 3));
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].entry.key, "s1");
  EXPECT_EQ(hits[0].entry.owner, "local");
  EXPECT_EQ(hits[0].entry.ns, "global");
  EXPECT_EQ(hits[1].entry.ns, "work");
  EXPECT_EQ(hits[2].entry.owner, "zed");
  EXPECT_THAT(Keys(Search(Query("beacon", {}, 10))), ElementsAre("s1", "s1", "s1", "s2", "s0"));
}

TEST_P(BackendConformance, KeywordFiltersApplyBeforeTheLimit) {
  std::vector<EntryWrite> strong;
  for (int i = 0; i < 30; ++i) {
    EntryWrite w = Write("strong" + std::to_string(i), "needle needle needle", 1000 + i);
    w.tags = std::vector<std::string>{"noise"};
    strong.push_back(w);
  }
  ASSERT_TRUE(stores_.entries->UpsertBatch(strong).ok());
  EntryWrite weak = Write("weak", "a long text with one needle among many other words here", 10);
  weak.category = "daily";
  weak.tags = std::vector<std::string>{"wanted", "noise"};
  Put(weak);
  Put(Write("elsewhere", "needle", 20, "work"));
  EntryWrite archived = Write("archived", "needle needle", 30);
  archived.archived = true;
  Put(archived);

  EXPECT_THAT(Keys(Search(Query("needle", {.category = "daily"}, 1))), ElementsAre("weak"));
  EXPECT_THAT(Keys(Search(Query("needle", {.tags = {"wanted"}}, 1))), ElementsAre("weak"));
  EXPECT_THAT(Keys(Search(Query("needle", {.ns = "work"}, 1))), ElementsAre("elsewhere"));
  EXPECT_EQ(Search(Query("needle", {}, 100)).size(), 32u);  // every namespace, not archived
  EXPECT_EQ(Search(Query("needle", {.include_archived = true}, 100)).size(), 33u);
  // A time window on updated_at: [since, until).
  EXPECT_THAT(Keys(Search(Query("needle", {.since = 10, .until = 20}, 1))), ElementsAre("weak"));
  EXPECT_THAT(Keys(Search(Query("needle", {.since = 11, .until = 1000}, 100))),
              ElementsAre("elsewhere"));
  EXPECT_EQ(Search(Query("needle", {.since = 1000}, 100)).size(), 30u);
}

TEST_P(BackendConformance, KeywordSearchHidesSystemNamespacesUnlessAsked) {
  Put(Write("rule", "never email sarah", 1000, "tool-send_email"));
  Put(Write("note", "email sarah about the offsite", 1000));
  EXPECT_THAT(Keys(Search(Query("email"))), ElementsAre("note"));
  EXPECT_THAT(Keys(Search(Query("email", {.ns = "tool-send_email"}))), ElementsAre("rule"));
}

TEST_P(BackendConformance, KeywordSearchAppliesTheReadScope) {
  Put(Write("a", "quarterly budget", 1000, "global", "alice"));
  Put(Write("b", "quarterly budget", 2000, "global", "bob"));
  EntryWrite pub = Write("c", "quarterly budget", 3000, "global", "carol");
  pub.visibility = Visibility::kPublic;
  Put(pub);
  EXPECT_THAT(Keys(Search(Query("budget", {.scope = ScopeOf("alice")}))), ElementsAre("c", "a"));
  EXPECT_THAT(Keys(Search(Query("budget", {.scope = ScopeOf("alice")}, 1))), ElementsAre("c"));
  EXPECT_THAT(Keys(Search(Query("budget"))), ElementsAre("c", "b", "a"));
}

// Issue 17: the BM25 statistics (N, avgdl, n_t) are those of the entries the
// caller may read, so another principal's private entries never move a
// caller's scores (else bob could test whether a word occurs in alice's
// memory); public entries, which bob reads, do.
TEST_P(BackendConformance, KeywordScoresIgnoreOtherPrincipalsPrivateEntries) {
  Put(Write("b1", "quokka wombat habitat", 1000, "global", "bob"));
  Put(Write("b2", "wombat burrow notes here", 2000, "global", "bob"));
  const KeywordQuery bobs = Query("quokka wombat", {.scope = ScopeOf("bob")});
  const std::vector<KeywordHit> before = Search(bobs);
  ASSERT_EQ(before.size(), 2u);
  for (int i = 0; i < 20; ++i) {
    Put(Write("a" + std::to_string(i), "quokka sighting number " + std::to_string(i), 3000 + i,
              "global", "alice"));
  }
  const std::vector<KeywordHit> after = Search(bobs);
  ASSERT_EQ(after.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(after[i].entry.key, before[i].entry.key);
    EXPECT_DOUBLE_EQ(after[i].keyword_score, before[i].keyword_score) << after[i].entry.key;
  }
  // The same through the label path of hybrid search.
  std::vector<Label> labels;
  for (const KeywordHit& h : before) labels.push_back(h.label);
  auto fetched = stores_.entries->FetchByLabels(labels, bobs.filter, bobs.terms);
  ASSERT_TRUE(fetched.ok()) << fetched.status().ToString();
  ASSERT_EQ(fetched->size(), 2u);
  for (const KeywordHit& h : *fetched) {
    const double want =
        h.entry.key == before[0].entry.key ? before[0].keyword_score : before[1].keyword_score;
    EXPECT_DOUBLE_EQ(h.keyword_score, want) << h.entry.key;
  }
  // A public entry is in bob's view: it counts.
  EntryWrite pub = Write("p", "quokka public note", 4000, "global", "alice");
  pub.visibility = Visibility::kPublic;
  Put(pub);
  const std::vector<KeywordHit> with_public = Search(bobs);
  ASSERT_GE(with_public.size(), 2u);
  // b2 holds "wombat" only: its share of the query's idf mass moves with
  // the idf of "quokka" (b1 holds both and scores 1 either way).
  auto b2 = [](const std::vector<KeywordHit>& hits) {
    for (const KeywordHit& h : hits) {
      if (h.entry.key == "b2") return h.keyword_score;
    }
    return -1.0;
  };
  EXPECT_NE(b2(with_public), b2(before));
}

TEST_P(BackendConformance, KeywordSearchWithoutTermsFindsNothing) {
  Put(Write("k", "some content"));
  EXPECT_TRUE(Search(KeywordQuery{}).empty());
  EXPECT_TRUE(Search(KeywordQuery{.terms = {""}}).empty());
  EXPECT_TRUE(Search(Query("content", {}, 0)).empty());
}

TEST_P(BackendConformance, KeywordSearchFollowsContentUpdates) {
  Put(Write("k", "original aardvark", 1000));
  Put(Write("k", "replacement wombat", 2000));
  EXPECT_TRUE(Search(Query("aardvark")).empty());
  auto hits = Search(Query("wombat"));
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].entry.content, "replacement wombat");
  // A metadata-only update keeps the entry findable.
  EntryWrite same = Write("k", "replacement wombat", 3000);
  same.tags = std::vector<std::string>{"t"};
  Put(same);
  EXPECT_THAT(Keys(Search(Query("wombat"))), ElementsAre("k"));
}

TEST_P(BackendConformance, UpsertBatchCountsCreatedAndTheLastDuplicateWins) {
  Put(Write("existing", "old", 500));
  std::vector<EntryWrite> batch = {Write("a", "first a", 1000), Write("b", "b", 1000),
                                   Write("a", "second a", 1100), Write("existing", "new", 1000)};
  auto created = stores_.entries->UpsertBatch(batch);
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  EXPECT_EQ(*created, 2);
  auto a = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("a"));
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->content, "second a");
  EXPECT_EQ((*a)->created_at, 1000);
  EXPECT_EQ(Search(Query("first")).size(), 0u);
  EXPECT_THAT(Keys(Search(Query("second"))), ElementsAre("a"));
  auto empty = stores_.entries->UpsertBatch({});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, 0);
}

// A batch scores as the same writes made one by one: each entry's document
// length and text index row (SQLite writes both after the batch's rows) end
// up as a single write leaves them, rewrites within the batch included.
TEST_P(BackendConformance, UpsertBatchScoresAsTheSameWritesOneByOne) {
  const std::vector<EntryWrite> writes = {
      Write("a", "the quick brown fox jumps over the lazy dog", 1000), Write("b", "a fox", 1000),
      Write("a", "fox fox and a very long tail of many more words here", 1100),
      Write("c", "dogs and foxes are not the same animal at all", 1000),
      Write("d", "狐狸 跳过 懒狗", 1000)};
  ASSERT_TRUE(stores_.entries->UpsertBatch(writes).ok());
  std::vector<std::pair<std::string, double>> batch;
  for (const KeywordHit& h : Search(Query("fox dog 狐狸"))) {
    batch.emplace_back(h.entry.key, h.keyword_score);
  }
  for (const char* key : {"a", "b", "c", "d"}) {
    auto e = stores_.entries->FindExact("local", TestNamespace("global"), TestKey(key));
    ASSERT_TRUE(e.ok() && e->has_value()) << key;
    ASSERT_TRUE(stores_.entries->Delete((*e)->id).ok());
  }
  for (const EntryWrite& w : writes) Put(w);
  std::vector<std::pair<std::string, double>> single;
  for (const KeywordHit& h : Search(Query("fox dog 狐狸"))) {
    single.emplace_back(h.entry.key, h.keyword_score);
  }
  ASSERT_EQ(batch.size(), 4u);
  ASSERT_EQ(batch.size(), single.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(batch[i].first, single[i].first);
    EXPECT_DOUBLE_EQ(batch[i].second, single[i].second) << batch[i].first;
  }
  EXPECT_TRUE(Search(Query("quick")).empty());
}

TEST_P(BackendConformance, UpsertBatchWithAFailingWriteChangesNothing) {
  Entry before = Put(Write("existing", "pristine original", 500));
  std::vector<EntryWrite> batch = {Write("fresh", "brand new words", 1000),
                                   Write("existing", "overwritten content", 1000),
                                   Write("", "empty key is rejected", 1000)};
  auto r = stores_.entries->UpsertBatch(batch);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  auto fresh = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("fresh"));
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->has_value());
  auto existing = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("existing"));
  ASSERT_TRUE(existing.ok() && existing->has_value());
  EXPECT_EQ((*existing)->content, "pristine original");
  EXPECT_EQ((*existing)->updated_at, 500);
  EXPECT_TRUE(Search(Query("overwritten")).empty());
  EXPECT_TRUE(Search(Query("brand")).empty());
  EXPECT_THAT(Keys(Search(Query("pristine"))), ElementsAre("existing"));
  auto stats = stores_.entries->GetStats({});
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 1);
}

TEST_P(BackendConformance, UpsertRejectsAnEmptyKey) {
  auto r = stores_.entries->Upsert(Write("", "x"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(BackendConformance, ForEachVisitsEverythingInNamespaceKeyOwnerOrder) {
  std::vector<EntryWrite> batch;
  for (int i = 0; i < 300; ++i) {
    char key[16];
    std::snprintf(key, sizeof key, "k%03d", i);
    batch.push_back(Write(key, "bulk", 1000, i % 2 == 0 ? "a" : "b"));
  }
  ASSERT_TRUE(stores_.entries->UpsertBatch(batch).ok());
  Put(Write("rule", "x", 1000, "tool-x"));
  EntryWrite archived = Write("k000", "x", 1000, "a", "zed");
  archived.archived = true;
  Put(archived);
  Put(Write("k000", "x", 1000, "a", "alice"));

  std::vector<std::string> seen;
  Status s = stores_.entries->ForEach({}, "", [&](const Entry& e) {
    seen.push_back(e.ns + "/" + e.key + "/" + e.owner);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  ASSERT_EQ(seen.size(), 303u);
  EXPECT_EQ(seen[0], "a/k000/alice");
  EXPECT_EQ(seen[1], "a/k000/local");
  EXPECT_EQ(seen[2], "a/k000/zed");
  EXPECT_EQ(seen[3], "a/k002/local");
  EXPECT_EQ(seen[152], "b/k001/local");
  EXPECT_EQ(seen.back(), "tool-x/rule/local");

  int count = 0;
  s = stores_.entries->ForEach(ScopeOf("alice"), "", [&](const Entry& e) {
    ++count;
    EXPECT_EQ(e.owner, "alice");
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(count, 1);

  count = 0;
  s = stores_.entries->ForEach(
      {}, "", [&](const Entry&) { return ++count == 5 ? Internal("stop here") : Status::Ok(); });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(count, 5);
}

TEST_P(BackendConformance, ForEachWithAPrefixVisitsOnlyThoseNamespaces) {
  Put(Write("a", "x", 1000, "tool-shell"));
  Put(Write("b", "x", 1000, "tool-*"));
  Put(Write("c", "x", 1000, "tool."));
  Put(Write("d", "x", 1000, "tool"));
  Put(Write("e", "x", 1000, "tool_effectiveness"));
  Put(Write("f", "x", 1000, "global"));
  std::vector<std::string> seen;
  Status s = stores_.entries->ForEach({}, "tool-", [&](const Entry& e) {
    seen.push_back(e.ns + "/" + e.key);
    return Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_THAT(seen, ElementsAre("tool-*/b", "tool-shell/a"));
}

TEST_P(BackendConformance, ToolRulesGenerationChangesWithRuleWritesOnly) {
  auto generation = [&] {
    auto g = stores_.entries->Generation(storage::Counter::kToolRules);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? *g : -1;
  };
  const int64_t g0 = generation();
  Put(Write("k", "a global entry"));
  Put(Write("tool/shell", "{}", 1000, "tool_effectiveness"));
  EXPECT_EQ(generation(), g0);
  Entry rule = Put(Write("rule/1", "Prefer rg.", 1000, "tool-shell"));
  const int64_t g1 = generation();
  EXPECT_NE(g1, g0);
  Put(Write("rule/1", "Prefer rg over grep.", 2000, "tool-shell"));
  const int64_t g2 = generation();
  EXPECT_NE(g2, g1);
  auto deleted = stores_.entries->Delete(rule.id);
  ASSERT_TRUE(deleted.ok() && *deleted);
  EXPECT_NE(generation(), g2);
}

TEST_P(BackendConformance, ForEachMayCallBackIntoTheBackend) {
  for (int i = 0; i < 5; ++i) Put(Write("k" + std::to_string(i), "x"));
  int found = 0;
  Status s = stores_.entries->ForEach({}, "", [&](const Entry& e) {
    auto again = stores_.entries->FindExact(e.owner, TestNamespace(e.ns), TestKey(e.key));
    if (again.ok() && again->has_value()) ++found;
    return stores_.entries->AddCounters(e.id, 1, 0).status();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(found, 5);
}

TEST_P(BackendConformance, GetStatsCountsWhatTheScopeSees) {
  EntryWrite archived = Write("a", "x", 1000, "global", "alice");
  archived.archived = true;
  archived.category = "daily";
  Put(archived);
  Put(Write("b", "x", 1000, "work", "alice"));
  Put(Write("c", "x", 1000, "tool-x", "bob"));
  EntryWrite pub = Write("d", "x", 1000, "global", "bob");
  pub.visibility = Visibility::kPublic;
  Put(pub);

  auto all = stores_.entries->GetStats({});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->entries, 4);
  EXPECT_EQ(all->archived, 1);
  EXPECT_THAT(all->by_category, ElementsAre(Pair("core", 3), Pair("daily", 1)));
  EXPECT_THAT(all->by_namespace,
              ElementsAre(Pair("global", 2), Pair("tool-x", 1), Pair("work", 1)));
  EXPECT_EQ(all->backend, stores_.name);
  EXPECT_EQ(all->schema_version, stores_.schema_version);

  auto alice = stores_.entries->GetStats(ScopeOf("alice"));
  ASSERT_TRUE(alice.ok());
  EXPECT_EQ(alice->entries, 3);
  EXPECT_EQ(alice->archived, 1);
  EXPECT_THAT(alice->by_namespace, ElementsAre(Pair("global", 2), Pair("work", 1)));
}

TEST(SystemNamespace, CoversToolPrefixAndToolEffectivenessOnly) {
  EXPECT_TRUE(IsSystemNamespace("tool-send_email"));
  EXPECT_TRUE(IsSystemNamespace("tool-"));
  EXPECT_TRUE(IsSystemNamespace("tool_effectiveness"));
  EXPECT_FALSE(IsSystemNamespace("tool"));
  EXPECT_FALSE(IsSystemNamespace("tools"));
  EXPECT_FALSE(IsSystemNamespace("Tool-x"));
  EXPECT_FALSE(IsSystemNamespace("tool_effectiveness2"));
  EXPECT_FALSE(IsSystemNamespace("global"));
}

TEST_P(BackendConformance, MutateSeesTheGroupInKeyOrderAndAppliesItsWrites) {
  Put(Write("b", "two", 1000, "tool-shell"));
  Put(Write("a", "one", 1000, "tool-shell"));
  Put(Write("c", "elsewhere", 1000, "tool-mail"));
  Put(Write("d", "other owner", 1000, "tool-shell", "bob"));
  std::vector<std::string> seen;
  auto r = stores_.entries->Mutate(
      EntryGroup{.owner = "local", .ns = "tool-shell"},
      [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
        for (const Entry& e : current) seen.push_back(e.key);
        return std::vector<EntryWrite>{Write("a", "one, changed", 2000, "tool-shell"),
                                       Write("e", "new", 2000, "tool-shell")};
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_THAT(seen, ElementsAre("a", "b"));
  ASSERT_EQ(r->size(), 2u);
  EXPECT_FALSE((*r)[0].created);
  EXPECT_EQ((*r)[0].entry.created_at, 1000);
  EXPECT_TRUE((*r)[1].created);
  auto a = stores_.entries->FindExact("local", TestNamespace("tool-shell"), TestKey("a"));
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->content, "one, changed");
  EXPECT_EQ(Keys(Search(Query("changed", {.ns = "tool-shell"}))), std::vector<std::string>{"a"});
}

TEST_P(BackendConformance, MutateWithAKeySeesOnlyThatEntry) {
  Put(Write("tool/a", "1", 1000, "tool_effectiveness"));
  Put(Write("tool/b", "2", 1000, "tool_effectiveness"));
  std::vector<std::string> seen;
  auto r = stores_.entries->Mutate(
      EntryGroup{.owner = "local", .ns = "tool_effectiveness", .key = "tool/b"},
      [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
        for (const Entry& e : current) seen.push_back(e.content);
        return std::vector<EntryWrite>{};
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->empty());
  EXPECT_THAT(seen, ElementsAre("2"));
}

TEST_P(BackendConformance, MutateWithAFingerprintSeesThatFingerprintAndEntriesWithout) {
  auto put = [&](const std::string& key, std::optional<std::string> fingerprint,
                 const std::string& owner = "local") {
    EntryWrite w = Write(key, "body " + key, 1000, "tool-shell", owner);
    w.fingerprint = std::move(fingerprint);
    Put(w);
  };
  put("a", "f1");
  put("b", "f2");
  put("c", std::nullopt);  // another path (memory_store, a hand edit)
  put("d", "f1");
  put("e", "f1", "bob");
  // A write without a fingerprint clears the stored one: "b" becomes a
  // candidate of every fingerprint.
  put("b2", "f2");
  put("b2", std::nullopt);
  auto seen_with = [&](const EntryGroup& group) {
    std::vector<std::string> seen;
    auto r = stores_.entries->Mutate(
        group, [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
          for (const Entry& e : current) seen.push_back(e.key);
          return std::vector<EntryWrite>{};
        });
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return seen;
  };
  EXPECT_THAT(seen_with({.owner = "local", .ns = "tool-shell", .fingerprint = "f1"}),
              ElementsAre("a", "b2", "c", "d"));
  EXPECT_THAT(seen_with({.owner = "local", .ns = "tool-shell", .fingerprint = "f2"}),
              ElementsAre("b", "b2", "c"));
  EXPECT_THAT(seen_with({.owner = "local", .ns = "tool-shell", .fingerprint = "f3"}),
              ElementsAre("b2", "c"));
  EXPECT_THAT(seen_with({.owner = "local", .ns = "tool-shell", .key = "d", .fingerprint = "f2"}),
              ElementsAre());
  EXPECT_THAT(seen_with({.owner = "local", .ns = "tool-shell"}),
              ElementsAre("a", "b", "b2", "c", "d"));
}

TEST_P(BackendConformance, GenerationOfTheToolRegistryChangesWithRegistryWritesOnly) {
  auto generation = [&] {
    auto g = stores_.entries->Generation(storage::Counter::kToolRegistry);
    EXPECT_TRUE(g.ok()) << g.status().ToString();
    return g.ok() ? *g : -1;
  };
  const int64_t g0 = generation();
  Put(Write("k", "a global entry"));
  Put(Write("rule/1", "Prefer rg.", 1000, "tool-shell"));
  EXPECT_EQ(generation(), g0);
  Entry tool = Put(Write("cmd_run", "{}", 1000, std::string(kToolRegistryNamespace)));
  const int64_t g1 = generation();
  EXPECT_NE(g1, g0);
  auto deleted = stores_.entries->Delete(tool.id);
  ASSERT_TRUE(deleted.ok() && *deleted);
  EXPECT_NE(generation(), g1);
}

TEST_P(BackendConformance, ApplyHygieneJudgesEachEntryAsItIsNow) {
  Entry old_note = Put(Write("note", "pelican note", 1000));
  Entry chat = Put(Write("chat", "pelican chat", 1000));
  Entry kept = Put(Write("kept", "pelican kept", 1000));
  // Rewritten after the caller's scan: judged by its new state.
  Put(Write("kept", "pelican kept, rewritten", 9000));
  const std::vector<std::string> ids = {old_note.id, chat.id, kept.id, "no-such-id"};
  auto counts = stores_.entries->ApplyHygiene(ids, [](const Entry& e) {
    if (e.updated_at > 5000) return HygieneAction::kKeep;
    return e.key == "chat" ? HygieneAction::kDelete : HygieneAction::kArchive;
  });
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  EXPECT_EQ(counts->archived, 1);
  EXPECT_EQ(counts->deleted, 1);
  auto note = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("note"));
  ASSERT_TRUE(note.ok() && note->has_value());
  EXPECT_TRUE((*note)->archived);
  EXPECT_EQ((*note)->updated_at, 1000);  // archiving is not a write
  EXPECT_EQ((*note)->content, "pelican note");
  auto gone = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("chat"));
  ASSERT_TRUE(gone.ok());
  EXPECT_FALSE(gone->has_value());
  // Keyword search: the deleted entry's row is gone, the archived one only
  // with include_archived.
  EXPECT_EQ(Keys(Search(Query("pelican"))), std::vector<std::string>{"kept"});
  KeywordQuery all = Query("pelican");
  all.filter.include_archived = true;
  EXPECT_THAT(Keys(Search(all)), ::testing::UnorderedElementsAre("kept", "note"));
  // Archiving twice counts once; a plain write un-archives.
  auto twice = stores_.entries->ApplyHygiene(std::vector<std::string>{old_note.id},
                                             [](const Entry&) { return HygieneAction::kArchive; });
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(twice->archived, 0);
  Put(Write("note", "pelican note again", 10000));
  auto live = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("note"));
  ASSERT_TRUE(live.ok() && live->has_value());
  EXPECT_FALSE((*live)->archived);
}

TEST_P(BackendConformance, ClaimHygieneRunGrantsOneRunPerInterval) {
  auto claim = [&](TimeMs now) {
    auto r = stores_.entries->ClaimHygieneRun(now, 1000);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && *r;
  };
  EXPECT_TRUE(claim(5000));   // never ran
  EXPECT_FALSE(claim(5500));  // within the interval
  EXPECT_FALSE(claim(5999));
  EXPECT_TRUE(claim(6000));
  EXPECT_FALSE(claim(6001));
}

// Issue 20: the inspector's health page shows when hygiene last ran.
TEST_P(BackendConformance, LastHygieneRunIsTheLastRecordedClaim) {
  auto last = stores_.entries->LastHygieneRun();
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_FALSE(last->has_value());
  ASSERT_TRUE(stores_.entries->ClaimHygieneRun(5000, 1000).ok());
  ASSERT_TRUE(stores_.entries->ClaimHygieneRun(5500, 1000).ok());  // not due: not recorded
  last = stores_.entries->LastHygieneRun();
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(*last, std::optional<TimeMs>(5000));
  ASSERT_TRUE(stores_.entries->ClaimHygieneRun(7000, 0).ok());  // a run asked for now
  EXPECT_EQ(*stores_.entries->LastHygieneRun(), std::optional<TimeMs>(7000));
}

TEST_P(BackendConformance, MutateAppliesNothingWhenAWriteLeavesTheGroupOrDecideFails) {
  Put(Write("a", "one", 1000, "tool-shell"));
  auto leaves = stores_.entries->Mutate(
      EntryGroup{.owner = "local", .ns = "tool-shell"},
      [&](const std::vector<Entry>&) -> Result<std::vector<EntryWrite>> {
        return std::vector<EntryWrite>{Write("a", "changed", 2000, "tool-shell"),
                                       Write("x", "escape", 2000, "global")};
      });
  EXPECT_EQ(leaves.status().code(), StatusCode::kInvalidArgument);
  auto fails =
      stores_.entries->Mutate(EntryGroup{.owner = "local", .ns = "tool-shell"},
                              [&](const std::vector<Entry>&) -> Result<std::vector<EntryWrite>> {
                                return Conflict("decided against it");
                              });
  EXPECT_EQ(fails.status().code(), StatusCode::kConflict);
  auto a = stores_.entries->FindExact("local", TestNamespace("tool-shell"), TestKey("a"));
  ASSERT_TRUE(a.ok() && a->has_value());
  EXPECT_EQ((*a)->content, "one");
  auto x = stores_.entries->FindExact("local", TestNamespace("global"), TestKey("x"));
  ASSERT_TRUE(x.ok());
  EXPECT_FALSE(x->has_value());
}

TEST_P(BackendConformance, ConcurrentMutationsOfOneCounterLoseNoUpdate) {
  constexpr int kThreads = 8;
  constexpr int kEach = 25;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        auto r = stores_.entries->Mutate(
            EntryGroup{.owner = "local", .ns = "tool_effectiveness", .key = "tool/x"},
            [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
              int n = current.empty() ? 0 : std::stoi(current[0].content);
              return std::vector<EntryWrite>{
                  Write("tool/x", std::to_string(n + 1), 1000, "tool_effectiveness")};
            });
        EXPECT_TRUE(r.ok()) << r.status().ToString();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  auto x =
      stores_.entries->FindExact("local", TestNamespace("tool_effectiveness"), TestKey("tool/x"));
  ASSERT_TRUE(x.ok() && x->has_value());
  EXPECT_EQ((*x)->content, std::to_string(kThreads * kEach));
}

INSTANTIATE_TEST_SUITE_P(
    Backends, BackendConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo::storage

// The graph part of the storage contract (graph_store.h, graph.h), run unchanged
// against every backend in kConformanceBackends.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/migrations.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/stores.h"

namespace mnemo::storage {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TripleRow Triple(std::string subject, std::string predicate, std::string object,
                 TimeMs valid_from = 1000, double confidence = 0.6, std::string owner = "local",
                 std::string source = "doc-1") {
  TripleRow t;
  t.owner = std::move(owner);
  t.subject = std::move(subject);
  t.predicate = std::move(predicate);
  t.object = std::move(object);
  t.confidence = confidence;
  t.source = std::move(source);
  t.sentence = "a sentence";
  t.valid_from = valid_from;
  t.created_at = valid_from;
  return t;
}

class GraphConformance : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    stores_ = testing::MakeStores(GetParam(), dir_);
    ASSERT_NE(stores_.entries, nullptr);
  }

  TripleUpsert Upsert(const TripleRow& row, bool single_valued = false) {
    auto r = stores_.graph->UpsertTriple(row, single_valued);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : TripleUpsert{};
  }

  std::vector<TripleRow> Query(TripleQuery q) {
    auto r = stores_.graph->QueryTriples(q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<TripleRow>();
  }

  // "subject|predicate|object" of each row, in order.
  static std::vector<std::string> Spo(const std::vector<TripleRow>& rows) {
    std::vector<std::string> out;
    for (const TripleRow& t : rows) out.push_back(t.subject + "|" + t.predicate + "|" + t.object);
    return out;
  }

  testing::TempDir dir_;
  Stores stores_;
};

TEST_P(GraphConformance, StoresANewTripleWithIdAndNormalisedPredicate) {
  TripleUpsert u = Upsert(Triple("  Alice ", "Lives   In", "Paris  France"));
  EXPECT_TRUE(u.created);
  EXPECT_EQ(u.row.id.size(), 36u);
  EXPECT_EQ(u.row.subject, "Alice");
  EXPECT_EQ(u.row.predicate, "lives_in");
  EXPECT_EQ(u.row.object, "Paris France");
  EXPECT_EQ(u.row.valid_to, 0);
  EXPECT_THAT(u.superseded, IsEmpty());
  std::vector<TripleRow> rows = Query({});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, u.row.id);
  EXPECT_EQ(rows[0].owner, "local");
  EXPECT_EQ(rows[0].source, "doc-1");
  EXPECT_EQ(rows[0].sentence, "a sentence");
  EXPECT_DOUBLE_EQ(rows[0].confidence, 0.6);
  EXPECT_EQ(rows[0].valid_from, 1000);
  EXPECT_EQ(rows[0].created_at, 1000);
}

TEST_P(GraphConformance, AnIdenticalCurrentTripleIsRefreshedNotDuplicated) {
  TripleUpsert first = Upsert(Triple("Alice", "uses", "Vim", 1000, 0.4));
  TripleUpsert again = Upsert(Triple("alice", "USES", "vim", 2000, 0.9));
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.row.id, first.row.id);
  EXPECT_DOUBLE_EQ(again.row.confidence, 0.9);
  EXPECT_EQ(again.row.valid_from, 1000);  // the first evidence's
  TripleUpsert weaker = Upsert(Triple("Alice", "uses", "Vim", 3000, 0.2));
  EXPECT_FALSE(weaker.created);
  EXPECT_DOUBLE_EQ(weaker.row.confidence, 0.9);  // the larger stays
  std::vector<TripleRow> rows = Query({.include_history = true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].confidence, 0.9);
  EXPECT_EQ(rows[0].subject, "Alice");  // as first written
}

// The rule profile facets follow too (storage/rules/supersession.h): a hedged
// statement does not end a surer current fact; it stays as history that
// was never current, unless its sentence says that something changed.
TEST_P(GraphConformance, AHedgedFactDoesNotEndAStatedOne) {
  TripleUpsert chennai = Upsert(Triple("user", "lives_in", "Chennai", 1000, 0.9), true);
  TripleRow hedged = Triple("user", "lives_in", "Mumbai", 2000, 0.4);
  hedged.sentence = "Maybe I live in Mumbai.";
  TripleUpsert mumbai = Upsert(hedged, true);
  EXPECT_THAT(mumbai.superseded, IsEmpty());
  EXPECT_EQ(mumbai.row.valid_to, 2000);
  std::vector<TripleRow> current = Query({.subject = "user", .predicate = "lives_in"});
  ASSERT_EQ(current.size(), 1u);
  EXPECT_EQ(current[0].object, "Chennai");
  TripleRow moved = Triple("user", "lives_in", "Delhi", 3000, 0.4);
  moved.sentence = "I think I moved to Delhi.";
  EXPECT_THAT(Upsert(moved, true).superseded, ElementsAre(chennai.row.id));
}

TEST_P(GraphConformance, SingleValuedPredicateSupersedesAndKeepsHistory) {
  TripleUpsert berlin = Upsert(Triple("user", "lives_in", "Berlin", 1000), true);
  TripleUpsert lisbon = Upsert(Triple("user", "lives_in", "Lisbon", 5000), true);
  EXPECT_TRUE(lisbon.created);
  EXPECT_THAT(lisbon.superseded, ElementsAre(berlin.row.id));
  EXPECT_THAT(Spo(Query({.subject = "user", .predicate = "lives in"})),
              ElementsAre("user|lives_in|Lisbon"));
  std::vector<TripleRow> all = Query({.subject = "user", .include_history = true});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].object, "Lisbon");  // current first
  EXPECT_EQ(all[0].valid_to, 0);
  EXPECT_EQ(all[1].object, "Berlin");
  EXPECT_EQ(all[1].valid_from, 1000);
  EXPECT_EQ(all[1].valid_to, 5000);
  // Moving back creates a new current Berlin; the old one stays history.
  TripleUpsert back = Upsert(Triple("user", "lives_in", "berlin", 9000), true);
  EXPECT_TRUE(back.created);
  EXPECT_NE(back.row.id, berlin.row.id);
  EXPECT_THAT(back.superseded, ElementsAre(lisbon.row.id));
  EXPECT_EQ(Query({.include_history = true}).size(), 3u);
  EXPECT_THAT(Spo(Query({})), ElementsAre("user|lives_in|berlin"));
}

// Issue 18: as_of answers what was true then, from the validity history.
TEST_P(GraphConformance, AsOfGivesWhatWasTrueThen) {
  Upsert(Triple("user", "lives_in", "Berlin", 1000), true);
  Upsert(Triple("user", "lives_in", "Lisbon", 5000), true);
  EXPECT_TRUE(Query({.subject = "user", .as_of = 999}).empty());
  EXPECT_THAT(Spo(Query({.subject = "user", .as_of = 1000})), ElementsAre("user|lives_in|Berlin"));
  EXPECT_THAT(Spo(Query({.subject = "user", .as_of = 4999})), ElementsAre("user|lives_in|Berlin"));
  EXPECT_THAT(Spo(Query({.subject = "user", .as_of = 5000})), ElementsAre("user|lives_in|Lisbon"));
  EXPECT_THAT(Spo(Query({.subject = "user", .include_history = true, .as_of = 9000})),
              ElementsAre("user|lives_in|Lisbon"));
}

TEST_P(GraphConformance, MultiValuedPredicatesKeepEveryObjectCurrent) {
  Upsert(Triple("user", "likes", "tea"));
  TripleUpsert coffee = Upsert(Triple("user", "likes", "coffee", 2000));
  EXPECT_THAT(coffee.superseded, IsEmpty());
  EXPECT_THAT(Spo(Query({.predicate = "likes"})),
              ElementsAre("user|likes|coffee", "user|likes|tea"));  // newest first
}

// Older evidence arriving after newer evidence (reindex re-deriving a
// document, a statement dated in the past) never ends the newer fact.
TEST_P(GraphConformance, AnOlderFactArrivingLateBecomesHistoryAndTheNewerOneStands) {
  TripleUpsert acme = Upsert(Triple("user", "works_at", "Acme", 5000), true);
  TripleUpsert initech = Upsert(Triple("user", "works_at", "Initech", 3000), true);
  EXPECT_TRUE(initech.created);
  EXPECT_THAT(initech.superseded, IsEmpty());
  EXPECT_EQ(initech.row.valid_to, 5000);  // until the newer fact began
  EXPECT_THAT(Spo(Query({})), ElementsAre("user|works_at|Acme"));
  std::vector<TripleRow> all = Query({.include_history = true});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, acme.row.id);
  EXPECT_EQ(all[0].valid_to, 0);
  EXPECT_EQ(all[1].id, initech.row.id);
  EXPECT_EQ(all[1].valid_from, 3000);
  EXPECT_EQ(all[1].valid_to, 5000);
  // A newer fact still supersedes as before; the same time counts as newer.
  TripleUpsert globex = Upsert(Triple("user", "works_at", "Globex", 5000), true);
  EXPECT_THAT(globex.superseded, ElementsAre(acme.row.id));
  EXPECT_THAT(Spo(Query({})), ElementsAre("user|works_at|Globex"));
  // Multi-valued predicates are unaffected.
  Upsert(Triple("user", "likes", "tea", 9000));
  TripleUpsert old_like = Upsert(Triple("user", "likes", "coffee", 1000));
  EXPECT_EQ(old_like.row.valid_to, 0);
}

TEST_P(GraphConformance, SingleValuedScopeIsPerOwnerAndSubject) {
  Upsert(Triple("user", "lives_in", "Berlin", 1000, 0.6, "alice"), true);
  Upsert(Triple("user", "lives_in", "Oslo", 2000, 0.6, "bob"), true);
  Upsert(Triple("Carol", "lives_in", "Rome", 3000, 0.6, "alice"), true);
  EXPECT_EQ(Query({}).size(), 3u);
  EXPECT_THAT(Spo(Query({.owner = "alice"})),
              ElementsAre("Carol|lives_in|Rome", "user|lives_in|Berlin"));
  EXPECT_THAT(Spo(Query({.owner = "bob"})), ElementsAre("user|lives_in|Oslo"));
}

TEST_P(GraphConformance, FiltersCompareSubjectAndObjectCaseInsensitively) {
  Upsert(Triple("PostgreSQL", "is", "a database"));
  Upsert(Triple("Alice", "uses", "PostgreSQL", 2000));
  Upsert(Triple("数据库", "是", "PostgreSQL", 3000));
  EXPECT_THAT(Spo(Query({.subject = " postgresql "})), ElementsAre("PostgreSQL|is|a database"));
  EXPECT_THAT(Spo(Query({.object = "POSTGRESQL"})),
              ElementsAre("Alice|uses|PostgreSQL", "数据库|是|PostgreSQL"));
  EXPECT_THAT(Spo(Query({.predicate = "USES", .object = "postgresql"})),
              ElementsAre("Alice|uses|PostgreSQL"));
  EXPECT_THAT(Spo(Query({.subject = "数据库"})), ElementsAre("数据库|是|PostgreSQL"));
  EXPECT_THAT(Query({.subject = "Alic"}), IsEmpty());
  EXPECT_THAT(Query({.predicate = "use"}), IsEmpty());
}

TEST_P(GraphConformance, OrderIsDeterministicAndLimited) {
  Upsert(Triple("b", "uses", "x", 1000));
  Upsert(Triple("a", "uses", "z", 1000));
  Upsert(Triple("a", "uses", "y", 1000));
  Upsert(Triple("a", "likes", "w", 1000));
  EXPECT_THAT(Spo(Query({})), ElementsAre("a|likes|w", "a|uses|y", "a|uses|z", "b|uses|x"));
  EXPECT_THAT(Spo(Query({.limit = 2})), ElementsAre("a|likes|w", "a|uses|y"));
  EXPECT_THAT(Query({.limit = 0}), IsEmpty());
}

TEST_P(GraphConformance, RejectsBlankFieldsAndConfidenceOutsideTheUnitInterval) {
  struct Case {
    TripleRow row;
    std::string field;
  };
  std::vector<Case> cases = {
      {Triple(" ", "uses", "x"), "subject"},
      {Triple("a", "\t", "x"), "predicate"},
      {Triple("a", "uses", ""), "object"},
      {Triple("a", "uses", "x", 1, 1.5), "confidence"},
      {Triple("a", "uses", "x", 1, -0.1), "confidence"},
      {Triple("a", "uses", "x", 1, 0.5, ""), "owner"},
  };
  for (const Case& c : cases) {
    auto r = stores_.graph->UpsertTriple(c.row, false);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().field(), c.field);
  }
  EXPECT_THAT(Query({.include_history = true}), IsEmpty());
}

TEST_P(GraphConformance, AReusedIdIsAConflict) {
  TripleUpsert first = Upsert(Triple("a", "uses", "x"));
  TripleRow other = Triple("b", "uses", "y");
  other.id = first.row.id;
  auto r = stores_.graph->UpsertTriple(other, false);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
}

TEST_P(GraphConformance, ConcurrentSingleValuedUpsertsLeaveOneCurrentTriple) {
  constexpr int kEach = 40;
  std::atomic<int> failures{0};
  auto work = [&](const std::string& city) {
    for (int i = 0; i < kEach; ++i) {
      auto r = stores_.graph->UpsertTriple(Triple("user", "lives_in", city, 1000 + i), true);
      if (!r.ok()) ++failures;
    }
  };
  std::thread t1(work, "Berlin");
  std::thread t2(work, "Lisbon");
  t1.join();
  t2.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<TripleRow> current = Query({.subject = "user", .predicate = "lives_in"});
  ASSERT_EQ(current.size(), 1u) << ::testing::PrintToString(Spo(current));
  // Every switch of city made one history row; none was lost or doubled.
  std::vector<TripleRow> all = Query({.include_history = true, .limit = 1000});
  std::set<std::string> ids;
  for (const TripleRow& t : all) ids.insert(t.id);
  EXPECT_EQ(ids.size(), all.size());
  int current_rows = 0;
  for (const TripleRow& t : all) current_rows += t.valid_to == 0 ? 1 : 0;
  EXPECT_EQ(current_rows, 1);
}

INSTANTIATE_TEST_SUITE_P(
    Backends, GraphConformance,
    ::testing::ValuesIn(std::vector<std::string>(std::begin(testing::kConformanceBackends),
                                                 std::end(testing::kConformanceBackends))),
    [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// Two SQLite backends on one file stand for two processes.
TEST(SqliteGraph, TwoWritersOfOneFileLeaveOneCurrentTriple) {
  testing::TempDir dir;
  auto first = testing::MakeStores("sqlite", dir);
  auto second = testing::MakeStores("sqlite", dir);
  ASSERT_NE(first.entries, nullptr);
  ASSERT_NE(second.entries, nullptr);
  auto work = [](const Stores& b, const std::string& city) {
    for (int i = 0; i < 25; ++i) {
      auto r = b.graph->UpsertTriple(Triple("user", "timezone", city, 1000 + i), true);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  };
  std::thread t1(work, std::cref(first), "CET");
  std::thread t2(work, std::cref(second), "UTC");
  t1.join();
  t2.join();
  auto current = second.graph->QueryTriples({.subject = "user", .predicate = "timezone"});
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->size(), 1u);
}

// A version-6 database gets the triples table when opened.
TEST(SqliteGraph, V7AddsTheGraphToAnExistingV6Database) {
  testing::TempDir dir;
  const std::string path = dir.File("mnemo.db");
  {
    auto conn = internal::Connection::Open(path, /*create=*/true, 1000);
    ASSERT_TRUE(conn.ok());
    ASSERT_TRUE(internal::RegisterFtsTokenizer((*conn)->handle()).ok());
    ASSERT_TRUE(internal::RegisterEntryFunctions((*conn)->handle()).ok());
    auto v = internal::Migrate(**conn, internal::SchemaMigrations().first(6));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    ASSERT_EQ(*v, 6);
  }
  auto b = internal::SqliteBackend::Open({.path = path});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_GE((*b)->schema_version(), 7);
  auto put = (*b)->graph().UpsertTriple(Triple("user", "lives_in", "Berlin"), true);
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto rows = (*b)->graph().QueryTriples({});
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(rows->size(), 1u);
}

TEST(SqliteGraph, TriplesSurviveReopening) {
  testing::TempDir dir;
  {
    auto b = testing::MakeStores("sqlite", dir);
    ASSERT_NE(b.entries, nullptr);
    ASSERT_TRUE(b.graph->UpsertTriple(Triple("user", "lives_in", "Berlin", 1000), true).ok());
    ASSERT_TRUE(b.graph->UpsertTriple(Triple("user", "lives_in", "Lisbon", 2000), true).ok());
  }
  auto b = testing::MakeStores("sqlite", dir);
  ASSERT_NE(b.entries, nullptr);
  auto rows = b.graph->QueryTriples({.include_history = true});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].object, "Lisbon");
  EXPECT_EQ((*rows)[1].valid_to, 2000);
}

}  // namespace
}  // namespace mnemo::storage

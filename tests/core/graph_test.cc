// The graph through the Engine (spec 50): GraphUpsert / GraphQuery, their
// validation and their scope (the principal's own triples under ACL).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

class GraphTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Reopen(Config{}); }

  void Reopen(Config config) {
    engine_.reset();
    config.memory.backend = GetParam();
    config.embedding.provider = "none";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config, .clock = clock_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  std::vector<std::string> Objects(const Principal& who, const GraphQueryRequest& q = {}) {
    auto r = engine_->knowledge().GraphQuery(who, q);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    if (r.ok()) {
      for (const Triple& t : *r) out.push_back(t.object);
    }
    return out;
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_P(GraphTest, ValidationNamesTheField) {
  struct Case {
    GraphUpsertRequest req;
    std::string field;
  };
  const std::string big(1025, 'x');
  std::vector<Case> cases = {
      {{.subject = " ", .predicate = "uses", .object = "vim"}, "subject"},
      {{.subject = "user", .predicate = "", .object = "vim"}, "predicate"},
      {{.subject = "user", .predicate = "uses", .object = big}, "object"},
      {{.subject = "user", .predicate = "uses", .object = "vim", .confidence = 1.01}, "confidence"},
      {{.subject = "user", .predicate = "uses", .object = "vim", .confidence = -1}, "confidence"},
      {{.subject = "user", .predicate = "uses", .object = "vim", .source = big}, "source"},
  };
  for (const Case& c : cases) {
    auto r = engine_->knowledge().GraphUpsert(me_, c.req);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().field(), c.field);
  }
  EXPECT_TRUE(
      engine_->knowledge()
          .GraphUpsert(me_,
                       {.subject = "user", .predicate = "uses", .object = std::string(1024, 'x')})
          .ok());
  EXPECT_EQ(engine_->knowledge().GraphQuery(me_, {.subject = " "}).status().field(), "subject");
  EXPECT_EQ(engine_->knowledge().GraphQuery(me_, {.limit = 0}).status().field(), "limit");
}

TEST_P(GraphTest, UnderAclEachPrincipalSeesItsOwnTriples) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  const Principal alice{"alice", Role::kUser};
  const Principal bob{"bob", Role::kUser};
  ASSERT_TRUE(
      engine_->knowledge()
          .GraphUpsert(alice, {.subject = "user", .predicate = "lives in", .object = "Rome"})
          .ok());
  auto bobs = engine_->knowledge().GraphUpsert(
      bob, {.subject = "user", .predicate = "lives in", .object = "Oslo"});
  ASSERT_TRUE(bobs.ok());
  // Bob's move does not end Alice's fact: single-valued is per owner.
  EXPECT_THAT(bobs->superseded, ::testing::IsEmpty());
  EXPECT_EQ(bobs->triple.owner, "bob");
  EXPECT_THAT(Objects(alice), ::testing::ElementsAre("Rome"));
  EXPECT_THAT(Objects(bob), ::testing::ElementsAre("Oslo"));
}

TEST_P(GraphTest, WithoutAclEveryoneReadsEveryTriple) {
  const Principal alice{"alice", Role::kUser};
  ASSERT_TRUE(
      engine_->knowledge()
          .GraphUpsert(alice, {.subject = "Rust", .predicate = "is", .object = "a language"})
          .ok());
  EXPECT_THAT(Objects(me_), ::testing::ElementsAre("a language"));
}

// mnemo reindex keeps the documents' stored triples: none is duplicated or
// lost, their history stays as it was, and a fact stated later is not ended
// by older documents.
TEST_P(GraphTest, ReindexKeepsTheStoredTriplesAndTheirHistory) {
  ASSERT_TRUE(engine_->documents().Put(me_, {.content = "I live in Berlin."}).ok());
  clock_->Advance(1000);
  ASSERT_TRUE(engine_->documents().Put(me_, {.content = "I moved to Lisbon."}).ok());
  clock_->Advance(1000);
  ASSERT_TRUE(engine_->documents().Put(me_, {.content = "Alice uses Vim."}).ok());
  clock_->Advance(1000);
  ASSERT_TRUE(engine_->knowledge()
                  .GraphUpsert(me_, {.subject = "user", .predicate = "lives in", .object = "Porto"})
                  .ok());
  const GraphQueryRequest all{.include_history = true};
  const std::vector<std::string> before = Objects(me_, all);
  ASSERT_EQ(before.size(), 4u);
  EXPECT_THAT(Objects(me_, {.predicate = "lives_in"}), ::testing::ElementsAre("Porto"));

  auto report = engine_->admin().Reindex(me_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->triples_derived, 3);
  auto rows =
      engine_->knowledge().GraphQuery(me_, {.predicate = "lives_in", .include_history = true});
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 3u);
  EXPECT_EQ((*rows)[0].object, "Porto");  // current: the stated fact stands
  EXPECT_EQ((*rows)[0].valid_to, 0);
  // History, newest first, each ending where the next fact began.
  EXPECT_EQ((*rows)[1].object, "Lisbon");
  EXPECT_EQ((*rows)[1].valid_to, (*rows)[0].valid_from);
  EXPECT_EQ((*rows)[2].object, "Berlin");
  EXPECT_EQ((*rows)[2].valid_to, (*rows)[1].valid_from);
  EXPECT_EQ(Objects(me_, all).size(), 4u);  // nothing duplicated
  EXPECT_THAT(Objects(me_, {.predicate = "uses"}), ::testing::ElementsAre("Vim"));
}

// A triple the user deleted or corrected is not extracted again from its
// document by mnemo reindex (issue 44 section 3).
TEST_P(GraphTest, ReindexKeepsADeletedTripleGoneAndACorrectedOneCorrected) {
  ASSERT_TRUE(engine_->documents()
                  .Put(me_, {.content = "I live in Berlin. Alice uses Vim. Bob works for Acme."})
                  .ok());
  auto vim = engine_->knowledge().GraphQuery(me_, {.subject = "Alice"});
  ASSERT_TRUE(vim.ok());
  ASSERT_EQ(vim->size(), 1u);
  auto acme = engine_->knowledge().GraphQuery(me_, {.subject = "Bob"});
  ASSERT_TRUE(acme.ok());
  ASSERT_EQ(acme->size(), 1u);
  ASSERT_TRUE(engine_->knowledge().GraphDelete(me_, (*vim)[0].id).ok());
  auto fixed = engine_->knowledge().GraphCorrect(me_, {.id = (*acme)[0].id, .object = "Initech"});
  ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();

  auto report = engine_->admin().Reindex(me_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->triples_derived, 2);
  EXPECT_THAT(Objects(me_, {.include_history = true}),
              ::testing::UnorderedElementsAre("Berlin", "Initech"));
  auto bob = engine_->knowledge().GraphQuery(me_, {.subject = "Bob"});
  ASSERT_TRUE(bob.ok());
  ASSERT_EQ(bob->size(), 1u);
  EXPECT_EQ((*bob)[0].id, fixed->triple.id);
}

INSTANTIATE_TEST_SUITE_P(Backends, GraphTest, ::testing::Values("in_memory", "sqlite"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace mnemo

// Documents through the Engine (spec 50): doc_put, doc_get, doc_search,
// doc_list, doc_delete, their ACL scope, and documents in memory_recall.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

class FixedClock final : public Clock {
 public:
  TimeMs NowMs() const override { return now_.fetch_add(1000); }

 private:
  mutable std::atomic<TimeMs> now_{1795946400000};
};

class DocumentsTest : public ::testing::TestWithParam<std::string> {
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

  DocumentPutResult Put(const Principal& who, const std::string& content,
                        const std::string& source = "test") {
    auto r = engine_->documents().Put(who, {.content = content, .source = source});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : DocumentPutResult{};
  }

  std::vector<std::string> SearchIds(const Principal& who, const std::string& q) {
    auto r = engine_->documents().Search(who, {.query = q});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> ids;
    if (r.ok()) {
      for (const DocumentSearchHit& h : *r) ids.push_back(h.document.id);
    }
    return ids;
  }

  testing::TempDir dir_;
  std::shared_ptr<FixedClock> clock_ = std::make_shared<FixedClock>();
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_P(DocumentsTest, DuplicateContentIsStoredOnceUnderOneId) {
  DocumentPutResult first = Put(me_, "The billing service moved to PostgreSQL 16.");
  EXPECT_TRUE(first.created);
  DocumentPutResult again = Put(me_, "The billing service moved to PostgreSQL 16.", "elsewhere");
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.id, first.id);
  auto list = engine_->documents().List(me_, {});
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->documents.size(), 1u);
  EXPECT_TRUE(Put(me_, "The billing service moved to PostgreSQL 17.").created);
}

TEST_P(DocumentsTest, GetReturnsEveryFieldAndCountsEachAccess) {
  const std::string content =
      "Sarah Connor (sarah@example.com) deployed /srv/app/deploy.py at 3 GB of memory.\n"
      "The deployment of the billing service succeeded.";
  auto put = engine_->documents().Put(
      me_, {.content = content, .source = "wiki://ops", .meta = R"({"origin":"wiki","n":1})"});
  ASSERT_TRUE(put.ok()) << put.status().ToString();
  auto a = engine_->documents().Get(me_, put->id);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(a->content, content);
  EXPECT_EQ(a->source, "wiki://ops");
  EXPECT_EQ(a->meta, R"({"origin":"wiki","n":1})");
  EXPECT_EQ(a->owner, "local");
  EXPECT_EQ(a->access_count, 1);
  EXPECT_EQ(a->content_hash.size(), 64u);
  EXPECT_FALSE(a->summary.empty());
  EXPECT_FALSE(a->tags.empty());
  bool email = false;
  for (const DocumentEntity& e : a->entities) {
    if (e.kind == "email" && e.text == "sarah@example.com") email = true;
  }
  EXPECT_TRUE(email) << "entities: " << a->entities.size();
  auto b = engine_->documents().Get(me_, put->id);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->access_count, 2);
  EXPECT_EQ(engine_->documents().Get(me_, "no-such-id").status().code(), StatusCode::kNotFound);
}

TEST_P(DocumentsTest, SearchFindsEnglishAndChineseWithSnippets) {
  const std::string en = Put(me_, "Kubernetes upgrade plan for the payments cluster.").id;
  const std::string zh = Put(me_, "我们明天讨论数据库迁移的计划。").id;
  Put(me_, "An unrelated note about gardening.");
  EXPECT_THAT(SearchIds(me_, "kubernetes payments"), ::testing::ElementsAre(en));
  EXPECT_THAT(SearchIds(me_, "数据库迁移"), ::testing::ElementsAre(zh));
  auto hits = engine_->documents().Search(me_, {.query = "kubernetes"});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_NE((*hits)[0].snippet.find("**Kubernetes**"), std::string::npos) << (*hits)[0].snippet;
  EXPECT_GT((*hits)[0].score, 0.0);
  EXPECT_LE((*hits)[0].score, 1.0);
  EXPECT_TRUE((*hits)[0].document.content.empty());
}

TEST_P(DocumentsTest, DeleteRemovesTheDocumentAndItsIndex) {
  const std::string id = Put(me_, "Temporary note about zeppelins.").id;
  auto del = engine_->documents().Delete(me_, id);
  ASSERT_TRUE(del.ok());
  EXPECT_TRUE(*del);
  EXPECT_EQ(engine_->documents().Get(me_, id).status().code(), StatusCode::kNotFound);
  EXPECT_TRUE(SearchIds(me_, "zeppelins").empty());
  del = engine_->documents().Delete(me_, id);
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(*del);
}

TEST_P(DocumentsTest, ListPagesNewestFirstAndFiltersBySourcePrefix) {
  const std::string a = Put(me_, "first doc", "context:s1#seq0-1").id;
  const std::string b = Put(me_, "second doc", "wiki").id;
  const std::string c = Put(me_, "third doc", "context:s1#seq2-3").id;
  auto page = engine_->documents().List(me_, {.limit = 2});
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->documents.size(), 2u);
  EXPECT_EQ(page->documents[0].id, c);
  EXPECT_EQ(page->documents[1].id, b);
  ASSERT_TRUE(page->next_offset.has_value());
  auto rest = engine_->documents().List(me_, {.limit = 2, .offset = *page->next_offset});
  ASSERT_TRUE(rest.ok());
  ASSERT_EQ(rest->documents.size(), 1u);
  EXPECT_EQ(rest->documents[0].id, a);
  EXPECT_FALSE(rest->next_offset.has_value());
  auto context = engine_->documents().List(me_, {.source = "context:s1#"});
  ASSERT_TRUE(context.ok());
  ASSERT_EQ(context->documents.size(), 2u);
  EXPECT_EQ(context->documents[0].id, c);
  EXPECT_TRUE(context->documents[0].content.empty());
}

TEST_P(DocumentsTest, ValidationNamesTheField) {
  auto empty = engine_->documents().Put(me_, {.content = ""});
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().field(), "content");
  auto big = engine_->documents().Put(me_, {.content = std::string((1 << 20) + 1, 'a')});
  EXPECT_EQ(big.status().field(), "content");
  auto meta = engine_->documents().Put(me_, {.content = "x", .meta = "[1, 2]"});
  EXPECT_EQ(meta.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(meta.status().field(), "meta");
  EXPECT_EQ(engine_->documents().Put(me_, {.content = "x", .meta = "{not json"}).status().field(),
            "meta");
  auto source = engine_->documents().Put(me_, {.content = "x", .source = std::string(1025, 's')});
  EXPECT_EQ(source.status().field(), "source");
  EXPECT_TRUE(
      engine_->documents().Put(me_, {.content = "x", .source = std::string(1024, 's')}).ok());
  EXPECT_EQ(engine_->documents().Search(me_, {.query = "x", .max_results = 0}).status().field(),
            "max_results");
}

TEST_P(DocumentsTest, UnderAclAnotherPrincipalsDocumentIsNotFound) {
  Config acl;
  acl.memory.acl_enabled = true;
  Reopen(acl);
  const Principal alice{"alice", Role::kUser};
  const Principal bob{"bob", Role::kUser};
  const std::string id = Put(alice, "Alice's secret recipe uses saffron.").id;
  const std::string bobs = Put(bob, "Bob grows saffron crocus.").id;
  auto steal = engine_->documents().Get(bob, id);
  EXPECT_EQ(steal.status().code(), StatusCode::kNotFound);
  // Exactly like a missing document: same code, same words.
  EXPECT_EQ(steal.status().message(), "no document " + id);
  EXPECT_EQ(engine_->documents().Get(bob, "missing").status().message(), "no document missing");
  EXPECT_THAT(SearchIds(bob, "saffron"), ::testing::ElementsAre(bobs));
  auto list = engine_->documents().List(bob, {});
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->documents.size(), 1u);
  EXPECT_EQ(list->documents[0].id, bobs);
  auto del = engine_->documents().Delete(bob, id);
  ASSERT_TRUE(del.ok());
  EXPECT_FALSE(*del);
  // Alice's document is intact, and bob's attempts counted no access.
  auto mine = engine_->documents().Get(alice, id);
  ASSERT_TRUE(mine.ok()) << mine.status().ToString();
  EXPECT_EQ(mine->access_count, 1);
  EXPECT_THAT(SearchIds(alice, "saffron"), ::testing::ElementsAre(id));
  // The same content stored by bob is bob's own document.
  DocumentPutResult copy = Put(bob, "Alice's secret recipe uses saffron.");
  EXPECT_TRUE(copy.created);
  EXPECT_NE(copy.id, id);
}

TEST_P(DocumentsTest, WithoutAclEveryPrincipalReadsEveryDocument) {
  const Principal alice{"alice", Role::kUser};
  const Principal bob{"bob", Role::kUser};
  const std::string id = Put(alice, "Shared handbook about onboarding.").id;
  auto got = engine_->documents().Get(bob, id);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->owner, "alice");
  EXPECT_THAT(SearchIds(bob, "onboarding"), ::testing::ElementsAre(id));
}

TEST_P(DocumentsTest, RecallReturnsDocumentHits) {
  const std::string id = Put(me_, "The quarterly okapi census counted 42 okapis.", "zoo").id;
  ASSERT_TRUE(engine_->memory().Store(me_, {.key = "other", .content = "nothing in common"}).ok());
  auto r = engine_->memory().Recall(me_, {.query = "okapi census"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].source, "document");
  EXPECT_EQ(r->results[0].id, id);
  EXPECT_EQ(r->results[0].key, "zoo");
  EXPECT_NE(r->results[0].content.find("okapi"), std::string::npos);
  EXPECT_GT(r->results[0].score, 0.0);
}

INSTANTIATE_TEST_SUITE_P(Backends, DocumentsTest, ::testing::Values("sqlite", "in_memory"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo

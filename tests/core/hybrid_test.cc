// Hybrid search through the Engine (spec 20): both candidate sides, both
// signals, bring-your-own vectors, the degraded path, index files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "mnemo/engine.h"
#include "test_util.h"
#include "text/pipeline/query.h"

namespace mnemo {
namespace {

using testing::TempDir;

class HybridTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { Reopen(Config{}); }

  void Reopen(Config config) {
    engine_.reset();
    config.memory.backend = GetParam();
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  void Store(const std::string& key, const std::string& value,
             std::optional<std::vector<float>> embedding = std::nullopt) {
    auto r = engine_->memory().Store(me_, {.key = key, .content = value, .embedding = embedding});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  const SearchHit* Find(const SearchResponse& r, const std::string& key) {
    for (const SearchHit& h : r.results) {
      if (h.key == key) return &h;
    }
    return nullptr;
  }

  TempDir dir_;
  Principal me_;
  std::unique_ptr<Engine> engine_;
};

TEST_P(HybridTest, HashEmbedderGivesBothSignals) {
  Store("editor", "The user prefers the Helix editor over Vim for Rust work.");
  Store("food", "Dinner on Friday is pasta with tomato sauce.");
  auto r = engine_->memory().Search(me_, {.query = "Helix editor keybindings", .min_score = 0.0});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  const SearchHit& top = r->results[0];
  EXPECT_EQ(top.key, "editor");
  ASSERT_TRUE(top.vector_score.has_value());
  EXPECT_GT(*top.vector_score, 0.0);
  EXPECT_GT(top.keyword_score, 0.0);
  EXPECT_LT(top.keyword_score, 1.0);  // "keybindings" is not in it
  // Noisy-or (default): two entries are fewer than the vector side's 40
  // neighbours, so there is no floor and the cosine counts raw.
  EXPECT_NEAR(top.score, 1 - (1 - *top.vector_score) * (1 - top.keyword_score), 1e-9);
  EXPECT_FALSE(r->degraded.has_value());
}

// A query past text::kMaxQueryReadBytes is read as its first kMaxQueryReadBytes
// bytes by every side: the words after the cut move neither the keyword
// nor the vector scores. (When only the keyword side cut the query, the
// vector side embedded the tail too and "editor" scored on it.)
TEST_P(HybridTest, EverySideReadsTheSameCutOfALongQuery) {
  Store("cluster", "kubernetes cluster upgrade notes");
  Store("editor", "The user prefers the Helix editor over Vim.");
  std::string head;
  while (head.size() < text::kMaxQueryReadBytes) head += "kubernetes upgrade ";
  head.resize(text::kMaxQueryReadBytes);
  std::string tail;
  for (int i = 0; i < 500; ++i) tail += " Helix editor Vim";
  auto cut = engine_->memory().Search(me_, {.query = head, .min_score = 0.0});
  auto whole = engine_->memory().Search(me_, {.query = head + tail, .min_score = 0.0});
  ASSERT_TRUE(cut.ok()) << cut.status().ToString();
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ(whole->results.size(), cut->results.size());
  for (size_t i = 0; i < cut->results.size(); ++i) {
    EXPECT_EQ(whole->results[i].key, cut->results[i].key);
    EXPECT_DOUBLE_EQ(whole->results[i].keyword_score, cut->results[i].keyword_score);
    EXPECT_EQ(whole->results[i].vector_score, cut->results[i].vector_score);
    EXPECT_DOUBLE_EQ(whole->results[i].score, cut->results[i].score);
  }
  ASSERT_FALSE(cut->results.empty());
  EXPECT_EQ(cut->results[0].key, "cluster");
  ASSERT_TRUE(cut->results[0].vector_score.has_value());
}

TEST_P(HybridTest, VectorOnlyAndKeywordOnlyCandidatesBothRank) {
  // Bring-your-own vectors make the two sides independent of each other.
  Store("by_vector", "nothing in common with the query text", std::vector<float>{1, 0, 0, 0});
  Store("by_keyword", "the zebra crossing near the station", std::vector<float>{0, 0, 0, 1});
  auto r = engine_->memory().Search(
      me_, {.query = "zebra", .min_score = 0.0, .embedding = std::vector<float>{1, 0.05f, 0, 0}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const SearchHit* v = Find(*r, "by_vector");
  const SearchHit* k = Find(*r, "by_keyword");
  ASSERT_NE(v, nullptr);
  ASSERT_NE(k, nullptr);
  EXPECT_DOUBLE_EQ(v->keyword_score, 0.0);
  EXPECT_GT(*v->vector_score, 0.9);
  EXPECT_GT(k->keyword_score, 0.5);
  ASSERT_TRUE(k->vector_score.has_value());  // computed from its stored vector
  EXPECT_DOUBLE_EQ(*k->vector_score, 0.0);
}

TEST_P(HybridTest, BadEmbeddingIsAClearError) {
  auto r =
      engine_->memory().Store(me_, {.key = "k", .content = "v", .embedding = std::vector<float>{}});
  EXPECT_EQ(r.status().field(), "embedding");
  auto z = engine_->memory().Search(me_, {.query = "v", .embedding = std::vector<float>{0, 0}});
  EXPECT_EQ(z.status().field(), "embedding");
  auto stats = engine_->memory().GetStats(me_);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 0);
}

TEST_P(HybridTest, UnreachableEmbedderDegradesToKeywordSearch) {
  Config c;
  c.embedding.provider = "openai";
  c.embedding.model = "test-model";
  c.embedding.base_url = "http://127.0.0.1:1";  // nothing listens on port 1
  c.embedding.dimensions = 8;
  c.embedding.timeout_ms = 2000;
  Reopen(c);
  Store("k", "kubernetes cluster upgrade notes");  // stored even without a vector
  auto r = engine_->memory().Search(me_, {.query = "kubernetes"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->results.size(), 1u);
  EXPECT_EQ(r->degraded, "embedder_unavailable");
  EXPECT_FALSE(r->results[0].vector_score.has_value());
  EXPECT_DOUBLE_EQ(r->results[0].score, r->results[0].keyword_score);
  auto re = engine_->admin().Reindex(me_);
  ASSERT_TRUE(re.ok()) << re.status().ToString();
  EXPECT_EQ(re->embedded, 0);
  EXPECT_EQ(re->failed, 1);
}

TEST_P(HybridTest, SwitchingEmbedderReindexesAtOpenAndNeverMixesSignatures) {
  Store("k", "a note about the deployment pipeline");
  Config small;
  small.embedding.dimensions = 64;  // a new signature: hash-v2-64
  Reopen(small);
  auto found = engine_->memory().Search(me_, {.query = "deployment pipeline", .min_score = 0.0});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->results.size(), GetParam() == "in_memory" ? 0u : 1u);
  if (GetParam() != "in_memory") {
    // The open embedded the entry again in hash-v2-64 (its 384-d vector is
    // never compared with a 64-d query): the vector side has it, and
    // reindex finds nothing left to embed.
    EXPECT_TRUE(found->results[0].vector_score.has_value());
    auto re = engine_->admin().Reindex(me_);
    ASSERT_TRUE(re.ok()) << re.status().ToString();
    EXPECT_EQ(re->signature, "hash-v2-64");
    EXPECT_EQ(re->embedded, 0);
    EXPECT_EQ(re->indexed, 1);
  }
}

TEST_P(HybridTest, ForgetRemovesTheVectorSideToo) {
  Store("gone", "ephemeral fact about llamas", std::vector<float>{0, 1, 0});
  ASSERT_TRUE(engine_->memory().Forget(me_, {.key = "gone"}).ok());
  auto r = engine_->memory().Search(
      me_, {.query = "llamas", .min_score = 0.0, .embedding = std::vector<float>{0, 1, 0}});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->results.empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, HybridTest, ::testing::Values("sqlite", "in_memory", "markdown"),
                         [](const auto& info) { return info.param; });

TEST(HybridIndexFile, CorruptIndexFileIsRebuiltFromStorage) {
  TempDir dir;
  Principal me;
  std::vector<std::string> keys;
  {
    auto e = Engine::Open({.workspace = dir.Sub("ws")});
    ASSERT_TRUE(e.ok());
    for (int i = 0; i < 50; ++i) {
      ASSERT_TRUE((*e)->memory()
                      .Store(me, {.key = "k" + std::to_string(i),
                                  .content = "note number " + std::to_string(i) + " about kites"})
                      .ok());
    }
  }  // closing saves the index file
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(dir.Sub("ws/index"))) {
    files.push_back(f.path());
  }
  ASSERT_FALSE(files.empty()) << "the index was not saved";
  for (const auto& f : files) {
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(static_cast<std::streamoff>(std::filesystem::file_size(f) / 2));
    io.put('\x5a');
    io.put('\xa5');
  }
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto r = (*e)->memory().Search(me, {.query = "kites", .max_results = 100, .min_score = 0.0});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->results.size(), 50u);
  for (const SearchHit& h : r->results) EXPECT_TRUE(h.vector_score.has_value()) << h.key;
}

}  // namespace
}  // namespace mnemo

namespace mnemo {
namespace {

TEST(HybridImport, ImportLinesMayCarryTheirOwnVectors) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok());
  Principal me;
  std::stringstream bad(
      "{\"key\":\"a\",\"content\":\"first\",\"embedding\":[1,0,0]}\n"
      "{\"key\":\"b\",\"content\":\"second\",\"embedding\":[0,\"x\",0]}\n");
  auto refused = (*e)->admin().ImportJsonl(me, bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("line 2"), std::string::npos);
  std::stringstream good(
      "{\"key\":\"a\",\"content\":\"first\",\"embedding\":[1,0,0]}\n"
      "{\"key\":\"b\",\"content\":\"second\",\"embedding\":[0,1,0]}\n");
  ASSERT_TRUE((*e)->admin().ImportJsonl(me, good).ok());
  auto r = (*e)->memory().Search(
      me, {.query = "?", .min_score = 0.0, .embedding = std::vector<float>{0.1f, 1, 0}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].key, "b");
}

}  // namespace
}  // namespace mnemo

namespace mnemo {
namespace {

// A few changes are replayed from the change log at the next open instead of
// rewriting the whole index file at every close.
TEST(HybridIndexFile, FewChangesReplayInsteadOfRewritingTheFile) {
  testing::TempDir dir;
  Principal me;
  auto open = [&] {
    auto e = Engine::Open({.workspace = dir.Sub("ws")});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return std::move(*e);
  };
  {
    auto e = open();
    for (int i = 0; i < 20; ++i) {
      ASSERT_TRUE(
          e->memory()
              .Store(me, {.key = "k" + std::to_string(i),
                          .content = "kites " + std::to_string(i),
                          .embedding = std::vector<float>{1, 0.01f * static_cast<float>(i), 0}})
              .ok());
    }
  }
  std::map<std::filesystem::path, std::filesystem::file_time_type> saved;
  for (const auto& f : std::filesystem::directory_iterator(dir.Sub("ws/index"))) {
    saved[f.path()] = std::filesystem::last_write_time(f.path());
  }
  ASSERT_EQ(saved.size(), 2u);  // hash-v2-384 and external:3
  {
    auto e = open();
    ASSERT_TRUE(e->memory()
                    .Store(me, {.key = "late",
                                .content = "a late note about balloons",
                                .embedding = std::vector<float>{0, 1, 0}})
                    .ok());
  }
  for (const auto& [path, time] : saved) {
    EXPECT_EQ(std::filesystem::last_write_time(path), time) << path << " was rewritten";
  }
  // "?" has no terms, so only the vector index can find the late entry.
  auto e = open();
  auto r = e->memory().Search(
      me, {.query = "?", .min_score = 0.0, .embedding = std::vector<float>{0, 1, 0}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].key, "late") << "the late vector was not replayed into the index";
}

}  // namespace
}  // namespace mnemo

namespace mnemo {
namespace {

// Two engines on one workspace (as two processes would be): a vector stored
// through one reaches the other's in-memory index through the change log.
TEST(HybridSharedWorkspace, EachEngineSeesTheOthersVectors) {
  testing::TempDir dir;
  Principal me;
  auto a = Engine::Open({.workspace = dir.Sub("ws")});
  auto b = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(a.ok() && b.ok());
  const std::vector<float> up = {0, 1, 0};
  ASSERT_TRUE((*b)->memory().Store(me, {.key = "first", .content = "first", .embedding = up}).ok());
  auto before = (*b)->memory().Search(me, {.query = "?", .min_score = 0.0, .embedding = up});
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->results.size(), 1u);
  ASSERT_TRUE(
      (*a)->memory().Store(me, {.key = "second", .content = "second", .embedding = up}).ok());
  ASSERT_TRUE((*a)->memory().Forget(me, {.key = "first"}).ok());
  auto after = (*b)->memory().Search(me, {.query = "?", .min_score = 0.0, .embedding = up});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->results.size(), 1u);
  EXPECT_EQ(after->results[0].key, "second");
}

}  // namespace
}  // namespace mnemo

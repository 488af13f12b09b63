#include "embed/embedding_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "embed/local_embeddings_server.h"
#include "embed/openai_embedder.h"

namespace mnemo::embed {
namespace {

using ::testing::ElementsAre;
using testing::LocalEmbeddingsServer;

// Counts what reaches it; vector = [length of text, 1, 0, 0].
class CountingEmbedder final : public Embedder {
 public:
  explicit CountingEmbedder(std::string signature = "count-v1-4")
      : signature_(std::move(signature)) {}
  const std::string& signature() const override { return signature_; }
  int dimensions() const override { return 4; }
  Result<std::vector<Vector>> Embed(std::span<const std::string> texts) override {
    if (fail) return Unavailable("down");
    calls.emplace_back(texts.begin(), texts.end());
    std::vector<Vector> out;
    for (const auto& text : texts) {
      out.push_back(text.empty() ? Vector(4, 0.0f) : Vector{float(text.size()), 1, 0, 0});
    }
    return out;
  }
  std::vector<std::vector<std::string>> calls;
  bool fail = false;

 private:
  std::string signature_;
};

TEST(EmbeddingCacheKey, CombinesTextHashAndSignature) {
  const std::string key = EmbeddingCacheKey("abc", "hash-v1-384");
  EXPECT_EQ(key, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad:hash-v1-384");
  EXPECT_NE(EmbeddingCacheKey("abc", "hash-v1-256"), key);
  EXPECT_NE(EmbeddingCacheKey("abd", "hash-v1-384"), key);
}

TEST(LruEmbeddingCache, GetReturnsWhatWasPut) {
  LruEmbeddingCache cache;
  EXPECT_EQ(cache.Get("k"), std::nullopt);
  cache.Put("k", Vector{1, 2});
  EXPECT_EQ(cache.Get("k"), (Vector{1, 2}));
  cache.Put("k", Vector{3});
  EXPECT_EQ(cache.Get("k"), (Vector{3}));
  const auto stats = cache.stats();
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.entries, 1u);
}

TEST(LruEmbeddingCache, EvictsLeastRecentlyUsedWithinBudget) {
  const Vector v(100, 0.5f);  // 400 bytes + key + overhead, < 600
  LruEmbeddingCache cache(3 * 600);
  cache.Put("a", v);
  cache.Put("b", v);
  cache.Put("c", v);
  ASSERT_TRUE(cache.Get("a").has_value());  // a is now the most recent
  cache.Put("d", v);                        // evicts b
  EXPECT_TRUE(cache.Get("a").has_value());
  EXPECT_FALSE(cache.Get("b").has_value());
  EXPECT_TRUE(cache.Get("c").has_value());
  EXPECT_TRUE(cache.Get("d").has_value());
  EXPECT_LE(cache.stats().bytes, 3u * 600u);
  EXPECT_EQ(cache.stats().entries, 3u);
}

TEST(LruEmbeddingCache, KeepsNothingLargerThanTheBudget) {
  LruEmbeddingCache cache(1000);
  cache.Put("small", Vector(10, 1.0f));
  cache.Put("huge", Vector(1000, 1.0f));
  EXPECT_FALSE(cache.Get("huge").has_value());
  EXPECT_TRUE(cache.Get("small").has_value());
}

TEST(LruEmbeddingCache, SafeFromManyThreads) {
  LruEmbeddingCache cache(50 * 1024);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        const std::string key = std::to_string((i * 7 + t) % 300);
        if (auto v = cache.Get(key)) {
          EXPECT_EQ(v->size(), 16u);
        } else {
          cache.Put(key, Vector(16, float(i)));
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_LE(cache.stats().bytes, 50u * 1024u);
}

TEST(CachingEmbedder, SendsOnlyMissesOnceEachAndKeepsOrder) {
  auto inner = std::make_unique<CountingEmbedder>();
  CountingEmbedder* counting = inner.get();
  CachingEmbedder embedder(std::move(inner), std::make_shared<LruEmbeddingCache>());
  EXPECT_EQ(embedder.signature(), "count-v1-4");
  EXPECT_EQ(embedder.dimensions(), 4);

  auto first = embedder.Embed(std::vector<std::string>{"aa", "bbb", "aa"});
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(counting->calls.size(), 1u);
  EXPECT_THAT(counting->calls[0], ElementsAre("aa", "bbb"));

  auto second = embedder.Embed(std::vector<std::string>{"c", "bbb", "aa", "dddd"});
  ASSERT_TRUE(second.ok());
  ASSERT_EQ(counting->calls.size(), 2u);
  EXPECT_THAT(counting->calls[1], ElementsAre("c", "dddd"));
  std::vector<float> firsts;
  for (const auto& v : *second) firsts.push_back(v[0]);
  EXPECT_THAT(firsts, ElementsAre(1, 3, 2, 4));

  ASSERT_TRUE(embedder.Embed(std::vector<std::string>{"dddd", "c"}).ok());
  EXPECT_EQ(counting->calls.size(), 2u);  // all hits
}

TEST(CachingEmbedder, DoesNotCacheZeroVectorsOrFailures) {
  auto inner = std::make_unique<CountingEmbedder>();
  CountingEmbedder* counting = inner.get();
  auto cache = std::make_shared<LruEmbeddingCache>();
  CachingEmbedder embedder(std::move(inner), cache);
  ASSERT_TRUE(embedder.Embed(std::vector<std::string>{""}).ok());
  EXPECT_EQ(cache->stats().entries, 0u);

  counting->fail = true;
  auto failed = embedder.Embed(std::vector<std::string>{"x"});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(cache->stats().entries, 0u);
}

TEST(CachingEmbedder, SignaturesDoNotShareEntries) {
  auto cache = std::make_shared<LruEmbeddingCache>();
  auto inner_a = std::make_unique<CountingEmbedder>("space-a");
  auto inner_b = std::make_unique<CountingEmbedder>("space-b");
  CountingEmbedder* b = inner_b.get();
  CachingEmbedder embed_a(std::move(inner_a), cache);
  CachingEmbedder embed_b(std::move(inner_b), cache);
  ASSERT_TRUE(embed_a.Embed(std::vector<std::string>{"same text"}).ok());
  ASSERT_TRUE(embed_b.Embed(std::vector<std::string>{"same text"}).ok());
  EXPECT_EQ(b->calls.size(), 1u);
}

TEST(CachingEmbedder, IgnoresCachedVectorsOfTheWrongLength) {
  auto cache = std::make_shared<LruEmbeddingCache>();
  auto inner = std::make_unique<CountingEmbedder>();
  CountingEmbedder* counting = inner.get();
  cache->Put(EmbeddingCacheKey("abc", "count-v1-4"), Vector{1, 2});
  CachingEmbedder embedder(std::move(inner), cache);
  auto vectors = embedder.Embed(std::vector<std::string>{"abc"});
  ASSERT_TRUE(vectors.ok());
  EXPECT_EQ((*vectors)[0].size(), 4u);
  EXPECT_EQ(counting->calls.size(), 1u);
}

TEST(CachingEmbedder, CacheHitAvoidsASecondRequest) {
  LocalEmbeddingsServer server(8);
  auto openai = OpenAiEmbedder::Create(
      {.base_url = server.base_url(), .model = "m", .dimensions = 8}, internal::NewHttpClient());
  ASSERT_TRUE(openai.ok());
  CachingEmbedder embedder(std::move(openai).value(), std::make_shared<LruEmbeddingCache>());
  auto first = embedder.Embed(std::vector<std::string>{"t1", "t2"});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  auto second = embedder.Embed(std::vector<std::string>{"t2", "t1"});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(server.request_count(), 1u);
  EXPECT_EQ((*second)[0], (*first)[1]);
  EXPECT_EQ((*second)[1], (*first)[0]);
}

}  // namespace
}  // namespace mnemo::embed

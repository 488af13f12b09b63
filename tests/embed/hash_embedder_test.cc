#include "embed/hash_embedder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

namespace mnemo::embed {
namespace {

Vector EmbedOne(const HashEmbedder& embedder, std::string_view text) {
  Vector v(static_cast<size_t>(embedder.dimensions()));
  embedder.EmbedInto(text, v);
  return v;
}

double Cosine(const HashEmbedder& embedder, std::string_view a, std::string_view b) {
  return Dot(EmbedOne(embedder, a), EmbedOne(embedder, b));
}

TEST(HashEmbedder, SignatureNamesVersionAndDimensions) {
  EXPECT_EQ(HashEmbedder().signature(), "hash-v2-384");
  EXPECT_EQ(HashEmbedder().dimensions(), 384);
  EXPECT_EQ(HashEmbedder(64).signature(), "hash-v2-64");
  EXPECT_EQ(HashEmbedder(64).dimensions(), 64);
}

TEST(HashEmbedder, VectorsAreUnitLength) {
  const HashEmbedder embedder;
  for (std::string_view text :
       {"a", "Deploy the build to staging.", "send_email(to=sarah@example.com)",
        "用户住在北京，喜欢喝茶", "بالكلمات المفتاحية للبحث", "x x x x x x x x"}) {
    const Vector v = EmbedOne(embedder, text);
    EXPECT_NEAR(Dot(v, v), 1.0, 1e-6) << text;
  }
}

TEST(HashEmbedder, IsDeterministicAcrossInstancesAndCalls) {
  const std::string text = "The user prefers dark mode for the terminal and VS Code.";
  const HashEmbedder a;
  const HashEmbedder b;
  EXPECT_EQ(EmbedOne(a, text), EmbedOne(b, text));
  EXPECT_EQ(EmbedOne(a, text), EmbedOne(a, text));
}

// The exact output for a fixed input: an algorithm change must fail here
// (and bump HashEmbedder::kVersion, since stored vectors become stale).
TEST(HashEmbedder, PinnedComponents) {
  const HashEmbedder embedder;
  auto nonzero = [](const Vector& v) {
    return std::count_if(v.begin(), v.end(), [](float x) { return x != 0; });
  };
  // Tokens deploy build deploy build to staging_server stage server: repeated
  // tokens (tf 2), bigrams, a stop word, an identifier and its parts.
  const Vector v = EmbedOne(embedder, "Deploy build, deploy build to staging_server");
  EXPECT_EQ(nonzero(v), 34);
  EXPECT_NEAR(v[4], 0.207774252, 1e-7);      // a tf-2 feature: (1 + ln 2) * 0.1227
  EXPECT_NEAR(v[27], -0.122714818, 1e-7);    // a tf-1 token or trigram
  EXPECT_NEAR(v[111], 0.0850594342, 1e-7);   // a collision: 0.2078 - 0.1227
  EXPECT_NEAR(v[201], -0.0122714825, 1e-8);  // the stop word "to" (weight 0.1)
  EXPECT_NEAR(v[119], 0.0613574088, 1e-7);   // a bigram (weight 0.5)
  EXPECT_NEAR(v[202], 0.103887126, 1e-7);    // a tf-2 bigram
  EXPECT_EQ(v[0], 0.0f);

  const Vector zh = EmbedOne(embedder, "用户住在北京");
  EXPECT_EQ(nonzero(zh), 17);
  EXPECT_NEAR(zh[18], -0.267261237, 1e-7);
  EXPECT_NEAR(zh[39], 0.133630618, 1e-7);
  EXPECT_NEAR(zh[367], -0.133630618, 1e-7);
}

TEST(HashEmbedder, TextWithoutTokensGivesZeroVector) {
  const HashEmbedder embedder;
  for (std::string_view text : {"", "   ", "... !!! ---"}) {
    Vector v(384, 1.0f);
    EXPECT_FALSE(embedder.EmbedInto(text, v)) << '"' << text << '"';
    EXPECT_EQ(v, Vector(384, 0.0f)) << '"' << text << '"';
  }
}

TEST(HashEmbedder, EmbedMatchesEmbedIntoInOrder) {
  HashEmbedder embedder(32);
  const std::vector<std::string> texts = {"first text", "", "second text"};
  auto vectors = embedder.Embed(texts);
  ASSERT_TRUE(vectors.ok());
  ASSERT_EQ(vectors->size(), 3u);
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ((*vectors)[i], EmbedOne(embedder, texts[i])) << i;
  }
}

TEST(HashEmbedder, SimilarTextsAreCloserThanUnrelatedOnes) {
  const HashEmbedder embedder;
  const std::string a = "The deploy script pushes the build to the staging server";
  const std::string b = "Deployment scripts push builds to staging servers";
  const std::string c = "My cat likes sleeping on the warm windowsill in the afternoon";
  EXPECT_GT(Cosine(embedder, a, b), 0.6);
  EXPECT_LT(Cosine(embedder, a, c), 0.15);
  EXPECT_GT(Cosine(embedder, a, b), Cosine(embedder, a, c) + 0.4);
}

TEST(HashEmbedder, WordOrderMattersThroughBigrams) {
  const HashEmbedder embedder;
  const double same_order = Cosine(embedder, "alice emailed bob", "alice emailed bob today");
  const double swapped = Cosine(embedder, "alice emailed bob", "bob emailed alice today");
  EXPECT_GT(same_order, swapped);
  EXPECT_LT(swapped, 0.999);
}

TEST(HashEmbedder, TrigramsMatchPartialWords) {
  const HashEmbedder embedder;
  // No shared token; shared spelling.
  EXPECT_GT(Cosine(embedder, "kubernetes", "kubernetis"), 0.5);
  EXPECT_LT(Cosine(embedder, "kubernetes", "postgresql"), 0.1);
}

TEST(HashEmbedder, ChineseTextEmbedsAndCompares) {
  const HashEmbedder embedder;
  const std::string a = "用户住在北京，喜欢喝绿茶";
  const std::string b = "用户住在北京";
  const std::string c = "今天下午的会议取消了";
  EXPECT_NEAR(Dot(EmbedOne(embedder, a), EmbedOne(embedder, a)), 1.0, 1e-6);
  EXPECT_GT(Cosine(embedder, a, b), Cosine(embedder, a, c) + 0.3);
}

TEST(HashEmbedder, ArabicTextEmbedsAndCompares) {
  const HashEmbedder embedder;
  const std::string a = "نبحث بالكلمات المفتاحية في الوثائق";
  const std::string b = "الكلمات المفتاحية مهمة";
  const std::string c = "الطقس جميل اليوم في المدينة";
  EXPECT_NEAR(Dot(EmbedOne(embedder, a), EmbedOne(embedder, a)), 1.0, 1e-6);
  EXPECT_GT(Cosine(embedder, a, b), Cosine(embedder, a, c) + 0.4);
}

TEST(HashEmbedder, InvalidUtf8DoesNotFail) {
  const HashEmbedder embedder;
  const Vector v = EmbedOne(embedder, "abc \xff\xfe def \xc3");
  EXPECT_NEAR(Dot(v, v), 1.0, 1e-6);
}

TEST(HashEmbedder, RepeatsWeighSubLinearly) {
  const HashEmbedder embedder;
  // "beta" 8 times vs once: with linear tf the repeated text would be
  // dominated by beta; with 1 + ln(tf) alpha keeps a real share.
  const double once = Cosine(embedder, "alpha beta", "alpha");
  const double repeated =
      Cosine(embedder, "alpha beta beta beta beta beta beta beta beta", "alpha");
  EXPECT_LT(repeated, once);
  EXPECT_GT(repeated, 0.25);
}

TEST(HashEmbedder, SafeFromManyThreads) {
  const HashEmbedder embedder;
  const std::string text = "concurrent embedding of the same text 并发";
  const Vector expected = EmbedOne(embedder, text);
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 200; ++i) {
        if (EmbedOne(embedder, text) != expected) ++mismatches;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

}  // namespace
}  // namespace mnemo::embed

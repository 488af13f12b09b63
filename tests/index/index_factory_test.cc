#include "index/index_factory.h"

#include <gtest/gtest.h>

#include "core/components.h"
#include "index/test_vectors.h"

namespace mnemo::index {
namespace {

TEST(IndexOptions, FromConfigValidatesEveryKey) {
  Config::Index config;
  auto options = IndexOptionsFromConfig(config);
  ASSERT_TRUE(options.ok());
  EXPECT_EQ(options->kind, KindChoice::kAuto);
  EXPECT_EQ(options->hnsw_threshold, 20000u);
  EXPECT_EQ(options->hnsw.m, 16u);
  EXPECT_EQ(options->hnsw.ef_construction, 100u);
  EXPECT_EQ(options->hnsw.ef_search, 64u);
  config.kind = "faiss";
  EXPECT_EQ(IndexOptionsFromConfig(config).status().field(), "index.kind");
  config = {};
  config.m = 1;
  EXPECT_EQ(IndexOptionsFromConfig(config).status().field(), "index.m");
  config = {};
  config.ef_search = 0;
  EXPECT_EQ(IndexOptionsFromConfig(config).status().field(), "index.ef_search");
  config = {};
  config.hnsw_threshold = -1;
  EXPECT_EQ(IndexOptionsFromConfig(config).status().field(), "index.hnsw_threshold");
}

TEST(ChooseKind, AutoSwitchesAtTheThresholdWithHysteresis) {
  IndexOptions options;
  options.hnsw_threshold = 1000;
  EXPECT_EQ(ChooseKind(options, 1000), IndexKind::kFlat);
  EXPECT_EQ(ChooseKind(options, 1001), IndexKind::kHnsw);
  EXPECT_EQ(ChooseKind(options, 1001, IndexKind::kFlat), IndexKind::kHnsw);
  EXPECT_EQ(ChooseKind(options, 900, IndexKind::kHnsw), IndexKind::kHnsw);
  EXPECT_EQ(ChooseKind(options, 499, IndexKind::kHnsw), IndexKind::kFlat);
  options.kind = KindChoice::kFlat;
  EXPECT_EQ(ChooseKind(options, 1000000), IndexKind::kFlat);
  options.kind = KindChoice::kHnsw;
  EXPECT_EQ(ChooseKind(options, 0), IndexKind::kHnsw);
}

TEST(IndexFactory, AFlatIndexPastTheThresholdIsRebuiltAsHnsw) {
  IndexOptions options;
  options.hnsw_threshold = 100;
  const size_t dims = 16;
  auto flat = MakeIndex(IndexKind::kFlat, dims, options);
  ASSERT_TRUE(flat.ok());
  std::vector<float> data = testing::ClusteredVectors(150, dims, 5, 2);
  for (size_t i = 0; i < 100; ++i)
    ASSERT_TRUE((*flat)->Upsert(i, testing::Row(data, dims, i)).ok());
  EXPECT_EQ(NeedsMaintenance(**flat, options), Maintenance::kNone);
  for (size_t i = 100; i < 150; ++i)
    ASSERT_TRUE((*flat)->Upsert(i, testing::Row(data, dims, i)).ok());
  EXPECT_EQ(NeedsMaintenance(**flat, options), Maintenance::kSwitchKind);
  auto hnsw = RebuildAs(**flat, ChooseKind(options, (*flat)->size(), IndexKind::kFlat), options);
  ASSERT_TRUE(hnsw.ok());
  EXPECT_EQ((*hnsw)->kind(), IndexKind::kHnsw);
  EXPECT_EQ((*hnsw)->size(), 150u);
  EXPECT_EQ(NeedsMaintenance(**hnsw, options), Maintenance::kNone);
  for (size_t i = 0; i < 150; i += 10) {
    auto r = (*hnsw)->Search(testing::Row(data, dims, i), 1);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ((*r)[0].id, i);
  }
}

}  // namespace
}  // namespace mnemo::index

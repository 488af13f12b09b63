#include "storage/sqlite/fts/entry_tokens.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/rules/entry_rules.h"
#include "text/match_util.h"

namespace mnemo::storage::internal {
namespace {

using text::testing::OwnedToken;

std::vector<OwnedToken> Direct(std::string_view text, int64_t* length) {
  std::vector<OwnedToken> out;
  *length = IndexColumn(text, [&](const text::TokenView& t) { out.emplace_back(t); });
  return out;
}

std::vector<OwnedToken> Replayed(const TokenizedTexts& texts, size_t i) {
  std::vector<OwnedToken> out;
  texts.Replay(i, [&](const text::TokenView& t) {
    out.emplace_back(t);
    return true;
  });
  return out;
}

// Varied texts (English, identifiers, Chinese, Arabic, empty) so a token
// list of one write cannot pass for another's.
std::vector<EntryWrite> Writes(size_t n) {
  const char* samples[] = {"the quick brown fox jumps", "deploy.py runs at 03:00 on host-7",
                           "服务器上的数据库每天凌晨备份", "تسترجع الذكريات بالكلمات المفتاحية",
                           ""};
  std::vector<EntryWrite> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back({.key = "key_" + std::to_string(i),
                   .content = std::string(samples[i % 5]) + " item" + std::to_string(i)});
  }
  return out;
}

TEST(EntryTokenPipeline, EveryChunkHoldsItsWritesTokensInOrder) {
  // More chunks than slots, the last one partial: the helper reuses slots.
  const size_t n = EntryTokenPipeline::kChunk * (EntryTokenPipeline::kSlots + 2) + 77;
  const std::vector<EntryWrite> writes = Writes(n);
  EntryTokenPipeline pipeline(writes);
  ASSERT_EQ(pipeline.chunks(), EntryTokenPipeline::kSlots + 3);
  size_t seen = 0;
  for (size_t c = 0; c < pipeline.chunks(); ++c) {
    const TokenizedTexts& texts = pipeline.Chunk(c);
    const size_t first = c * EntryTokenPipeline::kChunk;
    for (size_t i = first; i < std::min(n, first + EntryTokenPipeline::kChunk); ++i, ++seen) {
      const size_t key = 2 * (i - first);
      for (const auto& [index, text] :
           {std::pair{key, writes[i].key}, std::pair{key + 1, writes[i].content}}) {
        ASSERT_EQ(texts.text(index), text) << i;
        int64_t length = 0;
        const std::vector<OwnedToken> direct = Direct(text, &length);
        ASSERT_EQ(Replayed(texts, index), direct) << i;
        ASSERT_EQ(texts.length(index), length) << i;
      }
    }
    pipeline.Release(c);
  }
  EXPECT_EQ(seen, n);
}

TEST(EntryTokenPipeline, StopsItsHelperWhenTheWriterGivesUpEarly) {
  const std::vector<EntryWrite> writes = Writes(EntryTokenPipeline::kChunk * 6);
  EntryTokenPipeline pipeline(writes);
  EXPECT_EQ(pipeline.Chunk(0).text(0), "key_0");
  // Destroyed here with five chunks never asked for: must not hang.
}

TEST(EntryTokenPipeline, AnEmptyBatchHasNoChunks) {
  EntryTokenPipeline pipeline(std::span<const EntryWrite>{});
  EXPECT_EQ(pipeline.chunks(), 0u);
}

TEST(TokenizedTexts, ReplayStopsWhenTheSinkSaysSo) {
  TokenizedTexts texts;
  const size_t i = texts.Add("one two three four");
  int calls = 0;
  EXPECT_FALSE(texts.Replay(i, [&](const text::TokenView&) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(texts.length(i), 4);
}

}  // namespace
}  // namespace mnemo::storage::internal

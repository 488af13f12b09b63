#include "index/checksum.h"

#include <gtest/gtest.h>

#include <string>

namespace mnemo::index {
namespace {

// Reference digests from libxxhash 0.8.1 (XXH64, seed 0).
TEST(Xxh64, MatchesTheReferenceImplementation) {
  EXPECT_EQ(Xxh64Of(""), 0xef46db3751d8e999ULL);
  EXPECT_EQ(Xxh64Of("a"), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(Xxh64Of("abc"), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(Xxh64Of("Nobody inspects the spammish repetition"), 0xfbcea83c8a378bf1ULL);
  std::string bytes;
  for (int r = 0; r < 4; ++r) {
    for (int i = 0; i < 256; ++i) bytes += static_cast<char>(i);
  }
  bytes += "xyz";
  EXPECT_EQ(Xxh64Of(bytes), 0xe146cb31b65bc21aULL);
}

TEST(Xxh64, StreamingEqualsOneShotForEverySplit) {
  std::string data;
  for (int i = 0; i < 200; ++i) data += static_cast<char>(i * 7 + 3);
  const uint64_t whole = Xxh64Of(data);
  for (size_t a = 0; a <= data.size(); a += 13) {
    for (size_t b = a; b <= data.size(); b += 29) {
      Xxh64 h;
      h.Update(data.data(), a);
      h.Update(data.data() + a, b - a);
      h.Update(data.data() + b, data.size() - b);
      ASSERT_EQ(h.Digest(), whole) << a << " " << b;
    }
  }
}

}  // namespace
}  // namespace mnemo::index

#include "index/checksum.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace mnemo::index {
namespace {

std::string Pattern(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>((i * 31 + 7) & 0xff);
  return s;
}

// Index files on disk carry these checksums (docs/storage.md, seed 0, the only
// seed mnemo uses). Pinned from the hand-written XXH64 that wrote every index
// file before libxxhash replaced it, so a file written then still verifies:
// inputs below, at and past one 32-byte stripe, and several stripes.
TEST(Xxh64, KeepsTheValuesIndexFilesWereWrittenWith) {
  EXPECT_EQ(Xxh64Of(""), 0xef46db3751d8e999ULL);
  EXPECT_EQ(Xxh64Of("a"), 0xd24ec4f1a98c6e5bULL);
  EXPECT_EQ(Xxh64Of("abc"), 0x44bc2cf5ad770999ULL);
  EXPECT_EQ(Xxh64Of("Nobody inspects the spammish repetition"), 0xfbcea83c8a378bf1ULL);
  EXPECT_EQ(Xxh64Of(Pattern(31)), 0x4a74f3a1a39ad4a1ULL);
  EXPECT_EQ(Xxh64Of(Pattern(32)), 0x8d57d6a4671cc43dULL);
  EXPECT_EQ(Xxh64Of(Pattern(33)), 0x62c9fd21ed857664ULL);
  EXPECT_EQ(Xxh64Of(Pattern(63)), 0x5c320a0d2707057fULL);
  EXPECT_EQ(Xxh64Of(Pattern(64)), 0x7bbabbc45729d17eULL);
  EXPECT_EQ(Xxh64Of(Pattern(65)), 0xf3980c34bae65dc1ULL);
  EXPECT_EQ(Xxh64Of(Pattern(100)), 0xefa0ad2d3e70c151ULL);
  EXPECT_EQ(Xxh64Of(Pattern(4096)), 0xe21174be82dc78d9ULL);
  EXPECT_EQ(
      Xxh64Of("tags \xc3\xa9t\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 utf-8 text that runs past "
              "thirty-two bytes"),
      0x4411b93eefb56bc6ULL);
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

TEST(Xxh64, DigestDoesNotChangeTheState) {
  const std::string data = Pattern(100);
  Xxh64 h;
  h.Update(data.data(), 40);
  const uint64_t first = h.Digest();
  EXPECT_EQ(h.Digest(), first);
  h.Update(data.data() + 40, 60);
  EXPECT_EQ(h.Digest(), Xxh64Of(data));
}

}  // namespace
}  // namespace mnemo::index

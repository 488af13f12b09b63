#include "index/checksum.h"

#include <bit>
#include <cstring>

namespace mnemo::index {
namespace {

static_assert(std::endian::native == std::endian::little, "index files are little-endian");

constexpr uint64_t kP1 = 11400714785074694791ULL;
constexpr uint64_t kP2 = 14029467366897019727ULL;
constexpr uint64_t kP3 = 1609587929392839161ULL;
constexpr uint64_t kP4 = 9650029242287828579ULL;
constexpr uint64_t kP5 = 2870177450012600261ULL;

uint64_t Read64(const unsigned char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t Read32(const unsigned char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint64_t Round(uint64_t acc, uint64_t input) {
  acc += input * kP2;
  acc = std::rotl(acc, 31);
  return acc * kP1;
}
uint64_t MergeRound(uint64_t acc, uint64_t val) {
  acc ^= Round(0, val);
  return acc * kP1 + kP4;
}

}  // namespace

Xxh64::Xxh64() : v_{kP1 + kP2, kP2, 0, 0 - kP1} {}

void Xxh64::Update(const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  total_ += n;
  if (buf_len_ + n < 32) {
    if (n) std::memcpy(buf_ + buf_len_, p, n);
    buf_len_ += n;
    return;
  }
  if (buf_len_ > 0) {
    const size_t fill = 32 - buf_len_;
    std::memcpy(buf_ + buf_len_, p, fill);
    for (int i = 0; i < 4; ++i) v_[i] = Round(v_[i], Read64(buf_ + 8 * i));
    p += fill;
    n -= fill;
    buf_len_ = 0;
  }
  uint64_t v0 = v_[0], v1 = v_[1], v2 = v_[2], v3 = v_[3];
  for (; n >= 32; p += 32, n -= 32) {
    v0 = Round(v0, Read64(p));
    v1 = Round(v1, Read64(p + 8));
    v2 = Round(v2, Read64(p + 16));
    v3 = Round(v3, Read64(p + 24));
  }
  v_[0] = v0, v_[1] = v1, v_[2] = v2, v_[3] = v3;
  if (n) std::memcpy(buf_, p, n);
  buf_len_ = n;
}

uint64_t Xxh64::Digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = std::rotl(v_[0], 1) + std::rotl(v_[1], 7) + std::rotl(v_[2], 12) + std::rotl(v_[3], 18);
    for (uint64_t v : v_) h = MergeRound(h, v);
  } else {
    h = v_[2] + kP5;  // v_[2] is the seed (0) until the first stripe
  }
  h += total_;
  const unsigned char* p = buf_;
  size_t n = buf_len_;
  for (; n >= 8; p += 8, n -= 8) {
    h ^= Round(0, Read64(p));
    h = std::rotl(h, 27) * kP1 + kP4;
  }
  if (n >= 4) {
    h ^= static_cast<uint64_t>(Read32(p)) * kP1;
    h = std::rotl(h, 23) * kP2 + kP3;
    p += 4;
    n -= 4;
  }
  for (; n > 0; ++p, --n) {
    h ^= (*p) * kP5;
    h = std::rotl(h, 11) * kP1;
  }
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

uint64_t Xxh64Of(std::string_view data) {
  Xxh64 h;
  h.Update(data.data(), data.size());
  return h.Digest();
}

}  // namespace mnemo::index

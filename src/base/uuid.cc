#include "base/uuid.h"

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <random>

#include <openssl/rand.h>

namespace mnemo::internal {

namespace {

std::mt19937_64 FreshRng() {
  std::random_device rd;
  std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
  return std::mt19937_64(seq);
}

std::string FormatUuidV4(uint64_t hi, uint64_t lo) {
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // variant 10
  char buf[37];
  std::snprintf(buf, sizeof buf, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFFFFFFFFFFULL));
  return buf;
}

// Moved in every child of a fork (the handler runs in the child only).
std::atomic<uint64_t> fork_generation{0};

uint64_t ForkGeneration() {
  static const bool kRegistered = [] {
    ::pthread_atfork(nullptr, nullptr, [] { fork_generation.fetch_add(1); });
    return true;
  }();
  (void)kRegistered;
  return fork_generation.load(std::memory_order_relaxed);
}

}  // namespace

std::string NewUuidV4() {
  // A forked child inherits the generator's state: reseeded in a child,
  // else parent and child hand out the same ids (two processes writing one
  // markdown folder or database would collide). A fork moves the process's
  // generation (ForkGeneration): no system call per id (getpid was, and an
  // import makes one id per entry).
  thread_local uint64_t seeded_in = ForkGeneration();
  thread_local std::mt19937_64 rng = FreshRng();
  if (const uint64_t now = ForkGeneration(); now != seeded_in) {
    seeded_in = now;
    rng = FreshRng();
  }
  const uint64_t hi = rng();
  const uint64_t lo = rng();
  return FormatUuidV4(hi, lo);
}

Result<std::string> NewSecureUuidV4() {
  unsigned char bytes[16];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    return Unavailable("the cryptographic random generator (OpenSSL RAND_bytes) failed");
  }
  uint64_t hi = 0;
  uint64_t lo = 0;
  for (int i = 0; i < 8; ++i) {
    hi = (hi << 8) | bytes[i];
    lo = (lo << 8) | bytes[8 + i];
  }
  return FormatUuidV4(hi, lo);
}

}  // namespace mnemo::internal

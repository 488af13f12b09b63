// XXH64 (xxHash, 64-bit, seed 0): the checksum of index files.
//
// Why not SHA-256 (src/base/sha256.h): the checksum guards against torn and
// corrupted files, not against an attacker (anyone who can edit the file can
// recompute any unkeyed digest), and a 1M x 384 index is ~1.7 GB. Measured
// on the 2-core dev machine (154 MB): OpenSSL SHA-256 1.8 GB/s, and that CPU
// has SHA-NI (CPUs without it are several times slower); this XXH64
// 14 GB/s, so verification costs far less than reading the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace mnemo::index {

// Streaming: Update any number of times, then Digest (which does not
// change the state). Equal to the one-shot XXH64 of the concatenation.
class Xxh64 {
 public:
  Xxh64();
  void Update(const void* data, size_t n);
  uint64_t Digest() const;

 private:
  uint64_t v_[4];
  unsigned char buf_[32];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

uint64_t Xxh64Of(std::string_view data);

}  // namespace mnemo::index

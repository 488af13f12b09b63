// XXH64 (xxHash, 64-bit, seed 0): the checksum of index files, computed by
// Debian's libxxhash (libxxhash-dev). The values are part of the index file
// format (docs/storage.md); tests/index/checksum_test.cc pins them.
//
// Why not SHA-256 (src/base/sha256.h): the checksum guards against torn and
// corrupted files, not against an attacker (anyone who can edit the file can
// recompute any unkeyed digest), and a 1M x 384 index is ~1.7 GB. Measured
// on the 2-core dev machine (154 MB): OpenSSL SHA-256 1.8 GB/s, and that CPU
// has SHA-NI (CPUs without it are several times slower); XXH64 14 GB/s, so
// verification costs far less than reading the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

struct XXH64_state_s;  // libxxhash's streaming state, opaque here

namespace mnemo::index {

// Streaming: Update any number of times, then Digest (which does not
// change the state). Equal to the one-shot XXH64 of the concatenation.
// Movable, not copyable; not thread-safe.
class Xxh64 {
 public:
  Xxh64();
  void Update(const void* data, size_t n);
  uint64_t Digest() const;

 private:
  struct FreeState {
    void operator()(XXH64_state_s* state) const;
  };
  std::unique_ptr<XXH64_state_s, FreeState> state_;
};

uint64_t Xxh64Of(std::string_view data);

}  // namespace mnemo::index

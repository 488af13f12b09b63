#include "index/checksum.h"

#include <xxhash.h>

#include <new>

namespace mnemo::index {

// The library's state stays opaque (its layout may change between versions
// of the shared library), so it lives on the heap.
void Xxh64::FreeState::operator()(XXH64_state_s* state) const { XXH64_freeState(state); }

Xxh64::Xxh64() : state_(XXH64_createState()) {
  if (state_ == nullptr) throw std::bad_alloc();
  XXH64_reset(state_.get(), 0);
}

void Xxh64::Update(const void* data, size_t n) { XXH64_update(state_.get(), data, n); }

uint64_t Xxh64::Digest() const { return XXH64_digest(state_.get()); }

uint64_t Xxh64Of(std::string_view data) { return XXH64(data.data(), data.size(), 0); }

}  // namespace mnemo::index

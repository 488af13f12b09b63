// Dense ids for distinct strings: the first one interned is 0, the next new
// one 1, and so on. Their bytes sit in one buffer, found by an
// open-addressing table of ids, about 12 bytes a string beside its bytes
// where a node-based map of strings costs 50–200 and an allocation each:
// the keyword statistics an import counts (postgres_bulk_write.cc, a quarter
// of its CPU with std::unordered_map) and those a node holds
// (pg_keyword_stats.h, 178 MB at 100k entries with a map).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::internal {

class StringIds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The id of `s`, the next one (size() before the call) when it is new.
  uint32_t Intern(std::string_view s);
  // The id of `s`, or kNone.
  uint32_t Find(std::string_view s) const;
  // The string of `id` (< size()).
  std::string_view at(uint32_t id) const {
    const uint32_t begin = id == 0 ? 0 : ends_[id - 1];
    return std::string_view(bytes_).substr(begin, ends_[id] - begin);
  }
  size_t size() const { return ends_.size(); }
  // The table at the size its strings need, and no spare capacity.
  void ShrinkToFit();

 private:
  struct Slot {
    uint32_t hash = 0;  // the low bits of the string's hash
    uint32_t id = kNone;
  };
  // The slot holding `s`, or the free one where it would go.
  size_t SlotOf(std::string_view s, uint64_t hash) const;
  // The table at `slots` (a power of two) with every id placed anew.
  void Rehash(size_t slots);

  std::vector<Slot> slots_;  // a power of two, at most half full
  std::string bytes_;
  std::vector<uint32_t> ends_;  // per id: where its bytes end
};

}  // namespace mnemo::internal

#include "base/string_ids.h"

#include <algorithm>
#include <functional>

namespace mnemo::internal {

size_t StringIds::SlotOf(std::string_view s, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  const auto low = static_cast<uint32_t>(hash);
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == kNone || (slot.hash == low && at(slot.id) == s)) return i;
  }
}

uint32_t StringIds::Intern(std::string_view s) {
  if ((ends_.size() + 1) * 2 > slots_.size()) Rehash(std::max<size_t>(1024, slots_.size() * 2));
  const uint64_t hash = std::hash<std::string_view>{}(s);
  Slot& slot = slots_[SlotOf(s, hash)];
  if (slot.id != kNone) return slot.id;
  bytes_ += s;
  ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  slot = {.hash = static_cast<uint32_t>(hash), .id = static_cast<uint32_t>(ends_.size() - 1)};
  return slot.id;
}

uint32_t StringIds::Find(std::string_view s) const {
  if (slots_.empty()) return kNone;
  return slots_[SlotOf(s, std::hash<std::string_view>{}(s))].id;
}

void StringIds::ShrinkToFit() {
  size_t slots = 2;
  while (slots < 2 * ends_.size()) slots *= 2;
  if (slots < slots_.size()) Rehash(slots);
  slots_.shrink_to_fit();
  bytes_.shrink_to_fit();
  ends_.shrink_to_fit();
}

void StringIds::Rehash(size_t slots) {
  slots_.assign(slots, Slot{});
  const size_t mask = slots - 1;
  for (uint32_t id = 0; id < ends_.size(); ++id) {
    const uint64_t hash = std::hash<std::string_view>{}(at(id));
    size_t i = hash & mask;
    while (slots_[i].id != kNone) i = (i + 1) & mask;
    slots_[i] = {.hash = static_cast<uint32_t>(hash), .id = id};
  }
}

}  // namespace mnemo::internal

// mnemo::ErasureCounts (mnemo/types.h): one list of the counted kinds, so
// the sum and the names cannot drift apart.
#include <array>
#include <string>
#include <utility>
#include <vector>

#include "mnemo/types.h"

namespace mnemo {
namespace {

struct Kind {
  const char* name;
  int64_t ErasureCounts::*count;
};

constexpr std::array<Kind, 13> kKinds = {{
    {"entries", &ErasureCounts::entries},
    {"entry_vectors", &ErasureCounts::entry_vectors},
    {"turns", &ErasureCounts::turns},
    {"segments", &ErasureCounts::segments},
    {"recaps", &ErasureCounts::recaps},
    {"recap_vectors", &ErasureCounts::recap_vectors},
    {"events", &ErasureCounts::events},
    {"facets_removed", &ErasureCounts::facets_removed},
    {"facets_reduced", &ErasureCounts::facets_reduced},
    {"documents", &ErasureCounts::documents},
    {"context_events", &ErasureCounts::context_events},
    {"triples", &ErasureCounts::triples},
    {"archive_files", &ErasureCounts::archive_files},
}};

}  // namespace

ErasureCounts& ErasureCounts::operator+=(const ErasureCounts& o) {
  for (const Kind& k : kKinds) this->*k.count += o.*k.count;
  return *this;
}

std::vector<std::pair<std::string, int64_t>> ErasureCounts::Named() const {
  std::vector<std::pair<std::string, int64_t>> out;
  out.reserve(kKinds.size());
  for (const Kind& k : kKinds) out.emplace_back(k.name, this->*k.count);
  return out;
}

}  // namespace mnemo

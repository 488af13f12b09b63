// The two candidate sides of a hybrid search (spec 20) and what each
// candidate carries into fusion.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/search/vector_space.h"
#include "storage/entry_store.h"

namespace mnemo {

struct HybridQuery {
  std::vector<std::string> terms;  // text::QueryTerms of the query
  storage::EntryFilter filter;
  int candidates = 40;                 // per side
  std::shared_ptr<VectorSpace> space;  // null: keyword only
  std::vector<float> vector;           // the unit query vector in `space`
};

struct Candidate {
  storage::KeywordHit hit;       // the entry and its keyword score (0 if no term)
  std::optional<double> vector;  // cosine clamped to [0,1]; absent: no vector
};

}  // namespace mnemo

// The search service (spec 20): memory_search over entries, hybrid (keyword
// and vector candidates, both signals for each, fused). It holds no state of
// its own and takes only the entry store, the vectors service (the embedder
// and the spaces), the clock, the logger and its options.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/search/hybrid_search.h"
#include "core/search/search_query.h"
#include "core/search/vectors_service.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"
#include "storage/values.h"

namespace mnemo {

// Built by SearchOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct SearchOptions {
  bool acl_enabled{};     // memory.acl_enabled: each principal searches its own
  Config::Search search;  // [search]: fusion, weights, the relevance floor
};

SearchOptions SearchOptionsOf(const Config& config);

class SearchService {
 public:
  SearchService(storage::EntryStore& entries, VectorsService& vectors, std::shared_ptr<Clock> clock,
                std::shared_ptr<Logger> logger, SearchOptions options);

  // Memory::Search (mnemo/memory.h), which checks that memory is enabled
  // and parses the request; recall and context_build, from what their
  // entries parsed. Checks nothing again.
  Result<SearchResponse> Search(const Principal& who, const SearchQuery& req);
  // The relevance floor of a search that names none (search.min_relevance_score).
  double default_min_score() const { return options_.search.min_relevance_score; }
  // The soft term matcher of the rankings (null without word vectors).
  const embed::SoftMatcher* soft_matcher() const { return vectors_.soft_matcher(); }

 private:
  // Picks the vector space and the vector of `query` (req.query() as
  // text::QueryText reads it), or records why the vector side is degraded.
  Status PrepareVectorSide(const SearchQuery& req, std::string_view query, HybridQuery* q,
                           std::optional<std::string>* degraded);
  // Gathers the candidates of both sides with both signals.
  // Sets *vector_floor to the vector side's VectorFloor (fusion.h).
  Result<std::vector<Candidate>> CollectCandidates(const HybridQuery& q, double* vector_floor);

  storage::EntryStore& entries_;
  VectorsService& vectors_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const SearchOptions options_;
};

}  // namespace mnemo

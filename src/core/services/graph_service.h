// The graph service (spec 50, "Graph"): facts stated through
// memory.graph_upsert and the query over them and over the triples
// distilled from documents (context/graph.h). It holds no state of its own
// and takes only the graph store, the clock and its options.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/graph_store.h"

namespace mnemo {

// Built by GraphOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct GraphOptions {
  bool acl_enabled{};   // memory.acl_enabled: each principal reads its own triples
  std::string secrets;  // security.secrets
};

GraphOptions GraphOptionsOf(const Config& config);

class GraphService {
 public:
  GraphService(storage::GraphStore& graph, std::shared_ptr<Clock> clock, GraphOptions options);

  // Knowledge::GraphUpsert and Knowledge::GraphQuery (mnemo/knowledge.h).
  Result<GraphUpsertResult> Upsert(const Principal& who, const GraphUpsertRequest& req);
  Result<std::vector<Triple>> Query(const Principal& who, const GraphQueryRequest& req);
  // Corrections (issue 44 section 3). A user changes its own triples, an
  // admin any principal's; another principal's answers kNotFound exactly
  // like a missing one. Correct restates a current triple: the wrong one is
  // deleted (it was never true, so it leaves no history) and the corrected
  // fact upserted as Upsert does, with the old one's source, sentence and
  // owner, and its confidence unless given. A past triple (valid_to set)
  // can be deleted, not corrected.
  Result<GraphUpsertResult> Correct(const Principal& who, const GraphCorrection& req);
  Status Delete(const Principal& who, std::string_view id);

 private:
  storage::GraphStore& graph_;
  const std::shared_ptr<Clock> clock_;
  const GraphOptions options_;
};

}  // namespace mnemo

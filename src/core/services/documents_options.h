// What Engine::Open builds mnemo::Documents (mnemo/documents.h) with: its
// options from the configuration, the hook for access counts that could not
// be written, and soft term matching.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "embed/soft_match.h"
#include "mnemo/config.h"
#include "mnemo/status.h"

namespace mnemo::internal {

// Called with the failure when an access count cannot be written (the read
// still answers).
using AccessCountFailureFn = std::function<void(const Status&)>;

// Built by DocumentsOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct DocumentsOptions {
  bool enabled{};                // memory.enabled
  bool acl_enabled{};            // memory.acl_enabled: each principal reads its own
  int64_t max_meta_bytes{};      // server.max_body_bytes: a document's meta JSON
  std::string secrets;           // security.secrets
  double min_relevance_score{};  // search.min_relevance_score, for recall's hits
  AccessCountFailureFn on_count_failure;
  // Soft term matching (embed/soft_match.h) for every ranking of documents;
  // null: keyword matching only.
  const embed::SoftMatcher* soft = nullptr;
};

DocumentsOptions DocumentsOptionsOf(const Config& config, AccessCountFailureFn on_count_failure,
                                    const embed::SoftMatcher* soft);

}  // namespace mnemo::internal

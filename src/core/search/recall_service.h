// The recall service: what reads across every layer at once. memory_recall
// (spec 10) puts entries, turns, events, recaps and documents in one list,
// the evidence first; memory.context_build (spec 50, "Context block") packs
// them into a block for the prompt. It holds no state of its own and takes
// the episodic and document stores, the services whose reads it combines
// (search, the Archivist, documents, the tool registry), the clock and its
// options. The caller checks that memory is enabled.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <memory>
#include <optional>

#include "context/tool_registry.h"
#include "core/archivist/archivist_options.h"
#include "core/search/search_service.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/documents.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"
#include "storage/document_store.h"
#include "storage/episodic_store.h"
#include "storage/values.h"

namespace mnemo {

// Built by RecallOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct RecallOptions {
  bool acl_enabled{};     // memory.acl_enabled: recall is off, the block is one's own
  Config::Search search;  // [search]: the relevance floor
};

RecallOptions RecallOptionsOf(const Config& config);

class RecallService {
 public:
  RecallService(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                SearchService& search, Archivist& archivist, Documents& documents_service,
                Tools& tools, std::shared_ptr<Clock> clock, RecallOptions options);

  // Memory::Recall and Context::Build (mnemo/memory.h, context.h), which
  // parse the query (req.query's text: `query` views it) and, for the
  // block, the session id (`session`, req.session_id parsed; it is not read
  // again). Each parses the rest of `req` once, at its top, and hands the
  // search a SearchQuery built from those checked parts.
  Result<RecallResponse> Recall(const Principal& who, const Query& query, const RecallRequest& req);
  Result<ContextBlock> ContextBuild(const Principal& who, const Query& query,
                                    const std::optional<SessionId>& session,
                                    const ContextBuildRequest& req);

 private:
  storage::EpisodicStore& episodic_;
  storage::DocumentStore& documents_store_;
  SearchService& search_;
  Archivist& archivist_;
  Documents& documents_;
  Tools& tools_;
  const std::shared_ptr<Clock> clock_;
  const RecallOptions options_;
};

}  // namespace mnemo

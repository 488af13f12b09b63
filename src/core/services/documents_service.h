// The documents service (spec 50): memory.doc_put, doc_get, doc_search,
// doc_list, doc_delete, and the document part of memory_recall. A document
// is its owner's; while ACL is off every principal reads every document (as
// for episodic rows). It holds no state of its own and takes only the
// document and graph stores (a document's triples are distilled when it is
// stored), the clock, its options and a hook for access counts that could
// not be written.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embed/soft_match.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/document_store.h"
#include "storage/graph_store.h"

namespace mnemo {

// Built by DocumentsOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct DocumentsOptions {
  bool acl_enabled{};            // memory.acl_enabled: each principal reads its own
  int64_t max_meta_bytes{};      // server.max_body_bytes: a document's meta JSON
  std::string secrets;           // security.secrets
  double min_relevance_score{};  // search.min_relevance_score, for recall's hits
};

DocumentsOptions DocumentsOptionsOf(const Config& config);

// Called with the failure when an access count cannot be written (the read
// still answers).
using AccessCountFailureFn = std::function<void(const Status&)>;

class DocumentsService {
 public:
  // `soft`: soft term matching (embed/soft_match.h) for every ranking of
  // documents; null: keyword matching only.
  DocumentsService(storage::DocumentStore& documents, storage::GraphStore& graph,
                   std::shared_ptr<Clock> clock, DocumentsOptions options,
                   AccessCountFailureFn on_count_failure, const embed::SoftMatcher* soft = nullptr);

  // Documents::Put and its siblings (mnemo/documents.h).
  Result<DocumentPutResult> Put(const Principal& who, const DocumentPutRequest& req);
  Result<Document> Get(const Principal& who, std::string_view id);
  Result<std::vector<DocumentSearchHit>> Search(const Principal& who,
                                                const DocumentSearchRequest& req);
  Result<DocumentList> List(const Principal& who, const DocumentListRequest& req);
  Result<bool> Delete(const Principal& who, std::string_view id);

  // Documents for recall: the best keyword hits (Rank without soft matching,
  // measured in documents_service.cc) as RecallHits of source "document".
  Result<std::vector<RecallHit>> Hits(const std::vector<std::string>& terms, int limit);

  // The best `limit` documents for `query` (`terms` its text::QueryTerms) of
  // `owner` (nullopt: everyone's), the one ranking of doc_search, recall and
  // context_build: keyword candidates (any term), each score raised by soft
  // term matching (none for an empty `query`) over the document's computation text
  // (SoftMatcher::WithSoft), then by score; ties keep the store's order.
  // With soft matching the best max(4·limit, 40) keyword candidates are
  // scored, so a document that says a query word in other words can climb.
  // `keyword` (optional) receives each returned hit's exact keyword score:
  // thresholds read it, as they read a turn's (soft matching orders, it does
  // not let a document in).
  Result<std::vector<storage::DocumentHit>> Rank(std::string_view query,
                                                 const std::vector<std::string>& terms,
                                                 std::optional<std::string> owner, int limit,
                                                 std::vector<double>* keyword = nullptr);

 private:
  // The owner whose documents `who` reads: nullopt (everyone's) while ACL is off.
  std::optional<std::string> Owner(const Principal& who) const;

  storage::DocumentStore& documents_;
  storage::GraphStore& graph_;
  const std::shared_ptr<Clock> clock_;
  const DocumentsOptions options_;
  const AccessCountFailureFn on_count_failure_;
  const embed::SoftMatcher* const soft_;
};

}  // namespace mnemo

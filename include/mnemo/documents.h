// mnemo::Documents — documents (spec 50). Stored byte for byte; summary,
// tags and entities are derived from the content. An owner's identical
// contents are stored once (created = false, the first id). Scoped like
// episodic rows: the caller's own under ACL, where another principal's
// document is kNotFound (Get) or not deleted (Delete) exactly like a
// missing one.
//
// The documents service itself: made by Engine::Open over the engine's
// document and graph stores (a document's triples are distilled when it is
// stored) and handed out by Engine::documents(); it lives as long as its
// Engine. Every call answers kDisabled while memory.enabled = false, then
// checks its request (include/mnemo/limits.h) and does the work. It holds
// no state of its own.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage); no caller can make one. Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace storage {
class DocumentStore;
class GraphStore;
struct DocumentHit;
}  // namespace storage
namespace internal {
class AuditLog;           // src/core/audit_log.h: null when [security.audit] is off
struct DocumentsOptions;  // src/core/services/documents_options.h
}  // namespace internal
class RecallService;
#pragma GCC visibility pop

class Documents {
 public:
  // Made by Engine::Open: the stores and the options are the engine's.
  [[gnu::visibility("hidden")]] Documents(storage::DocumentStore& documents,
                                          storage::GraphStore& graph, internal::AuditLog* audit,
                                          std::shared_ptr<Clock> clock,
                                          internal::DocumentsOptions options);
  ~Documents();
  Documents(const Documents&) = delete;
  Documents& operator=(const Documents&) = delete;

  Result<DocumentPutResult> Put(const Principal& who, const DocumentPutRequest& req);
  // Counts an access, best effort like Memory::Get. kNotFound when missing
  // or not readable by `who`.
  Result<Document> Get(const Principal& who, std::string_view id);
  Result<std::vector<DocumentSearchHit>> Search(const Principal& who,
                                                const DocumentSearchRequest& req);
  Result<DocumentList> List(const Principal& who, const DocumentListRequest& req);
  // Returns whether a document was deleted.
  Result<bool> Delete(const Principal& who, std::string_view id);

 private:
  // memory_recall and memory.context_build (RecallService) rank documents
  // with Hits and Rank.
  friend class RecallService;

  // Documents for recall: the best keyword hits (Rank without soft matching,
  // measured in documents.cc) as RecallHits of source "document".
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
  // The owner whose documents `who` reads: nullopt (everyone's) while ACL is off.
  std::optional<std::string> Owner(const Principal& who) const;

  storage::DocumentStore& documents_;
  storage::GraphStore& graph_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::unique_ptr<const internal::DocumentsOptions> options_;
};

}  // namespace mnemo

#pragma GCC visibility pop

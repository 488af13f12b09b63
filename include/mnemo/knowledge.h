// mnemo::Knowledge — what the engine holds about the user: the profile's
// facets (spec 40) and the graph's triples (spec 50).
//
// The knowledge service itself: made by Engine::Open over the engine's
// graph store and the Archivist (which folds the profile) and handed out by
// Engine::knowledge(); it lives as long as its Engine. Every call answers
// kDisabled while memory.enabled = false, then checks its request
// (include/mnemo/limits.h) and does the work.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <memory>
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
class GraphStore;
}  // namespace storage
namespace internal {
class AuditLog;           // src/core/audit_log.h: null when [security.audit] is off
struct KnowledgeOptions;  // src/core/services/knowledge_options.h
}  // namespace internal
#pragma GCC visibility pop
class Archivist;

class Knowledge {
 public:
  // Made by Engine::Open: the store, the Archivist and the options are the
  // engine's.
  [[gnu::visibility("hidden")]] Knowledge(storage::GraphStore& graph, Archivist& archivist,
                                          internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                                          internal::KnowledgeOptions options);
  ~Knowledge();
  Knowledge(const Knowledge&) = delete;
  Knowledge& operator=(const Knowledge&) = delete;

  // The profile: the caller's own facets under ACL.
  Result<std::vector<ProfileFacet>> Profile(const Principal& who, const ProfileRequest& req = {});
  // States a facet directly (confidence 0.9, spec 40): merged like an
  // observed one, so it replaces weaker values and counts as evidence.
  Result<ProfileFacet> ProfilePut(const Principal& who, std::string_view facet_type,
                                  std::string_view key, std::string_view value);
  // "### Preference" / "- key: value (confirmed Nx)" sections.
  Result<std::string> ProfileRender(const Principal& who);

  // The graph (spec 50). Triples belong to the principal that stated them or
  // whose documents they were extracted from; while ACL is off every caller
  // reads every owner's. An upsert of a single-valued predicate (lives_in,
  // works_at, timezone, name, ...) ends the subject's current triple with
  // another object (valid_to), which stays queryable as history. Fields are
  // validated by name: subject, predicate and object non-blank, at most
  // kMaxGraphTermBytes; confidence in [0, 1].
  Result<GraphUpsertResult> GraphUpsert(const Principal& who, const GraphUpsertRequest& req);
  // Subject, predicate, then current before history and newest first.
  Result<std::vector<Triple>> GraphQuery(const Principal& who, const GraphQueryRequest& req);

  // Corrections (issue 44 section 3): what the Archivist and the graph
  // derived, corrected or deleted. A user changes its own items, an admin
  // (everyone while ACL is off) any principal's; another principal's item
  // answers kNotFound exactly like a missing one, which names the id or the
  // (facet_type, key). A deletion leaves no trace in reads, the export, the
  // context block or the text indexes (as erasure: docs/storage.md).
  // ProfileCorrect makes `value` the facet's current value (the old one
  // goes to the history) at full confidence, and it stays so when an
  // erasure folds the facet again; ProfileDelete drops the facet with its
  // history and the statements it was folded from. GraphCorrect restates a
  // current triple (the wrong one is deleted, the corrected one upserted as
  // GraphUpsert does).
  Result<ProfileFacet> ProfileCorrect(const Principal& who, const FacetAddress& at,
                                      std::string_view value);
  Status ProfileDelete(const Principal& who, const FacetAddress& at);
  Result<GraphUpsertResult> GraphCorrect(const Principal& who, const GraphCorrection& req);
  Status GraphDelete(const Principal& who, std::string_view id);

 private:
  storage::GraphStore& graph_;
  Archivist& archivist_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::unique_ptr<const internal::KnowledgeOptions> options_;
};

}  // namespace mnemo

#pragma GCC visibility pop

// Engine::Impl: the state behind the public Engine. Private to src/core.
#pragma once

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "base/background_worker.h"
#include "core/archivist_service.h"
#include "core/audit_log.h"
#include "core/context_window_service.h"
#include "core/documents_service.h"
#include "core/graph_service.h"
#include "core/line_reader.h"
#include "core/memory_service.h"
#include "core/rules_service.h"
#include "core/search_service.h"
#include "core/tools_service.h"
#include "core/vectors_service.h"
#include "mnemo/engine.h"
#include "storage/stores.h"

namespace mnemo {

// The write that restores an imported entry as given (id, times, counters,
// flags); `now` stands in for a missing updated_at (import_v1.cc).
storage::EntryWrite WriteOfEntry(const Entry& e, TimeMs now);

// Hidden (its declaration in engine.h says so): not part of libmnemo's
// interface.
struct Engine::Impl {
  Config config;
  std::string workspace;  // absolute
  std::shared_ptr<Clock> clock;
  // Set by Engine::Open; standard error until then, so an Impl whose open
  // failed still has one to report through while it closes.
  std::shared_ptr<Logger> logger = StderrLogger();
  // Every store of the configured backend (storage/stores.h).
  storage::Stores stores;

  // The services, each owning its state; set once by Engine::Open, so Impl
  // itself holds nothing that changes. Declared in the order they depend
  // on one another and destroyed in reverse.
  //
  // The embedder and the vector spaces (core/vectors_service.h) over
  // stores.entries; destroyed (writing its index files) after everything
  // that embeds.
  std::unique_ptr<VectorsService> vectors;
  // The entry tools and hygiene (core/memory_service.h).
  std::unique_ptr<MemoryService> memory;
  // memory_search over entries (core/search_service.h).
  std::unique_ptr<SearchService> search;
  // The tool registry (core/tools_service.h) over stores.entries.
  std::unique_ptr<ToolsService> tools;
  // Tool-scoped rules (core/rules_service.h) over stores.entries.
  std::unique_ptr<RulesService> rules;
  // Facts stated and distilled (core/graph_service.h) over stores.graph.
  std::unique_ptr<GraphService> graph;
  // Documents (core/documents_service.h) over stores.documents and stores.graph.
  std::unique_ptr<DocumentsService> documents;
  // The context window (core/context_window_service.h) over
  // stores.context_events, archiving into stores.documents.
  std::unique_ptr<ContextWindowService> context_window;
  // The Archivist (core/archivist_service.h) over stores.episodic, archiving
  // into stores.documents and stores.graph.
  std::unique_ptr<ArchivistService> archivist;
  // The audit log ([security.audit]; null when disabled).
  std::unique_ptr<internal::AuditLog> audit;
  // Background work: segment finalisation, hygiene at start-up. Declared
  // last, so it is drained before any service it runs for is destroyed.
  std::unique_ptr<internal::BackgroundWorker> worker;

  // Whose entries `who` may read: everything while ACL is off or for admins.
  storage::ReadScope ScopeFor(const Principal& who) const;
  bool IsAdmin(const Principal& who) const;
  // kDisabled when memory.enabled = false.
  Status CheckEnabled() const;

  // What spans several services.
  //
  // memory_recall (recall.cc).
  Result<RecallResponse> Recall(const Principal& who, const RecallRequest& req);
  // Context block (context_build.cc).
  Result<ContextBlock> ContextBuild(const Principal& who, const ContextBuildRequest& req);

  // Administration.
  //
  // Reindex, and the reindex of what is derived from text with the current
  // registry (reindex.cc).
  Result<ReindexReport> Reindex(const Principal& who, const ProgressFn& progress);
  Status ReindexDerivedText(ReindexReport& report);
  // memory.path_protected (path_guard.cc).
  Result<PathCheck> PathProtected(std::string_view path);
  // Erasure (erasure.cc; spec 10, "Erasure").
  Result<ErasureCounts> SessionForget(const Principal& who, const SessionForgetRequest& req);
  Result<ErasureCounts> PrincipalForget(const Principal& who, std::string_view principal);
  // The owner's documents derived from `session_id`: segment documents and
  // context-prune archives.
  Result<std::vector<std::string>> SessionDocumentIds(const std::string& owner,
                                                      std::string_view session_id);
  // Export (export.cc) and import (import.cc; version 1: import_v1.cc).
  Status ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options);
  Result<ImportReport> ImportJsonl(const Principal& who, std::istream& in,
                                   const ProgressFn& progress, const ImportOptions& options);
  Result<ImportReport> ImportV1(const Principal& who, internal::LineReader& lines,
                                const ProgressFn& progress);
  Result<ImportReport> ImportV2(const Principal& who, const nlohmann::json& header,
                                internal::LineReader& lines, const ProgressFn& progress,
                                const ImportOptions& options);
  // What already holds rows visible to `who` ("3 entries, 12 turns"), "" when nothing.
  Result<std::string> NonEmptyParts(const Principal& who);
};

}  // namespace mnemo

// Engine::Impl: the state behind the public Engine. Private to src/core.
#pragma once

#include <memory>
#include <string>

#include "base/background_worker.h"
#include "core/archivist/archivist_options.h"
#include "core/audit_log.h"
#include "core/search/recall_service.h"
#include "core/search/search_service.h"
#include "core/search/vectors_service.h"
#include "core/services/memory_options.h"
#include "mnemo/engine.h"
#include "storage/stores.h"

namespace mnemo {

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
  // The audit log ([security.audit]; null when disabled): every service
  // audits its own operations through it (core/audit_record.h), so it is
  // declared before them and outlives them.
  std::unique_ptr<internal::AuditLog> audit;

  // The services, each owning its state; set once by Engine::Open, so Impl
  // itself holds nothing that changes. Declared in the order they depend
  // on one another and destroyed in reverse.
  //
  // The embedder and the vector spaces (core/search/vectors_service.h) over
  // stores.entries; destroyed (writing its index files) after everything
  // that embeds.
  std::unique_ptr<VectorsService> vectors;
  // memory_search over entries (core/search/search_service.h).
  std::unique_ptr<SearchService> search;
  // The tool registry (mnemo/tools.h, core/services/tools.cc) over
  // stores.entries: the public service itself.
  std::unique_ptr<Tools> tools;
  // Tool-scoped rules (mnemo/rules.h, core/services/rules.cc) over
  // stores.entries: the public service itself.
  std::unique_ptr<Rules> rules;
  // Documents (mnemo/documents.h, core/services/documents.cc) over
  // stores.documents and stores.graph: the public service itself.
  std::unique_ptr<Documents> documents;
  // The Archivist (mnemo/archivist.h, core/archivist/archivist_*.cc) over
  // stores.episodic, archiving into stores.documents and stores.graph: the
  // public service itself.
  std::unique_ptr<Archivist> archivist;
  // The profile and the graph (mnemo/knowledge.h, core/services/knowledge.cc)
  // over stores.graph and the Archivist's profile: the public service itself.
  std::unique_ptr<Knowledge> knowledge;
  // memory_recall and memory.context_build over every layer
  // (core/search/recall_service.h).
  std::unique_ptr<RecallService> recall;
  // The entry tools and hygiene (mnemo/memory.h, core/services/memory.cc,
  // admin/memory_hygiene.cc) over stores.entries; search and recall through
  // their services: the public service itself.
  std::unique_ptr<Memory> memory;
  // The context window (mnemo/context.h, core/services/context.cc) over
  // stores.context_events, archiving into stores.documents, and the
  // context block through recall: the public service itself.
  std::unique_ptr<Context> context;
  // Reindex, path guard, erasure, export and import, hygiene, the vector
  // index files and the audit tail (mnemo/admin.h, core/admin/admin*.cc):
  // the public service itself.
  std::unique_ptr<Admin> admin;
  // Background work: segment finalisation, hygiene at start-up. Declared
  // last, so it is drained before any service it runs for is destroyed.
  std::unique_ptr<internal::BackgroundWorker> worker;
};

}  // namespace mnemo

// The in-memory backend (`in_memory`): nothing persisted; for tests and
// ephemeral agents. One state object (memory_state.h: every row and index
// behind one std::shared_mutex; reads share it, writes hold it alone) and
// one store per concern over it: MemoryEntryStore, MemoryEpisodicStore,
// MemoryDocumentStore, MemoryContextEventStore, MemoryGraphStore and
// MemoryAdminStore.
#pragma once

#include <cstdint>
#include <memory>

#include "storage/memory/memory_admin_store.h"
#include "storage/memory/memory_context_event_store.h"
#include "storage/memory/memory_document_store.h"
#include "storage/memory/memory_entry_store.h"
#include "storage/memory/memory_episodic_store.h"
#include "storage/memory/memory_graph_store.h"
#include "storage/memory/memory_state.h"
#include "storage/rules/vector_rules.h"
#include "storage/stores.h"

namespace mnemo::storage::internal {

class MemoryBackend {
 public:
  // `vector_log_limit`: changes kept per signature (vector_rules.h).
  explicit MemoryBackend(int64_t vector_log_limit = kDefaultVectorLogLimit);

  MemoryEntryStore& entries() { return *entries_; }
  MemoryEpisodicStore& episodic() { return *episodic_; }
  MemoryDocumentStore& documents() { return *documents_; }
  MemoryContextEventStore& context_events() { return *context_events_; }
  MemoryGraphStore& graph() { return *graph_; }
  MemoryAdminStore& admin() { return *admin_; }

  // The stores as the engine holds them; each keeps the state alive.
  // Nothing is persisted, so there is no schema to version (0).
  Stores stores() const;

 private:
  std::shared_ptr<MemoryState> state_;
  std::shared_ptr<MemoryEntryStore> entries_;
  std::shared_ptr<MemoryEpisodicStore> episodic_;
  std::shared_ptr<MemoryDocumentStore> documents_;
  std::shared_ptr<MemoryContextEventStore> context_events_;
  std::shared_ptr<MemoryGraphStore> graph_;
  std::shared_ptr<MemoryAdminStore> admin_;
};

}  // namespace mnemo::storage::internal

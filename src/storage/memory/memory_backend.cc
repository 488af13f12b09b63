#include "storage/memory/memory_backend.h"

namespace mnemo::storage {
namespace internal {

MemoryBackend::MemoryBackend(int64_t vector_log_limit)
    : state_(std::make_shared<MemoryState>(vector_log_limit)),
      entries_(std::make_shared<MemoryEntryStore>(state_)),
      episodic_(std::make_shared<MemoryEpisodicStore>(state_)),
      documents_(std::make_shared<MemoryDocumentStore>(state_)),
      context_events_(std::make_shared<MemoryContextEventStore>(state_)),
      graph_(std::make_shared<MemoryGraphStore>(state_)),
      admin_(std::make_shared<MemoryAdminStore>(state_)) {}

Stores MemoryBackend::stores() const {
  return Stores{.name = "in_memory",
                .schema_version = 0,
                .entries = entries_,
                .episodic = episodic_,
                .documents = documents_,
                .context_events = context_events_,
                .graph = graph_,
                .admin = admin_};
}

}  // namespace internal

Stores NewMemoryStores() { return internal::MemoryBackend().stores(); }

}  // namespace mnemo::storage

// The stores of one memory, opened together from the configuration: what
// the engine holds. Each service takes the one store it needs; a store
// shared by several backends' interfaces (one SQLite file implements them
// all) is one object behind several pointers.
#pragma once

#include <memory>
#include <string>

#include "storage/admin_store.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"

namespace mnemo::storage {

class Backend;

struct Stores {
  std::string name;  // the backend: "sqlite", "postgres", "markdown" or "in_memory"
  int schema_version = 0;
  std::shared_ptr<EntryStore> entries;
  std::shared_ptr<EpisodicStore> episodic;
  std::shared_ptr<DocumentStore> documents;
  std::shared_ptr<ContextEventStore> context_events;
  std::shared_ptr<GraphStore> graph;
  std::shared_ptr<AdminStore> admin;

  // Closes every store (the last owner of each closes it).
  void Reset() { *this = Stores(); }
};

// Every store of `backend` is the backend itself.
Stores StoresOf(std::shared_ptr<Backend> backend);

}  // namespace mnemo::storage

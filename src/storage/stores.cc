#include "storage/stores.h"

#include <utility>

#include "storage/backend.h"

namespace mnemo::storage {

Stores StoresOf(std::shared_ptr<Backend> backend) {
  Stores stores;
  stores.name = std::string(backend->name());
  stores.schema_version = backend->schema_version();
  stores.entries = backend;
  stores.episodic = backend;
  stores.documents = backend;
  stores.context_events = backend;
  stores.graph = backend;
  stores.admin = std::move(backend);
  return stores;
}

}  // namespace mnemo::storage

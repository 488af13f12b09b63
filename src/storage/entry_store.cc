#include "storage/entry_store.h"

namespace mnemo::storage {

bool IsSystemNamespace(std::string_view ns) {
  return ns.starts_with("tool-") || ns == "tool_effectiveness" || ns == kToolRegistryNamespace;
}

}  // namespace mnemo::storage

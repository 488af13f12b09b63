// The backends the conformance suite runs against. A new backend adds one
// line to kConformanceBackends and one branch to MakeBackend.
#pragma once

#include <memory>
#include <string>

#include "storage/backend.h"
#include "storage/temp_dir.h"

namespace mnemo::testing {

inline constexpr const char* kConformanceBackends[] = {"memory", "sqlite"};

// A new, empty backend of kind `name` whose files (if any) live in `dir`.
inline std::unique_ptr<storage::Backend> MakeBackend(const std::string& name, const TempDir& dir) {
  if (name == "memory") return storage::NewMemoryBackend();
  if (name == "sqlite") {
    auto backend = storage::OpenSqliteBackend({.path = dir.File("mnemo.db"), .readers = 2});
    if (!backend.ok()) return nullptr;
    return std::move(backend).value();
  }
  return nullptr;
}

}  // namespace mnemo::testing

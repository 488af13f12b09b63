// The backends the conformance suite runs against. A new backend adds one
// line to kConformanceBackends and one branch to MakeBackend.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "storage/backend.h"
#include "storage/memory/memory_backend.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/temp_dir.h"
#include "storage/vector_rules.h"

namespace mnemo::testing {

inline constexpr const char* kConformanceBackends[] = {"memory", "sqlite"};

// A new, empty backend of kind `name` whose files (if any) live in `dir`.
// `vector_log_limit`: vector changes kept per signature (small to test
// trimming).
inline std::unique_ptr<storage::Backend> MakeBackend(
    const std::string& name, const TempDir& dir,
    int64_t vector_log_limit = storage::internal::kDefaultVectorLogLimit) {
  if (name == "memory") return std::make_unique<storage::internal::MemoryBackend>(vector_log_limit);
  if (name == "sqlite") {
    auto backend = storage::internal::SqliteBackend::Open(
        {.path = dir.File("mnemo.db"), .readers = 2}, vector_log_limit);
    if (!backend.ok()) return nullptr;
    return std::move(backend).value();
  }
  return nullptr;
}

}  // namespace mnemo::testing

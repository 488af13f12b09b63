// The backends the conformance suite runs against. A new backend adds one
// line to kConformanceBackends and one branch to MakeStores.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "mnemo/status.h"
#include "storage/markdown/markdown_backend.h"
#include "storage/memory/memory_backend.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/rules/vector_rules.h"
#include "storage/sqlite/sqlite_backend.h"
#include "storage/stores.h"
#include "storage/temp_dir.h"
#include "storage/test_values.h"

namespace mnemo::testing {

inline constexpr const char* kConformanceBackends[] = {"memory", "sqlite", "markdown", "postgres"};

// The PostgreSQL server of the tests: $MNEMO_TEST_POSTGRES_URL, else the
// cluster CTest started (scripts/pg-cluster.sh wrote its url into the build
// folder); "" when neither.
inline std::string PostgresTestUrl() {
  if (const char* url = std::getenv("MNEMO_TEST_POSTGRES_URL"); url != nullptr && *url != '\0') {
    return url;
  }
  std::ifstream in(MNEMO_TEST_POSTGRES_URL_FILE);
  std::string url;
  std::getline(in, url);
  return url;
}

// A schema no other backend of any test process uses: an empty store.
inline std::string FreshPostgresSchema() {
  static std::atomic<int> next{0};
  return "t_" + std::to_string(::getpid()) + "_" + std::to_string(next++) + "_" +
         std::to_string(std::rand());
}

// Two backends on one fresh schema of the test server, as two processes
// (nodes) on one store: `a` with `a_pool` connections, `b` with one, both
// scoring keyword searches where `keyword_index` says.
struct TwoPostgresNodes {
  std::string schema;
  Result<std::unique_ptr<storage::internal::PostgresBackend>> a;
  Result<std::unique_ptr<storage::internal::PostgresBackend>> b;
};
inline TwoPostgresNodes OpenTwoPostgresNodes(
    const std::string& url, int a_pool = 1,
    storage::KeywordIndexPlace keyword_index = storage::KeywordIndexPlace::kNode) {
  std::string schema = FreshPostgresSchema();
  auto a = storage::internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = a_pool, .keyword_index = keyword_index});
  auto b = storage::internal::PostgresBackend::Open(
      {.url = url, .schema = schema, .pool_size = 1, .keyword_index = keyword_index});
  return {std::move(schema), std::move(a), std::move(b)};
}

// The stores of a new, empty backend of kind `name` whose files (if any)
// live in `dir`; no stores (entries == nullptr) when it cannot be opened.
// `vector_log_limit`: vector changes kept per signature (small to test
// trimming).
inline storage::Stores MakeStores(
    const std::string& name, const TempDir& dir,
    int64_t vector_log_limit = storage::internal::kDefaultVectorLogLimit) {
  if (name == "memory") {
    return storage::internal::MemoryBackend(vector_log_limit).stores();
  }
  if (name == "sqlite") {
    auto backend = storage::internal::SqliteBackend::Open(
        {.path = dir.File("mnemo.db"), .readers = 2}, vector_log_limit);
    if (!backend.ok()) return {};
    return (*backend)->stores();
  }
  if (name == "markdown") {
    // As the engine opens it: entries in files with their index, the rest
    // in a second database.
    auto index = storage::internal::SqliteBackend::Open(
        {.path = dir.File("mnemo-index.db"), .readers = 2}, vector_log_limit);
    auto data =
        storage::internal::SqliteBackend::Open({.path = dir.File("mnemo.db"), .readers = 2});
    if (!index.ok() || !data.ok()) return {};
    auto stores = storage::markdown::MarkdownBackend::Bundle(dir.Sub("memory"), (*index)->stores(),
                                                             (*data)->stores());
    if (!stores.ok()) return {};
    return std::move(stores).value();
  }
  if (name == "postgres") {
    auto backend = storage::internal::PostgresBackend::Open(
        {.url = PostgresTestUrl(), .schema = FreshPostgresSchema(), .pool_size = 2},
        vector_log_limit);
    if (!backend.ok()) {
      std::cerr << "postgres test backend: " << backend.status().ToString() << "\n";
      return {};
    }
    return (*backend)->stores();
  }
  return {};
}

}  // namespace mnemo::testing

// The stores of one memory, opened together by one of the openers below:
// what the engine holds. Each service takes the one store it needs. A
// backend implements the stores it owns, one class per store over the
// backend's shared database object (SQLite, PostgreSQL, in-memory). A new
// backend can land one store at a time: its opener fills the others from an
// existing backend.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "storage/admin_store.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"

namespace mnemo::storage {

struct Stores {
  std::string name;  // the backend: "sqlite", "postgres", "markdown" or "in_memory"
  int schema_version = 0;
  std::shared_ptr<EntryStore> entries;
  std::shared_ptr<EpisodicStore> episodic;
  std::shared_ptr<DocumentStore> documents;
  std::shared_ptr<ContextEventStore> context_events;
  std::shared_ptr<GraphStore> graph;
  std::shared_ptr<AdminStore> admin;
};

// Each backend reports what it repairs or retries on its own (an index
// rebuilt for a new text version, a failed checkpoint, a reconnect) to its
// options' logger.
struct SqliteOptions {
  std::string path;  // the database file; created when missing
  int readers = 4;   // reader connections kept open
  std::shared_ptr<Logger> logger = StderrLogger();
  // Keyword searches of every row try pruning (sqlite/fts/fts_rank.h,
  // PrunedMatch) from this many entries on: at 100k pruning left p95 where
  // it was (2.01 → 2.06 ms) and counting first cost p50 (0.262 → 0.311 ms);
  // at 1M it cut p95 by two thirds (issue 22). Scoped searches count first
  // anyway and always try.
  int64_t prune_keyword_search_from_rows = 200000;
};

Result<Stores> OpenSqliteStores(const SqliteOptions& options);

// Where a keyword search of entries is scored (`[postgres] keyword_index`):
// kNode, each process holds the keyword index (storage/postgres/sql/
// pg_node_search.h); kServer, one statement scored by the server
// (pg_entry_search.h).
enum class KeywordIndexPlace { kNode, kServer };

// The names of KeywordIndexPlace in its order, the one table of them: the
// config schema's allowed values, the parse below and its message.
inline constexpr std::string_view kKeywordIndexPlaceNames = "node|server";

// "node" for kNode, "server" for kServer.
constexpr std::string_view KeywordIndexPlaceName(KeywordIndexPlace place) {
  std::string_view names = kKeywordIndexPlaceNames;
  for (int i = 0; i < static_cast<int>(place); ++i) names.remove_prefix(names.find('|') + 1);
  return names.substr(0, names.find('|'));
}

// The place named `name`, or nullopt for a name not in the table.
constexpr std::optional<KeywordIndexPlace> FindKeywordIndexPlace(std::string_view name) {
  for (KeywordIndexPlace place : {KeywordIndexPlace::kNode, KeywordIndexPlace::kServer}) {
    if (KeywordIndexPlaceName(place) == name) return place;
  }
  return std::nullopt;
}

// The place named `name`, else an error naming it and every allowed name.
Result<KeywordIndexPlace> ParseKeywordIndexPlace(std::string_view name);

struct PostgresOptions {
  std::string url;               // libpq connection string or postgresql:// url
  std::string schema = "mnemo";  // created when missing; one memory per schema
  int pool_size = 4;             // connections kept open
  int connect_attempts = 5;      // at start-up, 500 ms apart
  // Hot standbys of `url`: reads go to one that has replayed this process's
  // last write (pg_read_router.h); none: every read goes to `url`.
  std::vector<std::string> read_urls;
  KeywordIndexPlace keyword_index = KeywordIndexPlace::kNode;
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<Stores> OpenPostgresStores(const PostgresOptions& options);
// Nothing kept on disk: what tests and `memory.backend = "in_memory"` use.
Stores NewMemoryStores();

// The markdown backend (spec 10, "Backends"): entries in human-readable files
// under `root`, the source of truth, with a rebuildable SQLite index beside
// them (storage/markdown/markdown_backend.h).
struct MarkdownOptions {
  std::string root;        // the memory folder; created when missing
  std::string index_path;  // the entries' index; default <root>/.index/mnemo-index.db
  std::string data_path;   // what is not an entry (turns, documents...); default: in the index
  std::shared_ptr<Logger> logger = StderrLogger();
};

// Entries are the markdown store's (with its index); every other store is
// the data database's, handed out as it is.
Result<Stores> OpenMarkdownStores(const MarkdownOptions& options);

}  // namespace mnemo::storage

// The aggregate of the per-concern stores every backend implements today
// (sqlite, postgres, in_memory, markdown): EntryStore, EpisodicStore,
// DocumentStore, ContextEventStore, GraphStore and AdminStore, each in its
// own header with its contract. Code that uses storage takes the one store it
// needs; this aggregate is what the openers below return until each backend
// hands out its stores apart.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "storage/admin_store.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/entry_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"

namespace mnemo::storage {

class Backend : public EntryStore,
                public EpisodicStore,
                public DocumentStore,
                public ContextEventStore,
                public GraphStore,
                public AdminStore {
 public:
  ~Backend() override = default;

  virtual std::string_view name() const = 0;
  virtual int schema_version() const = 0;
};

// Each backend reports what it repairs or retries on its own (an index
// rebuilt for a new text version, a failed checkpoint, a reconnect) to its
// options' logger.
struct SqliteOptions {
  std::string path;  // the database file; created when missing
  int readers = 4;   // reader connections kept open
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenSqliteBackend(const SqliteOptions& options);

struct PostgresOptions {
  std::string url;               // libpq connection string or postgresql:// url
  std::string schema = "mnemo";  // created when missing; one memory per schema
  int pool_size = 4;             // connections kept open
  int connect_attempts = 5;      // at start-up, 500 ms apart
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenPostgresBackend(const PostgresOptions& options);
std::unique_ptr<Backend> NewMemoryBackend();

// The markdown backend (spec 10, "Backends"): entries in human-readable files
// under `root`, the source of truth, with a rebuildable SQLite index beside
// them (storage/markdown/markdown_backend.h).
struct MarkdownOptions {
  std::string root;        // the memory folder; created when missing
  std::string index_path;  // the entries' index; default <root>/.index/mnemo-index.db
  std::string data_path;   // what is not an entry (turns, documents...); default: in the index
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenMarkdownBackend(const MarkdownOptions& options);

}  // namespace mnemo::storage

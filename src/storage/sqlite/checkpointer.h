// Moves WAL checkpoints off the committing thread. SQLite's automatic
// checkpoint runs inside the COMMIT that takes the WAL past 1000 pages, so
// one write in every few dozen paid for copying the whole log into the
// database and syncing it (the p95 of memory.turn_complete, spec 40). The
// Checkpointer replaces that hook on the writer connection: a commit past
// kCheckpointPages only wakes a thread that runs a PASSIVE checkpoint on its
// own connection, concurrently with later writes. Should that thread fall
// behind (the log past kInlinePages), the commit checkpoints inline as
// before, so the log stays bounded.
//
// Thread-safety: the hook runs on the writer's thread (under the backend's
// writer lock); everything else is internal.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

class Checkpointer {
 public:
  static constexpr int kCheckpointPages = 1000;  // SQLite's default autocheckpoint
  static constexpr int kInlinePages = 16000;     // ~64 MiB of 4 KiB pages

  // `conn` is the checkpointer's own connection to the database; the hook
  // is installed on `writer`, which must outlive this object.
  // A checkpoint that fails is reported to `logger`.
  Checkpointer(std::unique_ptr<Connection> conn, Connection& writer,
               std::shared_ptr<Logger> logger);
  ~Checkpointer();  // removes the hook, finishes a running checkpoint, joins
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

 private:
  static int OnCommit(void* self, sqlite3* db, const char* schema, int pages);
  void Run();

  std::unique_ptr<Connection> conn_;
  sqlite3* writer_;
  const std::shared_ptr<Logger> logger_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool pending_ = false;  // guarded by mu_
  bool stop_ = false;     // guarded by mu_
  std::thread thread_;
};

}  // namespace mnemo::storage::internal

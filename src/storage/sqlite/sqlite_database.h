// One SQLite database file opened for the stores built over it
// (sqlite_backend.h): the file in WAL mode, one writer connection guarded by
// a mutex, a pool of reader connections so reads run concurrently with the
// writer, the damage latch they share, the checkpointer, the store id, and
// the counters that only the writer moves (labels, turn ids, the vector
// change log's trim policy). Every write is one BEGIN IMMEDIATE
// transaction on writer() with writer_mu() held. Schema: migrations.cc.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "storage/entry_store.h"
#include "storage/rules/vector_rules.h"
#include "storage/sqlite/connection.h"
#include "storage/stores.h"

namespace mnemo::storage::internal {

class Checkpointer;
class ScoreStatsMemo;
class SqliteDatabase;

// How a connection is opened: kWriter and kReader on a database that takes
// writes; kReadOnly and kImmutable on one that does not
// (Connection::OpenReadOnly).
enum class OpenMode { kWriter, kReader, kReadOnly, kImmutable };

// A reader connection borrowed from the pool; returned when destroyed.
class ReaderLease {
 public:
  ReaderLease(SqliteDatabase* owner, std::unique_ptr<Connection> conn)
      : owner_(owner), conn_(std::move(conn)) {}
  ReaderLease(ReaderLease&&) = default;
  ~ReaderLease();
  Connection& operator*() { return *conn_; }
  Connection* operator->() { return conn_.get(); }
  // This connection's keyword statistics (fts_rank.h), validated in the
  // caller's read transaction.
  Result<ScoreStatsMemo*> ValidMemo();

 private:
  SqliteDatabase* owner_;
  std::unique_ptr<Connection> conn_;
};

// What only the writer reads and moves: guarded by writer_mu().
struct WriterState {
  // The next label is at least this, so a label freed by deleting the
  // newest entry is not handed out again while open.
  Label next_label = 1;
  // Set by WriteEntriesLocked once its transaction has allocated a label:
  // the write lock keeps other writers out until the commit, so every later
  // new row takes next_label without reading MAX(rowid) again.
  bool labels_known = false;
  int64_t next_turn_id = 1;  // turn ids are never reused while open (like labels)
  VectorLogTrimPolicy trim{kDefaultVectorLogLimit};
  int64_t logged_changes = 0;  // vector changes since the last trim check
};

class SqliteDatabase {
 public:
  // Creates the file (mode 0600) when missing and migrates it. A database
  // on a file system that takes no writes (read-only, full) still opens for
  // reads: every connection read-only, no migration, no checkpoints, and
  // every write transaction refused naming the cause.
  // `vector_log_limit`: vector changes kept per signature (vector_rules.h).
  static Result<std::shared_ptr<SqliteDatabase>> Open(const SqliteOptions& options,
                                                      int64_t vector_log_limit);
  ~SqliteDatabase();
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  const std::string& store_id() const { return store_id_; }  // store_info.id (schema v11)
  int schema_version() const { return schema_version_; }
  const SqliteOptions& options() const { return options_; }

  // The writer connection and the lock every write holds around its
  // transaction; writer_state() only under that lock.
  std::mutex& writer_mu() { return writer_mu_; }
  Connection& writer() { return *writer_; }
  WriterState& writer_state() { return writer_state_; }

  // Waits for an idle reader connection.
  ReaderLease AcquireReader();
  // Shared by every connection (DamageLatch): set, writes are refused.
  DamageLatch& damage() { return *damage_; }

 private:
  friend class ReaderLease;

  SqliteDatabase(const SqliteOptions& options, int64_t vector_log_limit);
  Status OpenReadOnly(const std::string& why);
  // After writer_ is open: reads the store id and opens the reader pool in
  // `mode`, each refusing writes with `refusal` when it is not empty.
  Status OpenReaders(OpenMode mode, const std::string& refusal);

  const SqliteOptions options_;
  int schema_version_ = 0;
  std::string store_id_;
  std::mutex writer_mu_;
  std::shared_ptr<DamageLatch> damage_ = std::make_shared<DamageLatch>();
  std::unique_ptr<Connection> writer_;
  WriterState writer_state_;
  // One per reader connection, made at the open and only read after it.
  std::unordered_map<const Connection*, std::unique_ptr<ScoreStatsMemo>> memos_;
  std::mutex readers_mu_;
  std::condition_variable readers_cv_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
  // Declared after writer_: stopped (and its hook removed) before the
  // writer closes.
  std::unique_ptr<Checkpointer> checkpointer_;
};

}  // namespace mnemo::storage::internal

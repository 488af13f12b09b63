// RAII wrappers around one sqlite3 connection and its prepared statements.
// Errors become Status values whose messages name the operation and SQLite's
// generic error text, never SQL text or user data:
//   SQLITE_CONSTRAINT -> kConflict; BUSY, LOCKED, CANTOPEN, IOERR, FULL,
//   READONLY, PERM -> kUnavailable; CORRUPT, NOTADB -> kCorruption; anything
//   else -> kInternal.
//
// Thread-safety: none. A Connection (and its statements) is used by one
// thread at a time; the backend guards the writer with a mutex and leases
// readers from a pool.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::storage::internal {

// Maps an SQLite result code to a Status: "<what>: <sqlite's error string>".
Status SqliteStatus(int rc, std::string_view what);

// Set once a connection of a database has seen it damaged (SQLITE_CORRUPT
// or SQLITE_NOTADB from a statement, or problems from an integrity check);
// shared by every connection of one database. From then on
// Transaction::Begin refuses writes with kCorruption: a write into a
// damaged b-tree can spread the damage to pages that were sound.
class DamageLatch {
 public:
  void Set(std::string_view why);
  bool set() const { return set_.load(std::memory_order_acquire); }
  // What was seen first; "" until set.
  std::string Why() const;

 private:
  std::atomic<bool> set_{false};
  mutable std::mutex mu_;
  std::string why_;
};

// A prepared statement borrowed from a Connection's cache. Reset and its
// bindings cleared when the borrow ends, so no read transaction outlives it.
class Statement {
 public:
  explicit Statement(sqlite3_stmt* stmt, DamageLatch* damage = nullptr)
      : stmt_(stmt), damage_(damage) {}
  Statement(Statement&& other) noexcept : stmt_(other.stmt_), damage_(other.damage_) {
    other.stmt_ = nullptr;
  }
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  ~Statement();

  // Parameters are 1-based. Text is bound without a copy (SQLITE_STATIC):
  // the caller keeps it alive until the statement is done.
  void Bind(int index, std::string_view text);
  // A temporary string would be freed before the statement runs.
  void Bind(int index, std::string&& text) = delete;
  void Bind(int index, int64_t value);
  void Bind(int index, double value);
  void BindNull(int index);
  // Bytes bound as a BLOB, without a copy like text.
  void BindBlob(int index, std::string_view bytes);

  // Steps once: true when a row is available, false when done.
  Result<bool> Step(std::string_view what);
  // Steps to completion, ignoring rows.
  Status Run(std::string_view what);
  // Makes the statement ready to be bound and run again (bindings kept).
  void Reset();

  std::string_view ColumnText(int col) const;  // columns are 0-based
  std::string_view ColumnBlob(int col) const;
  int64_t ColumnInt(int col) const;
  double ColumnDouble(int col) const;
  bool ColumnIsNull(int col) const;

 private:
  sqlite3_stmt* stmt_;
  DamageLatch* damage_;
};

// Binds `value`, or NULL when absent (for `?n IS NULL OR ...` filters).
inline void BindOptional(Statement& s, int index, const std::optional<std::string>& value) {
  if (value) {
    s.Bind(index, std::string_view(*value));
  } else {
    s.BindNull(index);
  }
}
inline void BindOptional(Statement& s, int index, const std::optional<int64_t>& value) {
  if (value) {
    s.Bind(index, *value);
  } else {
    s.BindNull(index);
  }
}

// Every row of `s` (bound, not yet stepped) read by `read`, which returns a
// Row, or a Result<Row> whose first error ends the read.
template <typename Row, typename Read>
Result<std::vector<Row>> ReadAll(Statement& s, std::string_view what, Read read) {
  std::vector<Row> rows;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step(what));
    if (!row) break;
    if constexpr (std::is_same_v<std::invoke_result_t<Read, const Statement&>, Row>) {
      rows.push_back(read(s));
    } else {
      MNEMO_ASSIGN_OR_RETURN(Row r, read(s));
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

class Connection {
 public:
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Opens `path` (created when `create` and missing) with a busy timeout.
  static Result<std::unique_ptr<Connection>> Open(const std::string& path, bool create,
                                                  int busy_timeout_ms);

  // Opens `path` for reading only, for a workspace that takes no writes (a
  // read-only file system, a full disk). `immutable`: SQLite takes no locks
  // and needs no -wal or -shm file (right only when no other process writes
  // and no -wal holds changes); else a plain read-only open, which reads an
  // existing -wal through an existing -shm.
  static Result<std::unique_ptr<Connection>> OpenReadOnly(const std::string& path, bool immutable,
                                                          int busy_timeout_ms);

  // Runs one or more statements without results (DDL, pragmas, BEGIN).
  Status Exec(const char* sql, std::string_view what);

  // The cached prepared statement for `sql` (prepared on first use).
  Result<Statement> Prepare(const std::string& sql, std::string_view what);

  sqlite3* handle() const { return db_; }
  int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }

  // Shares `latch` with this connection's statements (DamageLatch); set
  // before the first Prepare.
  void ShareDamageLatch(std::shared_ptr<DamageLatch> latch) { damage_ = std::move(latch); }
  const DamageLatch* damage_latch() const { return damage_.get(); }
  // Sets the latch (when there is one) for a corruption status.
  void NoteDamage(const Status& status);

  // Transaction::Begin refuses with kUnavailable naming `why` (a connection
  // of a workspace opened read-only); set before first use.
  void RefuseWrites(std::string why) { write_refusal_ = std::move(why); }
  const std::string& write_refusal() const { return write_refusal_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}

  sqlite3* db_;
  std::shared_ptr<DamageLatch> damage_;
  std::string write_refusal_;
  std::unordered_map<std::string, sqlite3_stmt*> cache_;
};

// BEGIN IMMEDIATE .. COMMIT; rolled back when destroyed uncommitted.
class Transaction {
 public:
  // kCorruption without touching the database once its DamageLatch is set;
  // kUnavailable naming the cause on a connection that refuses writes.
  static Result<Transaction> Begin(Connection& conn);
  // A deferred BEGIN on a reader: the statements until it ends read one
  // snapshot. Ends (rolled back; nothing was written) when destroyed.
  static Result<Transaction> BeginRead(Connection& conn);
  Transaction(Transaction&& other) noexcept : conn_(other.conn_) { other.conn_ = nullptr; }
  Transaction& operator=(Transaction&&) = delete;
  ~Transaction();
  Status Commit();

 private:
  explicit Transaction(Connection* conn) : conn_(conn) {}
  Connection* conn_;
};

}  // namespace mnemo::storage::internal

// libpq underneath the PostgreSQL backend: a pool of connections, queries
// with parameters sent as text, results read by row and column (as text, or
// binary for a pipeline statement that asks: PgStatement), and
// transactions that are retried when the server asks for it.
//
// Errors become Status values naming the operation and the server's
// SQLSTATE class, never SQL text or user data:
//   23xxx (integrity) -> kConflict; 08xxx (connection), 40001/40P01
//   (serialization, deadlock), 53xxx (resources), 57xxx (shutdown) ->
//   kUnavailable; XX001/XX002 (data or index corrupted) -> kCorruption;
//   anything else -> kInternal.
//
// A broken connection is replaced when it is next acquired; a failed
// reconnect makes the pool refuse at once (kUnavailable, no attempt) for a
// backoff that doubles up to a bound, so a dead server costs each request
// microseconds, not a connect timeout. With a libpq multi-host url and
// target_session_attrs=read-write the reconnect finds whichever server was
// promoted (docs/scaling.md).
//
// Thread-safety: a Pool may be used from many threads; a PgConn by one
// thread at a time (the lease that holds it).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "storage/postgres/pg_values.h"

struct pg_conn;
struct pg_result;

namespace mnemo::storage::internal::pg {

// A WAL position as PostgreSQL prints it ("16/B374D848") as one number, 0
// for anything else (NULL, "").
uint64_t ParseLsn(std::string_view text);

// One statement of a pipeline (PgConn::ExecPipeline).
struct PgStatement {
  std::string sql;
  Params params;
  // Prepared once per connection, as ExecPrepared (the statements of every
  // search): the prepare goes in the same pipeline the first time.
  bool prepared = false;
  // Rows in binary format: a bytea arrives as its bytes, not as hex text
  // to encode on the server and decode here (a search's stored vectors).
  // Only for columns the Rows accessors read in binary: bigint, integer,
  // smallint, double precision, real, boolean, bytea and text.
  bool binary_results = false;
  // For a statement of PgConn::before_commit: where its rows go once the
  // COMMIT sent after it has succeeded (left untouched otherwise).
  std::optional<Rows>* rows_after_commit = nullptr;
};

class PgConn {
 public:
  // Connects and runs `init_sql` (session settings such as search_path).
  // Unless `url` says otherwise, a host that does not answer is given up
  // after a few seconds (connect_timeout) and TCP keepalives find a peer
  // that vanished without closing the connection.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& url,
                                                 const std::string& init_sql = {});
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  Result<Rows> Exec(std::string_view sql, const Params& params, std::string_view what);
  Result<Rows> Exec(std::string_view sql, std::string_view what) {
    return Exec(sql, Params(), what);
  }
  // `sql` as a statement prepared once per connection (by its text) and
  // executed with `params`: the server parses and plans it once, not on
  // every call. For the statements run on every search.
  Result<Rows> ExecPrepared(std::string_view sql, const Params& params, std::string_view what);
  // Several statements without parameters (schema scripts).
  Status ExecScript(std::string_view sql, std::string_view what);
  // Several statements without parameters in one round trip; the rows of
  // the last. The first that fails stops the rest and is the error.
  Result<Rows> ExecScriptRows(std::string_view sql, std::string_view what);
  // `statements` in libpq's pipeline mode: all sent, then one sync, so one
  // round trip for statements that must run in sequence but need nothing
  // from each other's results. The rows of each, in order. Outside a
  // transaction they form one implicit transaction; inside one they run in
  // it. The first that fails is the error, and the server skips the rest.
  Result<std::vector<Rows>> ExecPipeline(std::span<const PgStatement> statements,
                                         std::string_view what);
  // `COPY ... FROM STDIN` fed with `data`, in the format `copy_sql` names:
  // text rows of tab-separated fields built with AppendCopyField, each
  // ending in '\n', or the binary stream of AppendCopyBinary* (pg_values.h).
  Status CopyIn(std::string_view copy_sql, std::string_view data, std::string_view what);
  // The same, fed chunk by chunk: `next` gives the next run of whole rows
  // (valid until the following call) or nullopt at the end. Each chunk is
  // sent as soon as `next` returns it, so the server parses it while the
  // process makes the next one. A row the server refuses fails the COPY and
  // the rows already sent go with it (the server discards the rest).
  Status CopyIn(std::string_view copy_sql,
                const std::function<std::optional<std::string_view>()>& next,
                std::string_view what);
  // Whether the connection is still usable (false after a connection error).
  bool ok() const;
  // ok(), after reading what the server sent meanwhile without waiting: a
  // server that closed the connection (killed, restarted, failed over) is
  // noticed here, before a statement is sent on it. No round trip.
  bool Alive();
  // The SQLSTATE of the last failed statement ("" after a success).
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // For a read: when a statement fails because the connection was lost and
  // no transaction was open on it, `reroute` is called once to move this
  // PgConn onto another server's connection (SwapConnection with a lease of
  // another pool), and the statement runs again there; so do the lease's
  // later statements. Cleared when the connection goes back to its pool.
  void set_reroute(std::function<Status(PgConn&)> reroute) { reroute_ = std::move(reroute); }
  // Exchanges the server connections (with their prepared statements) of
  // this and `other`. A pool closes a connection of another pool's making
  // when it comes back.
  void SwapConnection(PgConn& other);

  // The Pool's failure epoch when this connection was last checked.
  uint64_t checked_epoch = 0;
  // The pool whose Connect made the server connection (SwapConnection moves
  // it along).
  const void* made_by = nullptr;
  // Keyword statistics changes of the open write transaction (pg_text.h);
  // cleared when a transaction begins.
  std::map<std::string, std::pair<int64_t, int64_t>> text_stats_delta;
  // Writes of the open transaction sent in its COMMIT's pipeline
  // (Pool::Transaction), their rows unread unless a statement says where
  // they go (rows_after_commit); cleared when a transaction begins.
  std::vector<PgStatement> before_commit;

 private:
  explicit PgConn(pg_conn* conn) : conn_(conn) {}
  Result<Rows> Check(pg_result* result, std::string_view what);
  // `run` once, and again after reroute_ when it lost an idle connection.
  Result<Rows> WithReroute(const std::function<Result<Rows>()>& run);
  Result<Rows> ExecOnce(std::string_view sql, const Params& params, std::string_view what);
  Result<Rows> ExecPreparedOnce(std::string_view sql, const Params& params, std::string_view what);
  Result<std::vector<Rows>> ExecPipelineOnce(std::span<const PgStatement> statements,
                                             std::string_view what);
  pg_conn* conn_;
  std::function<Status(PgConn&)> reroute_;
  std::string last_sqlstate_;
  std::map<std::string, std::string, std::less<>> prepared_;  // SQL text -> statement name
  // Names of statements prepared in a pipeline: never reused, since a
  // pipeline that failed may have prepared them on the server anyway.
  int64_t pipeline_prepared_ = 0;
};

struct PoolOptions {
  std::string url;
  // Run on every new connection (search_path, say).
  std::string init_sql;
  int size = 4;
  // Connection attempts at start-up before giving up, `retry_delay` apart.
  int connect_attempts = 5;
  std::chrono::milliseconds retry_delay{500};
  // false: Open connects nothing and each connection is made on first use
  // (a standby that is down at start-up does not stop the process).
  bool connect_at_open = true;
  // After a failed reconnect, Acquire refuses at once for this long,
  // doubling with each further failure up to `backoff_max`; a success
  // resets it.
  std::chrono::milliseconds backoff_first{50};
  std::chrono::milliseconds backoff_max{200};
  // Each Transaction reads the WAL position after its COMMIT, in the same
  // round trip (last_commit_lsn()).
  bool track_commit_lsn = false;
  std::shared_ptr<Logger> logger = StderrLogger();  // each retry is a warning
};

class Pool {
 public:
  // Connects `options.size` connections, retrying while the server is not
  // reachable yet; the error names the server (without the password).
  static Result<std::unique_ptr<Pool>> Open(const PoolOptions& options);

  class Lease {
   public:
    Lease(Pool* pool, std::unique_ptr<PgConn> conn) : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&&) = default;
    ~Lease();
    PgConn& operator*() { return *conn_; }
    PgConn* operator->() { return conn_.get(); }

   private:
    Pool* pool_;
    std::unique_ptr<PgConn> conn_;
  };

  // A connection; a broken one is replaced (reconnecting) before it is
  // handed out. kUnavailable when the server cannot be reached, at once
  // while the backoff of a failed reconnect lasts.
  Result<Lease> Acquire();
  // Whether a reconnect failed and its backoff has not passed yet.
  bool backing_off() const;

  // Runs `body` in a transaction on one connection: BEGIN, body, COMMIT.
  // Retried from the start (a new BEGIN) up to a few times when the server
  // reports a serialization failure or deadlock, or the connection breaks
  // before COMMIT was sent; `body` must therefore keep no state across
  // attempts outside what it returns. A connection lost at COMMIT leaves the
  // outcome unknown: never retried, the caller gets kUnavailable.
  // `first` goes in BEGIN's pipeline (one round trip: the writer lock, say),
  // the connection's before_commit statements in COMMIT's, with the read of
  // the WAL position.
  Status Transaction(std::string_view what, const std::function<Status(PgConn&)>& body,
                     std::span<const PgStatement> first = {});
  // The server's WAL write position after the latest committed
  // Transaction (0 before any, or without track_commit_lsn): a standby that
  // has replayed up to it sees everything those transactions saw and wrote.
  uint64_t last_commit_lsn() const { return last_commit_lsn_.load(); }
  // Raises last_commit_lsn() to the server's WAL position now: reads routed
  // by it then see everything committed so far (a migration at start-up).
  Status NoteWalPosition();

  // The url without its password, for messages.
  const std::string& where() const { return where_; }

 private:
  explicit Pool(PoolOptions options);
  void Return(std::unique_ptr<PgConn> conn);
  // A new connection, unless the backoff of a failed one lasts.
  Result<std::unique_ptr<PgConn>> Reconnect();
  Status Commit(PgConn& conn, std::string_view what);
  void RaiseCommitLsn(uint64_t lsn);

  PoolOptions options_;
  std::string where_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Slots; nullptr: not connected (a broken connection is dropped on return).
  std::vector<std::unique_ptr<PgConn>> idle_;
  uint64_t epoch_ = 0;  // raised when a broken connection comes back; guarded by mu_
  // Reconnect backoff, guarded by mu_: refusing until retry_at_, with
  // last_error_ as the reason.
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds backoff_{0};
  std::string last_error_;
  std::atomic<uint64_t> last_commit_lsn_{0};
};

// The url with any password replaced by "***".
std::string RedactUrl(std::string_view url);

}  // namespace mnemo::storage::internal::pg

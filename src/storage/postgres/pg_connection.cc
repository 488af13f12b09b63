#include "storage/postgres/pg_connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <algorithm>
#include <charconv>
#include <thread>

#include "base/request_trace.h"

namespace mnemo::storage::internal::pg {
namespace {

constexpr int kTransactionAttempts = 5;

bool Retryable(const PgConn& conn) {
  const std::string& state = conn.last_sqlstate();
  return !conn.ok() || state == "40001" || state == "40P01" || state.starts_with("08");
}

Status StatusFor(std::string_view state, std::string_view what, std::string_view detail) {
  std::string msg = std::string(what) + ": " + std::string(detail);
  if (!state.empty()) msg += " (SQLSTATE " + std::string(state) + ")";
  if (state.starts_with("23")) return Conflict(std::move(msg));
  if (state.empty() || state.starts_with("08") || state == "40001" || state == "40P01" ||
      state.starts_with("53") || state.starts_with("57")) {
    return Unavailable(std::move(msg));
  }
  // data_corrupted, index_corrupted
  if (state == "XX001" || state == "XX002") return Corruption(std::move(msg));
  return Internal(std::move(msg));
}

// The server's primary message without SQL text: libpq's message may quote
// the statement in its context lines, so only the first line is kept.
std::string FirstLine(const char* text) {
  std::string s = text == nullptr ? "" : text;
  if (auto nl = s.find('\n'); nl != std::string::npos) s.resize(nl);
  return s;
}

}  // namespace

uint64_t ParseLsn(std::string_view text) {
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) return 0;
  uint64_t high = 0;
  uint64_t low = 0;
  const auto [h, he] = std::from_chars(text.data(), text.data() + slash, high, 16);
  const auto [l, le] = std::from_chars(text.data() + slash + 1, text.data() + text.size(), low, 16);
  if (he != std::errc() || le != std::errc() || h != text.data() + slash ||
      l != text.data() + text.size() || high > 0xFFFFFFFFu || low > 0xFFFFFFFFu) {
    return 0;
  }
  return high << 32 | low;
}

std::string RedactUrl(std::string_view url) {
  // postgresql://user:password@host/... -> postgresql://user:***@host/...
  std::string out(url);
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t at = out.find('@', scheme + 3);
    const size_t colon = out.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // key=value form: password=... up to the next space.
  if (size_t p = out.find("password="); p != std::string::npos) {
    size_t end = out.find(' ', p);
    out.replace(p + 9, (end == std::string::npos ? out.size() : end) - p - 9, "***");
  }
  return out;
}

// --- PgConn ---

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& url,
                                                const std::string& init_sql) {
  // Defaults first: a setting in `url` comes later and wins. Without a
  // connect_timeout a host that drops packets holds a reconnect for the
  // kernel's TCP timeout (minutes).
  const char* const keys[] = {"connect_timeout",  "keepalives_idle", "keepalives_interval",
                              "keepalives_count", "dbname",          nullptr};
  const char* const values[] = {"3", "10", "3", "3", url.c_str(), nullptr};
  pg_conn* conn = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Unavailable("cannot connect to PostgreSQL: out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = FirstLine(PQerrorMessage(conn));
    PQfinish(conn);
    return Unavailable("cannot connect to PostgreSQL at " + RedactUrl(url) + ": " + msg);
  }
  std::unique_ptr<PgConn> c(new PgConn(conn));
  // Quiet notices (they would go to stderr); UTC; hex bytea.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  MNEMO_RETURN_IF_ERROR(
      c->ExecScript("SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC'; SET bytea_output = 'hex'",
                    "configure the connection"));
  if (!init_sql.empty()) MNEMO_RETURN_IF_ERROR(c->ExecScript(init_sql, "configure the connection"));
  return c;
}

PgConn::~PgConn() {
  if (conn_ != nullptr) PQfinish(conn_);
}

bool PgConn::ok() const { return PQstatus(conn_) == CONNECTION_OK; }

bool PgConn::Alive() {
  // An idle connection has nothing to read unless the server closed it or
  // said something first: one poll that does not wait tells, where a read
  // would cost two (every statement of a search acquires a connection).
  // Not under TLS, whose library may hold bytes already read off the socket.
  if (!ok()) return false;
  if (PQsslInUse(conn_) == 0) {
    pollfd fd{.fd = PQsocket(conn_), .events = POLLIN, .revents = 0};
    if (fd.fd >= 0 && ::poll(&fd, 1, 0) == 0) return true;
  }
  // PQconsumeInput reads what came, which turns the status bad at once on a
  // reset or a bare EOF (a killed server); a server that says goodbye first
  // (terminated, shut down) sends a message the first call reads and the
  // second call finds the EOF behind it.
  for (int i = 0; i < 2 && ok(); ++i) {
    if (PQconsumeInput(conn_) == 0) return false;
  }
  return ok();
}

Result<Rows> PgConn::Check(pg_result* result, std::string_view what) {
  Rows rows(result);
  const ExecStatusType st = result == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(result);
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    last_sqlstate_.clear();
    return rows;
  }
  const char* state = result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_SQLSTATE);
  last_sqlstate_ = state == nullptr ? (ok() ? "XX000" : "08006") : state;
  const char* primary =
      result == nullptr ? nullptr : PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  return StatusFor(last_sqlstate_, what,
                   FirstLine(primary != nullptr ? primary : PQerrorMessage(conn_)));
}

Result<Rows> PgConn::WithReroute(const std::function<Result<Rows>()>& run) {
  const bool idle = PQtransactionStatus(conn_) == PQTRANS_IDLE;
  Result<Rows> rows = run();
  if (rows.ok() || ok() || !idle || !reroute_) return rows;
  // Nothing of a transaction was lost with the connection: the statement
  // may run again elsewhere. Once per lease.
  const std::function<Status(PgConn&)> reroute = std::move(reroute_);
  reroute_ = nullptr;
  if (!reroute(*this).ok()) return rows;
  return run();
}

void PgConn::SwapConnection(PgConn& other) {
  std::swap(conn_, other.conn_);
  std::swap(prepared_, other.prepared_);
  std::swap(pipeline_prepared_, other.pipeline_prepared_);
  std::swap(made_by, other.made_by);
}

Result<Rows> PgConn::Exec(std::string_view sql, const Params& params, std::string_view what) {
  mnemo::internal::ScopedStage stage("pg");
  if (reroute_) return WithReroute([&] { return ExecOnce(sql, params, what); });
  return ExecOnce(sql, params, what);
}

Result<Rows> PgConn::ExecPrepared(std::string_view sql, const Params& params,
                                  std::string_view what) {
  mnemo::internal::ScopedStage stage("pg");
  if (reroute_) return WithReroute([&] { return ExecPreparedOnce(sql, params, what); });
  return ExecPreparedOnce(sql, params, what);
}

Result<Rows> PgConn::ExecOnce(std::string_view sql, const Params& params, std::string_view what) {
  const std::string text(sql);
  return Check(PQexecParams(conn_, text.c_str(), params.size(), nullptr, params.values(), nullptr,
                            nullptr, 0),
               what);
}

Result<Rows> PgConn::ExecPreparedOnce(std::string_view sql, const Params& params,
                                      std::string_view what) {
  auto it = prepared_.find(sql);
  if (it == prepared_.end()) {
    const std::string name = "mnemo_" + std::to_string(prepared_.size() + 1);
    const std::string text(sql);
    MNEMO_RETURN_IF_ERROR(
        Check(PQprepare(conn_, name.c_str(), text.c_str(), params.size(), nullptr), what).status());
    it = prepared_.emplace(text, name).first;
  }
  return Check(PQexecPrepared(conn_, it->second.c_str(), params.size(), params.values(), nullptr,
                              nullptr, 0),
               what);
}

Result<std::vector<Rows>> PgConn::ExecPipeline(std::span<const PgStatement> statements,
                                               std::string_view what) {
  // Time on the server and the way to it, for the request's debug line
  // (request_trace.h): every statement of a request goes through one of
  // Exec, ExecPrepared, ExecPipeline or ExecScriptRows.
  mnemo::internal::ScopedStage stage("pg");
  if (!reroute_) return ExecPipelineOnce(statements, what);
  // A read's pipeline runs again elsewhere like a read's statement.
  std::vector<Rows> out;
  MNEMO_RETURN_IF_ERROR(WithReroute([&]() -> Result<Rows> {
                          MNEMO_ASSIGN_OR_RETURN(out, ExecPipelineOnce(statements, what));
                          return Rows(nullptr);
                        }).status());
  return out;
}

Result<std::vector<Rows>> PgConn::ExecPipelineOnce(std::span<const PgStatement> statements,
                                                   std::string_view what) {
  std::vector<Rows> out;
  if (statements.empty()) return out;
  if (PQenterPipelineMode(conn_) != 1) return Check(nullptr, what).status();
  // One result per entry: a statement's rows (true) or a prepare's (false).
  std::vector<bool> rows_of;
  std::vector<std::pair<std::string, std::string>> preparing;  // SQL text, name
  bool all_sent = true;
  for (const PgStatement& st : statements) {
    int sent = 0;
    if (!st.prepared) {
      sent = PQsendQueryParams(conn_, st.sql.c_str(), st.params.size(), nullptr, st.params.values(),
                               nullptr, nullptr, st.binary_results ? 1 : 0);
    } else {
      std::string name;
      if (auto it = prepared_.find(st.sql); it != prepared_.end()) {
        name = it->second;
      } else if (auto p = std::find_if(preparing.begin(), preparing.end(),
                                       [&](const auto& e) { return e.first == st.sql; });
                 p != preparing.end()) {
        name = p->second;
      } else {
        name = "mnemo_pipeline_" + std::to_string(++pipeline_prepared_);
        if (PQsendPrepare(conn_, name.c_str(), st.sql.c_str(), st.params.size(), nullptr) != 1) {
          all_sent = false;
          break;
        }
        rows_of.push_back(false);
        preparing.emplace_back(st.sql, name);
      }
      sent = PQsendQueryPrepared(conn_, name.c_str(), st.params.size(), st.params.values(), nullptr,
                                 nullptr, st.binary_results ? 1 : 0);
    }
    if (sent != 1) {
      all_sent = false;
      break;
    }
    rows_of.push_back(true);
  }
  const size_t sent = rows_of.size();
  const bool synced = PQpipelineSync(conn_) == 1;
  Status failed = Status::Ok();
  if (!all_sent || !synced) failed = Check(nullptr, what).status();
  // Each statement's result, then a null; a statement after a failure
  // comes back aborted; then the sync's result.
  for (size_t i = 0; i < sent && synced; ++i) {
    pg_result* result = PQgetResult(conn_);
    if (result == nullptr) {
      if (failed.ok()) failed = Check(nullptr, what).status();
      break;
    }
    if (PQresultStatus(result) == PGRES_PIPELINE_ABORTED) {
      PQclear(result);
    } else if (Result<Rows> rows = Check(result, what); !rows.ok()) {
      if (failed.ok()) failed = rows.status();
    } else if (rows_of[i]) {
      out.push_back(std::move(rows).value());
    }
    while (pg_result* rest = PQgetResult(conn_)) PQclear(rest);
  }
  if (synced && ok()) {
    pg_result* sync = PQgetResult(conn_);
    if (sync != nullptr) PQclear(sync);
  }
  if (ok()) (void)PQexitPipelineMode(conn_);
  if (!failed.ok()) {
    if (!ok()) last_sqlstate_ = "08006";
    return failed;
  }
  for (auto& [sql, name] : preparing) prepared_.emplace(std::move(sql), std::move(name));
  return out;
}

Status PgConn::CopyIn(std::string_view copy_sql, std::string_view data, std::string_view what) {
  constexpr size_t kChunk = 1 << 20;
  size_t at = 0;
  return CopyIn(
      copy_sql,
      [&]() -> std::optional<std::string_view> {
        if (at >= data.size()) return std::nullopt;
        const std::string_view chunk = data.substr(at, kChunk);
        at += chunk.size();
        return chunk;
      },
      what);
}

Status PgConn::CopyIn(std::string_view copy_sql,
                      const std::function<std::optional<std::string_view>()>& next,
                      std::string_view what) {
  const std::string text(copy_sql);
  pg_result* start = PQexec(conn_, text.c_str());
  if (start == nullptr || PQresultStatus(start) != PGRES_COPY_IN)
    return Check(start, what).status();
  PQclear(start);
  constexpr size_t kMaxPut = 1 << 20;  // PQputCopyData takes an int
  bool sent = true;
  while (sent) {
    const std::optional<std::string_view> chunk = next();
    if (!chunk) break;
    for (size_t i = 0; sent && i < chunk->size(); i += kMaxPut) {
      const size_t n = std::min(kMaxPut, chunk->size() - i);
      sent = PQputCopyData(conn_, chunk->data() + i, static_cast<int>(n)) == 1;
    }
  }
  if (PQputCopyEnd(conn_, sent ? nullptr : "the client could not send the rows") != 1) {
    return Check(nullptr, what).status();
  }
  Status status = Check(PQgetResult(conn_), what).status();
  while (pg_result* rest = PQgetResult(conn_)) PQclear(rest);
  return status;
}

Status PgConn::ExecScript(std::string_view sql, std::string_view what) {
  return ExecScriptRows(sql, what).status();
}

Result<Rows> PgConn::ExecScriptRows(std::string_view sql, std::string_view what) {
  mnemo::internal::ScopedStage stage("pg");
  const std::string text(sql);
  if (reroute_) return WithReroute([&] { return Check(PQexec(conn_, text.c_str()), what); });
  return Check(PQexec(conn_, text.c_str()), what);
}

// --- Pool ---

Pool::Pool(PoolOptions options) : options_(std::move(options)), where_(RedactUrl(options_.url)) {}

Result<std::unique_ptr<Pool>> Pool::Open(const PoolOptions& options) {
  if (options.url.empty()) {
    return InvalidArgument(
        "memory.backend = \"postgres\" needs a server: set [postgres] url "
        "(for example \"postgresql://mnemo@localhost:5432/mnemo\")",
        "postgres.url");
  }
  std::unique_ptr<Pool> pool(new Pool(options));
  if (!options.connect_at_open) {
    pool->idle_.resize(static_cast<size_t>(std::max(1, options.size)));
    return pool;
  }
  for (int i = 0; i < std::max(1, options.size); ++i) {
    Result<std::unique_ptr<PgConn>> conn = Unavailable("not tried");
    for (int attempt = 1; attempt <= std::max(1, options.connect_attempts); ++attempt) {
      conn = PgConn::Connect(options.url, options.init_sql);
      if (conn.ok()) break;
      if (attempt < options.connect_attempts) {
        options.logger->Log(LogLevel::kWarn, conn.status().message() + "; retrying (" +
                                                 std::to_string(attempt) + "/" +
                                                 std::to_string(options.connect_attempts) + ")");
        std::this_thread::sleep_for(options.retry_delay);
      }
    }
    if (!conn.ok()) return conn.status();
    conn.value()->made_by = pool.get();
    pool->idle_.push_back(std::move(conn).value());
  }
  return pool;
}

Pool::Lease::~Lease() {
  if (conn_ != nullptr) pool_->Return(std::move(conn_));
}

void Pool::Return(std::unique_ptr<PgConn> conn) {
  {
    std::lock_guard lock(mu_);
    // A broken connection means the others may be broken too (a restarted
    // server): each is checked before its next use. The broken one is
    // dropped; its slot reconnects when next acquired.
    if (conn != nullptr && !conn->ok()) {
      ++epoch_;
      conn.reset();
    } else if (conn != nullptr && conn->made_by != this) {
      conn.reset();  // rerouted to another server: this slot reconnects on use
    }
    if (conn != nullptr) conn->set_reroute(nullptr);
    idle_.push_back(std::move(conn));
  }
  cv_.notify_one();
}

bool Pool::backing_off() const {
  std::lock_guard lock(mu_);
  return std::chrono::steady_clock::now() < retry_at_;
}

Result<std::unique_ptr<PgConn>> Pool::Reconnect() {
  {
    std::lock_guard lock(mu_);
    const auto now = std::chrono::steady_clock::now();
    if (now < retry_at_) {
      return Unavailable(
          last_error_ + " (next attempt in " +
          std::to_string(
              std::chrono::duration_cast<std::chrono::milliseconds>(retry_at_ - now).count()) +
          " ms)");
    }
  }
  auto fresh = PgConn::Connect(options_.url, options_.init_sql);
  std::lock_guard lock(mu_);
  if (fresh.ok()) {
    if (backoff_.count() > 0) {
      options_.logger->Log(LogLevel::kInfo, "reconnected to PostgreSQL at " + where_);
    }
    backoff_ = std::chrono::milliseconds(0);
    retry_at_ = {};
    fresh.value()->made_by = this;
    return fresh;
  }
  if (backoff_.count() == 0) {
    options_.logger->Log(LogLevel::kWarn, fresh.status().message() +
                                              "; retrying with a backoff of up to " +
                                              std::to_string(options_.backoff_max.count()) + " ms");
  }
  backoff_ =
      backoff_.count() == 0 ? options_.backoff_first : std::min(backoff_ * 2, options_.backoff_max);
  retry_at_ = std::chrono::steady_clock::now() + backoff_;
  last_error_ = fresh.status().message();
  return fresh;
}

Result<Pool::Lease> Pool::Acquire() {
  std::unique_ptr<PgConn> conn;
  uint64_t epoch = 0;
  {
    mnemo::internal::ScopedStage stage("pool");  // waiting for a free connection
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !idle_.empty(); });
    conn = std::move(idle_.back());
    idle_.pop_back();
    epoch = epoch_;
  }
  if (conn != nullptr && conn->Alive() && conn->checked_epoch != epoch) {
    // libpq notices a dead server only when a statement fails: one cheap
    // statement now, so the caller's own is not the one that finds out.
    (void)conn->ExecScript("SELECT 1", "check the connection");
  }
  if (conn == nullptr || !conn->ok()) {
    // Never connected, or the server restarted, failed over or the network
    // dropped: one fresh connection.
    auto fresh = Reconnect();
    if (!fresh.ok()) {
      Return(std::move(conn));  // keep the slot; a later call tries again
      return fresh.status();
    }
    conn = std::move(fresh).value();
  }
  conn->checked_epoch = epoch;
  return Lease(this, std::move(conn));
}

Status Pool::Commit(PgConn& conn, std::string_view what) {
  std::vector<PgStatement> statements = std::move(conn.before_commit);
  conn.before_commit.clear();
  if (statements.empty() && !options_.track_commit_lsn) return conn.ExecScript("COMMIT", what);
  // One round trip: the transaction's last writes, the COMMIT and the
  // position read right after it, so it covers this transaction's commit
  // record (and at most a little more).
  statements.push_back({.sql = "COMMIT"});
  if (options_.track_commit_lsn) statements.push_back({.sql = "SELECT pg_current_wal_lsn()::text"});
  MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> rows, conn.ExecPipeline(statements, what));
  for (size_t i = 0; i < statements.size() && i < rows.size(); ++i) {
    if (statements[i].rows_after_commit != nullptr) {
      *statements[i].rows_after_commit = std::move(rows[i]);
    }
  }
  if (options_.track_commit_lsn) {
    RaiseCommitLsn(rows.empty() || rows.back().empty() ? 0 : ParseLsn(rows.back().Text(0, 0)));
  }
  return Status::Ok();
}

void Pool::RaiseCommitLsn(uint64_t lsn) {
  uint64_t seen = last_commit_lsn_.load();
  while (lsn > seen && !last_commit_lsn_.compare_exchange_weak(seen, lsn)) {
  }
}

Status Pool::NoteWalPosition() {
  MNEMO_ASSIGN_OR_RETURN(Lease lease, Acquire());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         lease->Exec("SELECT pg_current_wal_lsn()::text", "read the WAL position"));
  RaiseCommitLsn(rows.empty() ? 0 : ParseLsn(rows.Text(0, 0)));
  return Status::Ok();
}

Status Pool::Transaction(std::string_view what, const std::function<Status(PgConn&)>& body,
                         std::span<const PgStatement> first) {
  Status last = Status::Ok();
  for (int attempt = 1; attempt <= kTransactionAttempts; ++attempt) {
    MNEMO_ASSIGN_OR_RETURN(Lease lease, Acquire());
    PgConn& conn = *lease;
    conn.text_stats_delta.clear();
    conn.before_commit.clear();
    if (first.empty()) {
      last = conn.ExecScript("BEGIN", what);
    } else {
      std::vector<PgStatement> begin = {{.sql = "BEGIN"}};
      begin.insert(begin.end(), first.begin(), first.end());
      last = conn.ExecPipeline(begin, what).status();
    }
    if (last.ok()) last = body(conn);
    if (last.ok()) {
      last = Commit(conn, what);
      // A broken connection at COMMIT leaves the outcome unknown: not
      // retried (it may have committed), the caller gets the error.
      if (last.ok() || !conn.ok()) return last;
    }
    const bool retry = Retryable(conn);
    if (conn.ok()) (void)conn.ExecScript("ROLLBACK", "roll back");
    if (!retry) return last;
    std::this_thread::sleep_for(std::chrono::milliseconds(10 * attempt));
  }
  return last;
}

}  // namespace mnemo::storage::internal::pg

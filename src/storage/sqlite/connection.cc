#include "storage/sqlite/connection.h"

#include <utility>

namespace mnemo::storage::internal {

Status SqliteStatus(int rc, std::string_view what) {
  std::string message = std::string(what) + ": " + sqlite3_errstr(rc);
  switch (rc & 0xff) {
    case SQLITE_CONSTRAINT: return Conflict(std::move(message));
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_PERM: return Unavailable(std::move(message));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB: return Corruption(std::move(message));
    default: return Internal(std::move(message));
  }
}

void DamageLatch::Set(std::string_view why) {
  std::lock_guard lock(mu_);
  if (set_.load(std::memory_order_relaxed)) return;
  why_ = std::string(why);
  set_.store(true, std::memory_order_release);
}

std::string DamageLatch::Why() const {
  std::lock_guard lock(mu_);
  return why_;
}

Statement::~Statement() {
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

void Statement::Bind(int index, std::string_view text) {
  // A non-null pointer even for "" so the value is '' and not NULL.
  sqlite3_bind_text(stmt_, index, text.empty() ? "" : text.data(), static_cast<int>(text.size()),
                    SQLITE_STATIC);
}

void Statement::Bind(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }

void Statement::Bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }

void Statement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }

void Statement::BindBlob(int index, std::string_view bytes) {
  // A non-null pointer even when empty so the value is a zero-length BLOB.
  sqlite3_bind_blob(stmt_, index, bytes.empty() ? "" : bytes.data(), static_cast<int>(bytes.size()),
                    SQLITE_STATIC);
}

Result<bool> Statement::Step(std::string_view what) {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status s = SqliteStatus(rc, what);
  if (damage_ != nullptr && s.code() == StatusCode::kCorruption) damage_->Set(s.message());
  return s;
}

Status Statement::Run(std::string_view what) {
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, Step(what));
    if (!row) return Status::Ok();
  }
}

void Statement::Reset() { sqlite3_reset(stmt_); }

std::string_view Statement::ColumnText(int col) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  const int size = sqlite3_column_bytes(stmt_, col);
  return text == nullptr ? std::string_view() : std::string_view(text, size);
}

std::string_view Statement::ColumnBlob(int col) const {
  const auto* bytes = static_cast<const char*>(sqlite3_column_blob(stmt_, col));
  const int size = sqlite3_column_bytes(stmt_, col);
  return bytes == nullptr ? std::string_view() : std::string_view(bytes, size);
}

int64_t Statement::ColumnInt(int col) const { return sqlite3_column_int64(stmt_, col); }

double Statement::ColumnDouble(int col) const { return sqlite3_column_double(stmt_, col); }

bool Statement::ColumnIsNull(int col) const {
  return sqlite3_column_type(stmt_, col) == SQLITE_NULL;
}

Connection::~Connection() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path, bool create,
                                                     int busy_timeout_ms) {
  sqlite3* db = nullptr;
  // NOMUTEX: each connection is used by one thread at a time (see header).
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (create) flags |= SQLITE_OPEN_CREATE;
  const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    return SqliteStatus(rc, "open database " + path);
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<Connection>(new Connection(db));
}

namespace {

// `path` as an SQLite URI path: '%', '?' and '#' (and every byte that is
// not printable ASCII) percent-encoded.
std::string UriPath(const std::string& path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : path) {
    const auto c = static_cast<unsigned char>(ch);
    if (c <= 0x20 || c >= 0x7f || c == '%' || c == '?' || c == '#') {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace

Result<std::unique_ptr<Connection>> Connection::OpenReadOnly(const std::string& path,
                                                             bool immutable, int busy_timeout_ms) {
  sqlite3* db = nullptr;
  const std::string uri =
      "file:" + UriPath(path) + (immutable ? "?mode=ro&immutable=1" : "?mode=ro");
  const int rc = sqlite3_open_v2(
      uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_close_v2(db);
    return SqliteStatus(rc, "open database " + path + " for reading");
  }
  sqlite3_extended_result_codes(db, 1);
  sqlite3_busy_timeout(db, busy_timeout_ms);
  return std::unique_ptr<Connection>(new Connection(db));
}

Status Connection::Exec(const char* sql, std::string_view what) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return Status::Ok();
  Status s = SqliteStatus(rc, what);
  NoteDamage(s);
  return s;
}

void Connection::NoteDamage(const Status& status) {
  if (damage_ != nullptr && status.code() == StatusCode::kCorruption)
    damage_->Set(status.message());
}

Result<Statement> Connection::Prepare(const std::string& sql, std::string_view what) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return Statement(it->second, damage_.get());
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    Status s = SqliteStatus(rc, what);
    NoteDamage(s);
    return s;
  }
  cache_.emplace(sql, stmt);
  return Statement(stmt, damage_.get());
}

Result<Transaction> Transaction::Begin(Connection& conn) {
  if (!conn.write_refusal().empty()) return Unavailable(conn.write_refusal());
  if (const DamageLatch* damage = conn.damage_latch(); damage != nullptr && damage->set()) {
    return Corruption("the database is damaged (" + damage->Why() +
                      "); writes are refused so that they cannot spread the damage: read or "
                      "export what is readable, then restore a backup into a new workspace");
  }
  MNEMO_RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE", "begin transaction"));
  return Transaction(&conn);
}

Result<Transaction> Transaction::BeginRead(Connection& conn) {
  MNEMO_RETURN_IF_ERROR(conn.Exec("BEGIN", "begin a read transaction"));
  return Transaction(&conn);
}

Transaction::~Transaction() {
  if (conn_ != nullptr) (void)conn_->Exec("ROLLBACK", "roll back transaction");
}

Status Transaction::Commit() {
  Connection* conn = std::exchange(conn_, nullptr);
  Status s = conn->Exec("COMMIT", "commit transaction");
  if (!s.ok()) (void)conn->Exec("ROLLBACK", "roll back transaction");
  return s;
}

}  // namespace mnemo::storage::internal

#include "storage/sqlite/sqlite_database.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "storage/sqlite/checkpointer.h"
#include "storage/sqlite/fts/fts_rank.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/fts/text_version.h"
#include "storage/sqlite/migrations.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {
namespace {

constexpr int kBusyTimeoutMs = 5000;

// Creates the file with mode 0600 when missing so that SQLite (which would
// use 0644) never makes it readable by others; -wal and -shm inherit it.
Status CreatePrivateFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ::close(fd);
    return Status::Ok();
  }
  if (errno == EEXIST) return Status::Ok();
  return Unavailable("cannot create database " + path + ": " + std::strerror(errno));
}

// Why the database at `path` can take no writes, in words naming the cause
// ("the file system holding /w is read-only", "the disk holding /w is
// full", "/w is not writable: Permission denied"); "" when it looks
// writable, so a failure to open it is something else.
std::string WhyNoWrites(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  struct statvfs vfs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &vfs) == 0) {
    if ((vfs.f_flag & ST_RDONLY) != 0) return "the file system holding " + dir + " is read-only";
    if (vfs.f_bavail == 0) return "the disk holding " + dir + " is full";
  }
  if (::access(dir.empty() ? "." : dir.c_str(), W_OK) != 0 || ::access(path.c_str(), W_OK) != 0) {
    return dir + " is not writable: " + std::strerror(errno);
  }
  return "";
}

Result<std::unique_ptr<Connection>> OpenConnection(const std::string& path, OpenMode mode,
                                                   std::shared_ptr<DamageLatch> damage) {
  const bool writer = mode == OpenMode::kWriter;
  MNEMO_ASSIGN_OR_RETURN(
      std::unique_ptr<Connection> conn,
      mode == OpenMode::kWriter || mode == OpenMode::kReader
          ? Connection::Open(path, writer, kBusyTimeoutMs)
          : Connection::OpenReadOnly(path, mode == OpenMode::kImmutable, kBusyTimeoutMs));
  conn->ShareDamageLatch(std::move(damage));
  MNEMO_RETURN_IF_ERROR(RegisterFtsTokenizer(conn->handle()));
  MNEMO_RETURN_IF_ERROR(RegisterFtsRank(conn->handle()));
  MNEMO_RETURN_IF_ERROR(RegisterEntryFunctions(conn->handle()));
  // secure_delete (spec 10, "Erasure"): deleted content is overwritten
  // with zeros, so erased text does not stay in free pages or cell gaps.
  // Reads through a memory map: copying pages out of the kernel with pread
  // was the largest single cost of a keyword search at 100k entries. The map
  // covers the first 256 MiB of the file (ds100k's keyword database is 84 MB):
  // each connection maps the file on its own and RSS counts a page once per
  // mapping, so at 1 GiB the six connections of a 1M-entry store (a 3 GB
  // file) held 2.2 GB of file pages and the process peaked at 4.2 GB RSS.
  MNEMO_RETURN_IF_ERROR(
      conn->Exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
                 "PRAGMA secure_delete = ON; "
                 "PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 268435456",
                 "configure the connection"));
  if (writer) {
    // 32 MiB of page cache keeps a 100k-entry import from re-reading pages.
    MNEMO_RETURN_IF_ERROR(conn->Exec("PRAGMA journal_mode = WAL; PRAGMA cache_size = -32768",
                                     "configure the writer connection"));
  } else {
    MNEMO_RETURN_IF_ERROR(conn->Exec("PRAGMA query_only = ON; PRAGMA cache_size = -16384",
                                     "configure a reader connection"));
  }
  return conn;
}

}  // namespace

Result<std::shared_ptr<SqliteDatabase>> SqliteDatabase::Open(const SqliteOptions& options,
                                                             int64_t vector_log_limit) {
  if (options.path.empty()) return InvalidArgument("the database path must not be empty", "path");
  std::shared_ptr<SqliteDatabase> database(new SqliteDatabase(options, vector_log_limit));
  // A database on a file system that takes no writes (read-only, full)
  // still answers reads: opened read-only, every write refused naming why.
  Status writable = CreatePrivateFile(options.path);
  if (writable.ok()) {
    auto writer = OpenConnection(options.path, OpenMode::kWriter, database->damage_);
    writable = writer.status();
    if (writer.ok()) database->writer_ = std::move(writer).value();
  }
  Result<int> migrated =
      writable.ok() ? Migrate(*database->writer_, SchemaMigrations()) : Result<int>(writable);
  if (!migrated.ok()) {
    const std::string why = migrated.status().code() == StatusCode::kUnavailable
                                ? WhyNoWrites(options.path)
                                : std::string();
    if (why.empty() || !std::filesystem::exists(options.path)) return migrated.status();
    database->writer_.reset();
    MNEMO_RETURN_IF_ERROR(database->OpenReadOnly(why));
    return database;
  }
  database->schema_version_ = *migrated;
  MNEMO_ASSIGN_OR_RETURN(const int64_t reindexed, EnsureTextVersion(*database->writer_));
  if (reindexed > 0) {
    options.logger->Log(LogLevel::kInfo,
                        "rebuilt the keyword index of " + options.path + " for text version " +
                            std::to_string(text::kTextVersion) + " (" + std::to_string(reindexed) +
                            " rows); run `mnemo reindex` to refresh the hash "
                            "embedder's vectors");
  }
  MNEMO_RETURN_IF_ERROR(database->OpenReaders(OpenMode::kReader, ""));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<Connection> checkpoints,
                         OpenConnection(options.path, OpenMode::kReader, database->damage_));
  database->checkpointer_ =
      std::make_unique<Checkpointer>(std::move(checkpoints), *database->writer_, options.logger);
  return database;
}

Status SqliteDatabase::OpenReadOnly(const std::string& why) {
  const SqliteOptions& options = options_;
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(options.path + "-wal", ec);
  // Immutable (no lock, no -shm to create) unless a -wal holds changes that
  // only a plain read-only open, through the -shm beside it, reads.
  const OpenMode mode = !ec && wal_bytes > 0 ? OpenMode::kReadOnly : OpenMode::kImmutable;
  const std::string refusal = "the workspace database " + options.path +
                              " is open read-only: " + why +
                              "; writes are refused until it can take them again";
  MNEMO_ASSIGN_OR_RETURN(writer_, OpenConnection(options.path, mode, damage_));
  writer_->RefuseWrites(refusal);
  MNEMO_ASSIGN_OR_RETURN(schema_version_, ReadSchemaVersion(*writer_));
  if (schema_version_ != LatestSchemaVersion()) {
    return Unavailable("the database " + options.path + " has schema version " +
                       std::to_string(schema_version_) + " and this mnemo reads version " +
                       std::to_string(LatestSchemaVersion()) + " only after a migration, which " +
                       "cannot run: " + why);
  }
  MNEMO_RETURN_IF_ERROR(OpenReaders(mode, refusal));
  options.logger->Log(LogLevel::kWarn, refusal + "; reads are answered");
  return Status::Ok();
}

Status SqliteDatabase::OpenReaders(OpenMode mode, const std::string& refusal) {
  const SqliteOptions& options = options_;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement id,
                           writer_->Prepare("SELECT id FROM store_info", "read the store id"));
    MNEMO_ASSIGN_OR_RETURN(bool row, id.Step("read the store id"));
    if (!row) return Internal("the database has no store id (table store_info is empty)");
    store_id_ = id.ColumnText(0);
  }
  for (int i = 0; i < std::max(1, options.readers); ++i) {
    MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<Connection> reader,
                           OpenConnection(options.path, mode, damage_));
    if (!refusal.empty()) reader->RefuseWrites(refusal);
    memos_[reader.get()] = std::make_unique<ScoreStatsMemo>();
    idle_readers_.push_back(std::move(reader));
  }
  return Status::Ok();
}

SqliteDatabase::SqliteDatabase(const SqliteOptions& options, int64_t vector_log_limit)
    : options_(options) {
  writer_state_.trim = VectorLogTrimPolicy(vector_log_limit);
}

SqliteDatabase::~SqliteDatabase() = default;

ReaderLease::~ReaderLease() {
  if (conn_ == nullptr) return;
  {
    std::lock_guard lock(owner_->readers_mu_);
    owner_->idle_readers_.push_back(std::move(conn_));
  }
  owner_->readers_cv_.notify_one();
}

Result<ScoreStatsMemo*> ReaderLease::ValidMemo() {
  ScoreStatsMemo* memo = owner_->memos_.at(conn_.get()).get();
  MNEMO_RETURN_IF_ERROR(memo->Validate(*conn_));
  return memo;
}

ReaderLease SqliteDatabase::AcquireReader() {
  std::unique_lock lock(readers_mu_);
  readers_cv_.wait(lock, [&] { return !idle_readers_.empty(); });
  std::unique_ptr<Connection> conn = std::move(idle_readers_.back());
  idle_readers_.pop_back();
  return ReaderLease(this, std::move(conn));
}

}  // namespace mnemo::storage::internal

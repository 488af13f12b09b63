#include "storage/sqlite/sqlite_backend.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "storage/entry_rules.h"
#include "storage/sqlite/checkpointer.h"
#include "storage/sqlite/entry_bulk.h"
#include "storage/sqlite/entry_sql.h"
#include "storage/sqlite/entry_tokens.h"
#include "storage/sqlite/fts_rank.h"
#include "storage/sqlite/fts_rows.h"
#include "storage/sqlite/fts_tokenizer.h"
#include "storage/sqlite/migrations.h"
#include "storage/sqlite/tags_json.h"
#include "storage/sqlite/text_version.h"
#include "text/tokenizer.h"

namespace mnemo::storage {
namespace internal {
namespace {

constexpr int kBusyTimeoutMs = 5000;
constexpr int kForEachPage = 256;

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

// Removes the FTS5 row `rowid`; a contentless table needs the indexed text.
Status Unindex(Connection& db, int64_t rowid, std::string_view key, std::string_view content) {
  return UnindexFtsRow(db, "entries_fts", rowid, {{"key", key}, {"content", content}});
}

// Replaces the FTS5 row `rowid` (removing the old text when there was one)
// and returns the new document length.
Result<int64_t> Reindex(Connection& db, int64_t rowid, const std::optional<Entry>& old,
                        const Entry& e) {
  if (old) MNEMO_RETURN_IF_ERROR(Unindex(db, rowid, old->key, old->content));
  return IndexFtsRow(db, "entries_fts", rowid, {{"key", e.key}, {"content", e.content}});
}

}  // namespace

Result<std::unique_ptr<SqliteBackend>> SqliteBackend::Open(const SqliteOptions& options,
                                                           int64_t vector_log_limit) {
  if (options.path.empty()) return InvalidArgument("the database path must not be empty", "path");
  std::unique_ptr<SqliteBackend> backend(new SqliteBackend(vector_log_limit));
  // A database on a file system that takes no writes (read-only, full)
  // still answers reads: opened read-only, every write refused naming why.
  Status writable = CreatePrivateFile(options.path);
  if (writable.ok()) {
    auto writer = OpenConnection(options.path, OpenMode::kWriter, backend->damage_);
    writable = writer.status();
    if (writer.ok()) backend->writer_ = std::move(writer).value();
  }
  Result<int> migrated =
      writable.ok() ? Migrate(*backend->writer_, SchemaMigrations()) : Result<int>(writable);
  if (!migrated.ok()) {
    const std::string why = migrated.status().code() == StatusCode::kUnavailable
                                ? WhyNoWrites(options.path)
                                : std::string();
    if (why.empty() || !std::filesystem::exists(options.path)) return migrated.status();
    backend->writer_.reset();
    MNEMO_RETURN_IF_ERROR(backend->OpenReadOnly(options, why));
    return backend;
  }
  backend->schema_version_ = *migrated;
  MNEMO_ASSIGN_OR_RETURN(const int64_t reindexed, EnsureTextVersion(*backend->writer_));
  if (reindexed > 0) {
    options.logger->Log(LogLevel::kInfo,
                        "rebuilt the keyword index of " + options.path + " for text version " +
                            std::to_string(text::kTextVersion) + " (" + std::to_string(reindexed) +
                            " rows); run `mnemo reindex` to refresh the hash "
                            "embedder's vectors");
  }
  MNEMO_RETURN_IF_ERROR(backend->OpenReaders(options, OpenMode::kReader, ""));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<Connection> checkpoints,
                         OpenConnection(options.path, OpenMode::kReader, backend->damage_));
  backend->checkpointer_ =
      std::make_unique<Checkpointer>(std::move(checkpoints), *backend->writer_, options.logger);
  return backend;
}

Status SqliteBackend::OpenReadOnly(const SqliteOptions& options, const std::string& why) {
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
  MNEMO_RETURN_IF_ERROR(OpenReaders(options, mode, refusal));
  options.logger->Log(LogLevel::kWarn, refusal + "; reads are answered");
  return Status::Ok();
}

Status SqliteBackend::OpenReaders(const SqliteOptions& options, OpenMode mode,
                                  const std::string& refusal) {
  {
    MNEMO_ASSIGN_OR_RETURN(Statement id,
                           writer_->Prepare("SELECT id FROM store_info", "read the store id"));
    MNEMO_ASSIGN_OR_RETURN(bool row, id.Step("read the store id"));
    if (!row) return Internal("the database has no store id (table store_info is empty)");
    store_id_ = id.ColumnText(0);
  }
  prune_from_rows_ = options.prune_keyword_search_from_rows;
  for (int i = 0; i < std::max(1, options.readers); ++i) {
    MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<Connection> reader,
                           OpenConnection(options.path, mode, damage_));
    if (!refusal.empty()) reader->RefuseWrites(refusal);
    memos_[reader.get()] = std::make_unique<ScoreStatsMemo>();
    idle_readers_.push_back(std::move(reader));
  }
  return Status::Ok();
}

SqliteBackend::SqliteBackend(int64_t vector_log_limit) : trim_(vector_log_limit) {}

SqliteBackend::~SqliteBackend() = default;

SqliteBackend::ReaderLease::~ReaderLease() {
  if (conn_ == nullptr) return;
  {
    std::lock_guard lock(owner_->readers_mu_);
    owner_->idle_readers_.push_back(std::move(conn_));
  }
  owner_->readers_cv_.notify_one();
}

Result<ScoreStatsMemo*> SqliteBackend::ReaderLease::ValidMemo() {
  ScoreStatsMemo* memo = owner_->memos_.at(conn_.get()).get();
  MNEMO_RETURN_IF_ERROR(memo->Validate(*conn_));
  return memo;
}

SqliteBackend::ReaderLease SqliteBackend::AcquireReader() {
  std::unique_lock lock(readers_mu_);
  readers_cv_.wait(lock, [&] { return !idle_readers_.empty(); });
  std::unique_ptr<Connection> conn = std::move(idle_readers_.back());
  idle_readers_.pop_back();
  return ReaderLease(this, std::move(conn));
}

Result<UpsertResult> SqliteBackend::UpsertLocked(const EntryWrite& write,
                                                 std::vector<DeferredIndex>* deferred,
                                                 PreparedTokens tokens) {
  MNEMO_RETURN_IF_ERROR(ValidateWrite(write));
  Connection& db = *writer_;
  std::optional<Entry> existing;
  int64_t rowid = 0;
  int64_t doc_length = 0;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find,
        db.Prepare(std::string("SELECT e.rowid, e.doc_length, ") + kEntryColumns +
                       " FROM entries e WHERE e.owner = ? AND e.namespace = ? AND e.key = ?",
                   "look up the entry"));
    find.Bind(1, write.owner);
    find.Bind(2, write.ns);
    find.Bind(3, write.key);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("look up the entry"));
    if (found) {
      rowid = find.ColumnInt(0);
      doc_length = find.ColumnInt(1);
      existing = ReadEntry(find, 2);
    }
  }
  Entry e = MergeWrite(write, existing);
  const bool text_changed = !existing || existing->content != e.content;
  if (!existing && labels_known_) {
    rowid = next_label_++;
  } else if (!existing) {
    // Chosen up front so the FTS5 row (whose insert yields the length) can be
    // written before the entry row that stores it.
    MNEMO_ASSIGN_OR_RETURN(
        Statement next,
        db.Prepare("SELECT COALESCE(MAX(rowid), 0) + 1 FROM entries", "allocate a row id"));
    MNEMO_ASSIGN_OR_RETURN(bool row, next.Step("allocate a row id"));
    if (!row) return Internal("allocate a row id: no result");
    rowid = std::max(next.ColumnInt(0), next_label_);
    next_label_ = rowid + 1;
  }
  if (text_changed && deferred != nullptr) {
    if (tokens.texts != nullptr && (tokens.texts->text(tokens.key) != e.key ||
                                    tokens.texts->text(tokens.key + 1) != e.content)) {
      tokens = {};
    }
    if (tokens.texts != nullptr) {
      doc_length = tokens.texts->length(tokens.key) + tokens.texts->length(tokens.key + 1);
    }
    deferred->push_back({.rowid = rowid, .old = existing, .entry = e, .tokens = tokens});
  } else if (text_changed) {
    MNEMO_ASSIGN_OR_RETURN(doc_length, Reindex(db, rowid, existing, e));
  }
  const std::string tags = EncodeTags(e.tags);
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      existing ? db.Prepare("UPDATE entries SET id = ?1, content = ?5, category = ?6, "
                            "tags = ?7, visibility = ?8, created_at = ?9, updated_at = ?10, "
                            "access_count = ?11, useful_count = ?12, archived = ?13, "
                            "doc_length = ?14, fingerprint = ?16 WHERE rowid = ?15",
                            "update the entry")
               : db.Prepare("INSERT INTO entries (id, owner, namespace, key, content, "
                            "category, tags, visibility, created_at, updated_at, access_count, "
                            "useful_count, archived, doc_length, rowid, fingerprint) VALUES (?1, "
                            "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                            "insert the entry"));
  put.Bind(1, e.id);
  if (!existing) {
    put.Bind(2, e.owner);
    put.Bind(3, e.ns);
    put.Bind(4, e.key);
  }
  put.Bind(5, e.content);
  put.Bind(6, e.category);
  put.Bind(7, tags);
  put.Bind(8, VisibilityName(e.visibility));
  put.Bind(9, e.created_at);
  put.Bind(10, e.updated_at);
  put.Bind(11, e.access_count);
  put.Bind(12, e.useful_count);
  put.Bind(13, static_cast<int64_t>(e.archived ? 1 : 0));
  put.Bind(14, doc_length);
  put.Bind(15, rowid);
  if (write.fingerprint) {
    put.Bind(16, *write.fingerprint);
  } else {
    put.BindNull(16);
  }
  MNEMO_RETURN_IF_ERROR(put.Run(existing ? "update the entry" : "insert the entry"));
  // A new label has no vectors: labels are never reused.
  if (text_changed && existing) MNEMO_RETURN_IF_ERROR(DropVectorsLocked(rowid));
  return UpsertResult{.entry = std::move(e),
                      .created = !existing.has_value(),
                      .label = rowid,
                      .text_changed = text_changed};
}

Result<UpsertResult> SqliteBackend::Upsert(const EntryWrite& write) {
  std::lock_guard lock(writer_mu_);
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*writer_));
  MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertLocked(write));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked());
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return result;
}

// The text index of a chunk is written after the chunk's entry rows (issue
// 22). A write to `entries` runs in a statement journal (its triggers make it
// a multi-row write), and every statement journal opened in a transaction
// that has touched entries_fts makes FTS5 flush its pending terms into a new
// segment (its xSavepoint). Interleaved, every entry of an import flushed a
// one-row segment and FTS5 spent the import merging them: 40 % of a
// 30k-entry import's time. Back to back, the FTS5 inserts (plain one-row
// writes to a virtual table, no journal) fill one in-memory batch, flushed
// once by the next write to `entries`.
Status SqliteBackend::FlushDeferredIndex(std::vector<DeferredIndex>& deferred) {
  Connection& db = *writer_;
  std::vector<std::pair<int64_t, int64_t>> lengths;  // (rowid, doc_length), write order
  std::unordered_map<int64_t, size_t> at;
  for (const DeferredIndex& d : deferred) {
    if (d.tokens.texts != nullptr) {
      const TokenReplay replay(*d.tokens.texts, d.tokens.key, d.tokens.key + 1);
      MNEMO_ASSIGN_OR_RETURN(int64_t length, Reindex(db, d.rowid, d.old, d.entry));
      const int64_t stored =
          d.tokens.texts->length(d.tokens.key) + d.tokens.texts->length(d.tokens.key + 1);
      if (length != stored) {
        return Internal("the text index counted " + std::to_string(length) +
                        " tokens where the prepared tokens had " + std::to_string(stored));
      }
      at.erase(d.rowid);  // a later write of the row wins over an earlier one
      continue;
    }
    MNEMO_ASSIGN_OR_RETURN(int64_t length, Reindex(db, d.rowid, d.old, d.entry));
    if (auto [it, fresh] = at.emplace(d.rowid, lengths.size()); !fresh) {
      lengths[it->second].second = length;
    } else {
      lengths.emplace_back(d.rowid, length);
    }
  }
  deferred.clear();
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("UPDATE entries SET doc_length = ? WHERE rowid = ?", "store the entry's length"));
  for (const auto& [rowid, length] : lengths) {
    if (!at.contains(rowid)) continue;
    put.Bind(1, length);
    put.Bind(2, rowid);
    MNEMO_RETURN_IF_ERROR(put.Run("store the entry's length"));
    put.Reset();
  }
  return Status::Ok();
}

Result<int64_t> SqliteBackend::WriteEntriesLocked(std::span<const EntryWrite> writes,
                                                  EntryTokenPipeline& tokens,
                                                  std::vector<Label>* labels) {
  struct ForgetLabels {
    bool& known;
    ~ForgetLabels() { known = false; }
  } forget{labels_known_};
  int64_t created = 0;
  std::optional<SuspendedInsertTriggers> suspended;
  if (writes.size() >= kBulkInsertFrom) {
    MNEMO_ASSIGN_OR_RETURN(suspended, SuspendedInsertTriggers::Begin(*writer_));
  }
  std::vector<DeferredIndex> deferred;
  for (size_t c = 0; c < tokens.chunks(); ++c) {
    const TokenizedTexts& texts = tokens.Chunk(c);
    const size_t first = c * EntryTokenPipeline::kChunk;
    const size_t end = std::min(writes.size(), first + EntryTokenPipeline::kChunk);
    for (size_t i = first; i < end; ++i) {
      MNEMO_ASSIGN_OR_RETURN(
          UpsertResult result,
          UpsertLocked(writes[i], &deferred, {.texts = &texts, .key = 2 * (i - first)}));
      if (result.created) ++created;
      if (labels != nullptr) labels->push_back(result.label);
    }
    MNEMO_RETURN_IF_ERROR(FlushDeferredIndex(deferred));
    tokens.Release(c);
  }
  if (suspended) MNEMO_RETURN_IF_ERROR(suspended->Finish(*writer_));
  return created;
}

Result<int64_t> SqliteBackend::UpsertBatch(std::span<const EntryWrite> writes,
                                           std::vector<Label>* labels) {
  EntryTokenPipeline tokens(writes);  // before the lock: see entry_tokens.h
  std::lock_guard lock(writer_mu_);
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*writer_));
  MNEMO_ASSIGN_OR_RETURN(const int64_t created, WriteEntriesLocked(writes, tokens, labels));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked());
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return created;
}

Result<std::vector<UpsertResult>> SqliteBackend::Mutate(const EntryGroup& group,
                                                        const MutateFn& decide) {
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  std::vector<Entry> current;
  {
    // A fingerprint (without a key) is two seeks of entries_by_fingerprint:
    // that fingerprint, then none. Left to itself the planner walks the
    // whole group in the (owner, namespace, key) index.
    const std::string cols = std::string("SELECT ") + kEntryColumns +
                             " FROM entries e INDEXED BY entries_by_fingerprint WHERE "
                             "e.owner = ?1 AND e.namespace = ?2 AND ";
    const std::string sql =
        group.fingerprint && !group.key
            ? cols + "e.fingerprint = ?4 UNION ALL " + cols +
                  "e.fingerprint IS NULL AND ?3 IS NULL ORDER BY key"
            : std::string("SELECT ") + kEntryColumns +
                  " FROM entries e WHERE e.owner = ?1 AND e.namespace = ?2 AND "
                  "(?3 IS NULL OR e.key = ?3) AND (?4 IS NULL OR e.fingerprint = ?4 OR "
                  "e.fingerprint IS NULL) ORDER BY e.key";
    MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, "read the group"));
    s.Bind(1, group.owner);
    s.Bind(2, group.ns);
    if (group.key) {
      s.Bind(3, *group.key);
    } else {
      s.BindNull(3);
    }
    if (group.fingerprint) {
      s.Bind(4, *group.fingerprint);
    } else {
      s.BindNull(4);
    }
    for (;;) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the group"));
      if (!row) break;
      current.push_back(ReadEntry(s));
    }
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<EntryWrite> writes, decide(current));
  std::vector<UpsertResult> results;
  for (const EntryWrite& write : writes) {
    MNEMO_RETURN_IF_ERROR(ValidateGroupWrite(group, write));
    MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertLocked(write));
    results.push_back(std::move(result));
  }
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked());
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return results;
}

Result<std::optional<Entry>> SqliteBackend::FindExact(std::string_view owner, std::string_view ns,
                                                      std::string_view key) {
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kEntryColumns +
                      " FROM entries e WHERE e.owner = ? AND e.namespace = ? AND e.key = ?",
                  "find the entry"));
  s.Bind(1, owner);
  s.Bind(2, ns);
  s.Bind(3, key);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("find the entry"));
  if (!found) return std::optional<Entry>();
  return std::optional<Entry>(ReadEntry(s));
}

Result<std::optional<Entry>> SqliteBackend::Resolve(std::string_view ns, std::string_view key,
                                                    const ReadScope& scope) {
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare(std::string("SELECT ") + kEntryColumns +
                                   " FROM entries e WHERE e.namespace = ?1 AND e.key = ?2 AND "
                                   "(?3 OR e.owner = ?4 OR e.visibility = 'public') "
                                   "ORDER BY e.owner = ?4 DESC, e.updated_at DESC, e.owner LIMIT 1",
                               "resolve the key"));
  s.Bind(1, ns);
  s.Bind(2, key);
  s.Bind(3, static_cast<int64_t>(scope.all ? 1 : 0));
  s.Bind(4, scope.principal);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("resolve the key"));
  if (!found) return std::optional<Entry>();
  return std::optional<Entry>(ReadEntry(s));
}

Result<bool> SqliteBackend::Delete(std::string_view id) {
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  int64_t rowid = 0;
  std::string key;
  std::string content;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find,
        db.Prepare("SELECT rowid, key, content FROM entries WHERE id = ?", "find the entry"));
    find.Bind(1, id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the entry"));
    if (!found) return false;
    rowid = find.ColumnInt(0);
    key = find.ColumnText(1);
    content = find.ColumnText(2);
  }
  MNEMO_RETURN_IF_ERROR(DropEntryLocked(rowid, key, content));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked());
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Status SqliteBackend::CompactEntryIndex() {
  std::lock_guard lock(writer_mu_);
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(*writer_));
  MNEMO_RETURN_IF_ERROR(OptimizeFtsTable(*writer_, "entries_fts"));
  return txn.Commit();
}

Status SqliteBackend::DropEntryLocked(int64_t rowid, std::string_view key,
                                      std::string_view content) {
  Connection& db = *writer_;
  MNEMO_RETURN_IF_ERROR(Unindex(db, rowid, key, content));
  MNEMO_ASSIGN_OR_RETURN(Statement del,
                         db.Prepare("DELETE FROM entries WHERE rowid = ?", "delete the entry"));
  del.Bind(1, rowid);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the entry"));
  return DropVectorsLocked(rowid);
}

Result<HygieneCounts> SqliteBackend::ApplyHygiene(std::span<const std::string> ids,
                                                  const HygieneFn& decide) {
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  HygieneCounts counts;
  for (const std::string& id : ids) {
    int64_t rowid = 0;
    Entry e;
    {
      MNEMO_ASSIGN_OR_RETURN(Statement find,
                             db.Prepare(std::string("SELECT e.rowid, ") + kEntryColumns +
                                            " FROM entries e WHERE e.id = ?",
                                        "find the entry"));
      find.Bind(1, id);
      MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the entry"));
      if (!found) continue;
      rowid = find.ColumnInt(0);
      e = ReadEntry(find, 1);
    }
    switch (decide(e)) {
      case HygieneAction::kKeep: break;
      case HygieneAction::kArchive: {
        if (e.archived) break;
        MNEMO_ASSIGN_OR_RETURN(
            Statement archive,
            db.Prepare("UPDATE entries SET archived = 1 WHERE rowid = ?", "archive the entry"));
        archive.Bind(1, rowid);
        MNEMO_RETURN_IF_ERROR(archive.Run("archive the entry"));
        ++counts.archived;
        break;
      }
      case HygieneAction::kDelete:
        MNEMO_RETURN_IF_ERROR(DropEntryLocked(rowid, e.key, e.content));
        ++counts.deleted;
        break;
    }
  }
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked());
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return counts;
}

Result<std::optional<TimeMs>> SqliteBackend::LastHygieneRun() {
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement last, db->Prepare("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                                  "read the last hygiene run"));
  MNEMO_ASSIGN_OR_RETURN(bool found, last.Step("read the last hygiene run"));
  return found ? std::optional<TimeMs>(last.ColumnInt(0)) : std::nullopt;
}

Result<bool> SqliteBackend::ClaimHygieneRun(TimeMs now, TimeMs interval) {
  // Every engine open asks; a reader answers "not due" without taking the
  // write lock, and the claim itself is re-checked inside the write.
  MNEMO_ASSIGN_OR_RETURN(std::optional<TimeMs> last, LastHygieneRun());
  if (last && now - *last < interval) return false;
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement last, db.Prepare("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                                   "read the last hygiene run"));
    MNEMO_ASSIGN_OR_RETURN(bool found, last.Step("read the last hygiene run"));
    if (found && now - last.ColumnInt(0) < interval) return false;
  }
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO generations (name, value) VALUES ('hygiene_last_run', ?1) "
                 "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                 "record the hygiene run"));
  put.Bind(1, now);
  MNEMO_RETURN_IF_ERROR(put.Run("record the hygiene run"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Result<std::optional<Entry>> SqliteBackend::AddCounters(std::string_view id, int64_t access_delta,
                                                        int64_t useful_delta) {
  std::lock_guard lock(writer_mu_);
  Connection& db = *writer_;
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement add,
                           db.Prepare("UPDATE entries SET access_count = access_count + ?, "
                                      "useful_count = useful_count + ? WHERE id = ?",
                                      "update the counters"));
    add.Bind(1, access_delta);
    add.Bind(2, useful_delta);
    add.Bind(3, id);
    MNEMO_RETURN_IF_ERROR(add.Run("update the counters"));
  }
  if (sqlite3_changes(db.handle()) == 0) return std::optional<Entry>();
  MNEMO_ASSIGN_OR_RETURN(Statement read, db.Prepare(std::string("SELECT ") + kEntryColumns +
                                                        " FROM entries e WHERE e.id = ?",
                                                    "read the entry"));
  read.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, read.Step("read the entry"));
  if (!found) return Internal("an entry vanished while its counters were updated");
  Entry e = ReadEntry(read);
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return std::optional<Entry>(std::move(e));
}

Result<std::vector<Entry>> SqliteBackend::List(const EntryFilter& filter, int limit,
                                               int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (limit <= 0) return std::vector<Entry>();
  const SqlFilter f = BuildFilter(filter);
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kEntryColumns + " FROM entries e WHERE " + f.where +
                      " ORDER BY e.updated_at DESC, e.key, e.owner, e.namespace LIMIT ? OFFSET ?",
                  "list entries"));
  const int next = BindFilter(s, f, 1);
  s.Bind(next, static_cast<int64_t>(limit));
  s.Bind(next + 1, offset);
  std::vector<Entry> out;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("list entries"));
    if (!row) break;
    out.push_back(ReadEntry(s));
  }
  return out;
}

Result<Stats> SqliteBackend::GetStats(const ReadScope& scope) {
  SqlFilter f{"1", {}};
  AddScope(scope, f);
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare("SELECT e.category, e.namespace, COUNT(*), SUM(e.archived) FROM entries e "
                  "WHERE " +
                      f.where + " GROUP BY e.category, e.namespace",
                  "count entries"));
  BindFilter(s, f, 1);
  Stats stats;
  std::map<std::string, int64_t> by_category;
  std::map<std::string, int64_t> by_namespace;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("count entries"));
    if (!row) break;
    const int64_t count = s.ColumnInt(2);
    stats.entries += count;
    stats.archived += s.ColumnInt(3);
    by_category[std::string(s.ColumnText(0))] += count;
    by_namespace[std::string(s.ColumnText(1))] += count;
  }
  stats.by_category.assign(by_category.begin(), by_category.end());
  stats.by_namespace.assign(by_namespace.begin(), by_namespace.end());
  stats.backend = std::string(name());
  stats.schema_version = schema_version_;
  return stats;
}

Result<int64_t> SqliteBackend::Generation(Counter which) {
  ReaderLease db = AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare("SELECT value FROM generations WHERE name = ?",
                                                  "read a generation counter"));
  s.Bind(1, std::string_view(which == Counter::kToolRules ? "tool_rules" : "tool_registry"));
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read a generation counter"));
  return row ? s.ColumnInt(0) : 0;
}

Status SqliteBackend::ForEach(const ReadScope& scope, std::string_view ns_prefix,
                              const std::function<Status(const Entry&)>& fn) {
  SqlFilter f{"1", {}};
  AddScope(scope, f);
  // A prefix is the range [prefix, prefix+1) of the (namespace, key, owner)
  // index. Later pages start after the last row by row value alone, which
  // SQLite also seeks in that index (a second lower bound would make it
  // scan from the prefix again on every page).
  std::optional<std::string> lower;
  if (!ns_prefix.empty()) {
    std::string upper(ns_prefix);
    while (!upper.empty() && static_cast<unsigned char>(upper.back()) == 0xFF) upper.pop_back();
    if (!upper.empty()) {
      upper.back() = static_cast<char>(static_cast<unsigned char>(upper.back()) + 1);
      f.where += " AND e.namespace < ?";
      f.params.push_back(upper);
    }
    lower = std::string(ns_prefix);
  }
  const std::string order =
      " ORDER BY e.namespace, e.key, e.owner LIMIT " + std::to_string(kForEachPage);
  const std::string select = std::string("SELECT ") + kEntryColumns + " FROM entries e WHERE ";
  const std::string first_sql = select + f.where + (lower ? " AND e.namespace >= ?" : "") + order;
  const std::string next_sql =
      select + f.where + " AND (e.namespace, e.key, e.owner) > (?, ?, ?)" + order;
  std::optional<Entry> last;
  while (true) {
    // Pages by keyset, and `fn` runs with no connection held, so it may call
    // back into the backend (even with a pool of one reader).
    std::vector<Entry> page;
    {
      ReaderLease db = AcquireReader();
      MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(last ? next_sql : first_sql, "read entries"));
      const int next = BindFilter(s, f, 1);
      if (last) {
        s.Bind(next, last->ns);
        s.Bind(next + 1, last->key);
        s.Bind(next + 2, last->owner);
      } else if (lower) {
        s.Bind(next, *lower);
      }
      while (true) {
        MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read entries"));
        if (!row) break;
        page.push_back(ReadEntry(s));
      }
    }
    for (const Entry& e : page) MNEMO_RETURN_IF_ERROR(fn(e));
    if (page.size() < static_cast<size_t>(kForEachPage)) return Status::Ok();
    last = page.back();
  }
}

}  // namespace internal

Result<Stores> OpenSqliteStores(const SqliteOptions& options) {
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<internal::SqliteBackend> backend,
                         internal::SqliteBackend::Open(options));
  return StoresOf(std::move(backend));
}

}  // namespace mnemo::storage

// The SQLite backend (default): one database file in WAL mode, one writer
// connection guarded by a mutex and a pool of reader connections, so reads
// run concurrently with the writer. Every write is one BEGIN IMMEDIATE
// transaction; UpsertBatch is one transaction for the whole batch. Keyword
// search runs on the contentless FTS5 table entries_fts (tokenizer `mnemo`,
// rank function mnemo_score) with every filter in the same statement.
// Schema: migrations.cc.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "storage/backend.h"
#include "storage/sqlite/connection.h"

namespace mnemo::storage::internal {

class SqliteBackend final : public Backend {
 public:
  static Result<std::unique_ptr<SqliteBackend>> Open(const SqliteOptions& options);

  std::string_view name() const override { return "sqlite"; }
  int schema_version() const override { return schema_version_; }

  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                         std::string_view key) override;
  Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Status ForEach(const ReadScope& scope, const std::function<Status(const Entry&)>& fn) override;

 private:
  // A reader connection borrowed from the pool; returned when destroyed.
  class ReaderLease {
   public:
    ReaderLease(SqliteBackend* owner, std::unique_ptr<Connection> conn)
        : owner_(owner), conn_(std::move(conn)) {}
    ReaderLease(ReaderLease&&) = default;
    ~ReaderLease();
    Connection& operator*() { return *conn_; }
    Connection* operator->() { return conn_.get(); }

   private:
    SqliteBackend* owner_;
    std::unique_ptr<Connection> conn_;
  };

  SqliteBackend() = default;
  ReaderLease AcquireReader();
  Result<UpsertResult> UpsertLocked(const EntryWrite& write);

  int schema_version_ = 0;
  std::mutex writer_mu_;
  std::unique_ptr<Connection> writer_;
  std::mutex readers_mu_;
  std::condition_variable readers_cv_;
  std::vector<std::unique_ptr<Connection>> idle_readers_;
};

}  // namespace mnemo::storage::internal

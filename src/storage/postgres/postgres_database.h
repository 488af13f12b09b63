// One PostgreSQL schema opened for the stores built over it
// (postgres_backend.h): the schema migrated (pg_schema.cc), a pool of libpq
// connections (pg_connection.h), the read router over it and the standbys
// of `read_urls` (pg_read_router.h), the store id, and what only the
// writer moves (the vector change log's trim policy and the changes the
// current write logged).
//
// Writes: one transaction each that first takes the schema's advisory lock,
// so writers of every process are serialised exactly like SQLite's single
// writer (read-modify-write steps such as Mutate and StepSegment see no
// interleaved write) and sequence values are handed out in commit order.
// Reads run on any pooled connection without the lock, or on a hot standby
// that has replayed this process's last write.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/entry_store.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_read_router.h"
#include "storage/postgres/sql/pg_keyword_stats.h"
#include "storage/postgres/sql/pg_node_search.h"
#include "storage/rules/vector_rules.h"
#include "storage/stores.h"

namespace mnemo::storage::internal {

class PostgresDatabase {
 public:
  // Migrates the schema of `options` (creating it when missing) and opens
  // the pool. `vector_log_limit`: vector changes kept per signature
  // (vector_rules.h).
  static Result<std::shared_ptr<PostgresDatabase>> Open(const PostgresOptions& options,
                                                        int64_t vector_log_limit);
  ~PostgresDatabase();
  PostgresDatabase(const PostgresDatabase&) = delete;
  PostgresDatabase& operator=(const PostgresDatabase&) = delete;

  const std::string& store_id() const { return store_id_; }  // store_info.id
  int schema_version() const { return schema_version_; }

  // Runs `body` as one write transaction holding the schema's writer lock
  // (retried as pg::Pool::Transaction says).
  Status Write(std::string_view what, const std::function<Status(pg::PgConn&)>& body);
  // A connection for a read: the primary's pool or a standby's
  // (pg_read_router.h).
  Result<pg::Pool::Lease> Read();
  // The keyword statistics the entry searches weigh with: all of them
  // mirrored from schema v11 on (pg_keyword_stats.h), each write's own fold
  // applied to them when it commits (Write).
  pg::KeywordStatsCache& keyword_stats() { return *keyword_stats_; }
  // The node's keyword index of entries (pg_node_search.h): nullptr with
  // `keyword_index = "server"` or a schema before v13.
  pg::NodeKeywords* node_keywords() { return node_keywords_.get(); }

  // The row writes the stores share, each inside a Write.
  // The upserts of `writes` in order, as UpsertBatch, set-wise
  // (postgres_bulk_write.cc); the label of each write appended to `labels`.
  Result<int64_t> UpsertManyIn(pg::PgConn& conn, std::span<const EntryWrite> writes,
                               std::vector<Label>* labels);
  // Deletes (and logs) every vector of `label` (stores/postgres_vectors.cc).
  Status DropVectorsIn(pg::PgConn& conn, Label label);
  // PutVectors (stores/postgres_vectors.cc).
  Status PutVectorsIn(pg::PgConn& conn, std::string_view signature,
                      std::span<const LabeledVector> vectors);
  // The vectors a write carries (EntryWrite::vectors), for `label`, as
  // PutVectorsIn stores them (stores/postgres_vectors.cc).
  Status PutWriteVectorsIn(pg::PgConn& conn, Label label, std::span<const SignedVector> vectors);
  // Trims the vector change log when the policy says so
  // (stores/postgres_vectors.cc); Write calls it before each commit.
  Status TrimVectorLogIn(pg::PgConn& conn);
  // Vector changes logged by the current write; only inside a Write.
  int64_t& logged_changes() { return logged_changes_; }

 private:
  explicit PostgresDatabase(int64_t vector_log_limit);

  std::string schema_;
  int schema_version_ = 0;
  std::string store_id_;  // store_info.id
  std::unique_ptr<pg::Pool> pool_;
  std::unique_ptr<pg::ReadRouter> reads_;  // after pool_: it points into it
  std::unique_ptr<pg::KeywordStatsCache> keyword_stats_;
  std::unique_ptr<pg::NodeKeywords> node_keywords_;
  // The keyword notes of a write (entry_terms_delta) are deleted by its
  // fold (pg_entry_search.h): the table is a queue. Its dead rows stayed
  // until autovacuum came (once a minute at most), and every fold read them
  // all: under 60 stores/s the fold went from 0.6 to 1 ms and from 560 to
  // 1 070 pages per store (bench/scaleout.py --pg-statements). So a process
  // vacuums it itself after every kFoldedRowsBetweenVacuums rows its
  // writes folded: the table stays at a few pages.
  static constexpr int64_t kFoldedRowsBetweenVacuums = 4096;
  int64_t notes_since_vacuum_ = 0;  // guarded by writer_mu_
  void VacuumNotes();
  // One write at a time from this process (the advisory lock orders the
  // processes); guards the members below.
  std::mutex writer_mu_;
  VectorLogTrimPolicy trim_;
  int64_t logged_changes_ = 0;  // vector changes logged by the current write
};

// What every PostgreSQL store holds: the database, and its reads and writes
// under the names the store bodies use.
class PostgresStore {
 protected:
  explicit PostgresStore(std::shared_ptr<PostgresDatabase> db) : db_(std::move(db)) {}

  Status Write(std::string_view what, const std::function<Status(pg::PgConn&)>& body) {
    return db_->Write(what, body);
  }
  Result<pg::Pool::Lease> Read() { return db_->Read(); }

  const std::shared_ptr<PostgresDatabase> db_;
};

}  // namespace mnemo::storage::internal

#include "storage/postgres/postgres_database.h"

#include <algorithm>
#include <optional>
#include <string>

#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/sql/pg_text_version.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal {
namespace {

using pg::PgConn;
using pg::Rows;

}  // namespace

Result<std::shared_ptr<PostgresDatabase>> PostgresDatabase::Open(const PostgresOptions& options,
                                                                 int64_t vector_log_limit) {
  if (options.schema.empty()) {
    return InvalidArgument("the PostgreSQL schema name must not be empty", "postgres.schema");
  }
  std::shared_ptr<PostgresDatabase> database(new PostgresDatabase(vector_log_limit));
  database->schema_ = options.schema;
  {
    // Migrate on a connection of its own, before the pool's connections set
    // their search_path to a schema that may not exist yet.
    pg::PoolOptions bootstrap{.url = options.url,
                              .size = 1,
                              .connect_attempts = options.connect_attempts,
                              .logger = options.logger};
    MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<pg::Pool> pool, pg::Pool::Open(bootstrap));
    MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, pool->Acquire());
    MNEMO_ASSIGN_OR_RETURN(database->schema_version_, pg::MigrateSchema(*conn, options.schema));
    MNEMO_ASSIGN_OR_RETURN(const int64_t reindexed, pg::EnsureTextVersion(*conn, options.schema));
    if (reindexed > 0) {
      options.logger->Log(LogLevel::kInfo,
                          "rebuilt the keyword index of the PostgreSQL schema " + options.schema +
                              " for text version " + std::to_string(text::kTextVersion) + " (" +
                              std::to_string(reindexed) +
                              " rows); run `mnemo reindex` to refresh the hash embedder's vectors");
    }
    MNEMO_ASSIGN_OR_RETURN(
        Rows id, conn->Exec("SELECT id FROM " + pg::QuoteIdentifier(options.schema) + ".store_info",
                            "read the store id"));
    if (id.empty()) return Internal("the PostgreSQL schema has no store id (store_info)");
    database->store_id_ = id.Text(0, 0);
  }
  database->keyword_stats_ = std::make_unique<pg::KeywordStatsCache>(
      database->schema_version_ >= pg::kMirroredFromSchemaVersion);
  if (options.keyword_index == KeywordIndexPlace::kNode &&
      database->schema_version_ >= pg::kNodeKeywordsFromSchemaVersion) {
    database->node_keywords_ = std::make_unique<pg::NodeKeywords>(options.logger);
  }
  pg::PoolOptions pool{.url = options.url,
                       // A bulk write's keyword statistics (FlushEntryTerms) are
                       // aggregated in memory, not spilled to disk at the 4 MB default.
                       // No JIT: a search's cost estimate passes jit_above_cost
                       // whenever the planner misjudges a table (entry_terms not
                       // yet analysed after a load), and compiling its
                       // expressions then took 50-140 ms of a search that
                       // runs in under one (issue 46).
                       .init_sql = "SET search_path TO " + pg::QuoteIdentifier(options.schema) +
                                   "; SET work_mem = '64MB'; SET jit = off",
                       .size = std::max(1, options.pool_size),
                       .connect_attempts = options.connect_attempts,
                       .track_commit_lsn = !options.read_urls.empty(),
                       .logger = options.logger};
  MNEMO_ASSIGN_OR_RETURN(database->pool_, pg::Pool::Open(pool));
  // Reads from a standby wait for the schema this process just migrated.
  if (!options.read_urls.empty()) MNEMO_RETURN_IF_ERROR(database->pool_->NoteWalPosition());
  database->reads_ =
      std::make_unique<pg::ReadRouter>(database->pool_.get(), options.read_urls, pool);
  return database;
}

PostgresDatabase::PostgresDatabase(int64_t vector_log_limit) : trim_(vector_log_limit) {}

PostgresDatabase::~PostgresDatabase() = default;

Status PostgresDatabase::Write(std::string_view what,
                               const std::function<Status(pg::PgConn&)>& body) {
  std::lock_guard lock(writer_mu_);
  // The writer lock is taken in BEGIN's round trip, and the keyword
  // statistics folded and the text statistics written in COMMIT's (pipeline
  // mode): every round trip a write makes while holding the lock is one
  // every other writer waits for. Each is a prepared statement: a store
  // runs them all, and planning them anew cost the server about a fifth of
  // the store (bench/scaleout.py --pg-statements).
  static const pg::PgStatement kWriterLock = {
      .sql = "SELECT pg_advisory_xact_lock(hashtext(current_schema()))", .prepared = true};
  // What the fold logged, applied to this process's mirror of the keyword
  // statistics once the write has committed (pg_keyword_stats.h); set by
  // the commit itself (FlushEntryTerms).
  std::optional<Rows> folded;
  MNEMO_RETURN_IF_ERROR(pool_->Transaction(
      what,
      [&](PgConn& conn) -> Status {
        logged_changes_ = 0;  // a retried attempt logs afresh
        folded.reset();
        MNEMO_RETURN_IF_ERROR(body(conn));
        MNEMO_RETURN_IF_ERROR(pg::FlushEntryTerms(conn, {}, &folded));
        MNEMO_RETURN_IF_ERROR(TrimVectorLogIn(conn));
        return pg::FlushTextStats(conn);
      },
      std::span(&kWriterLock, 1)));
  if (folded) {
    keyword_stats_->ApplyOwnFold(*folded);
    notes_since_vacuum_ += folded->size();
  }
  if (notes_since_vacuum_ >= kFoldedRowsBetweenVacuums) VacuumNotes();
  return Status::Ok();
}

void PostgresDatabase::VacuumNotes() {
  notes_since_vacuum_ = 0;
  // Best effort, after the commit (VACUUM runs in no transaction): the
  // write is durable whatever happens here. Without TRUNCATE, a VACUUM
  // never waits for the exclusive lock that shrinking the table needs
  // (up to 5 s while another node writes); the freed pages are reused by
  // the next notes. SKIP_LOCKED: a VACUUM already running (autovacuum,
  // another node) is left to finish. Only the notes' table: a VACUUM
  // rewrites its table's row of pg_class, which makes every prepared
  // statement reading that table plan itself again on every connection;
  // the notes are read by the fold alone, while the keyword searches read
  // entry_terms_log (a stale one returns its rows), and vacuuming the log
  // too made every search shape replan on every connection after each
  // vacuum (0.03 -> 0.42 ms of planning per search).
  auto lease = pool_->Acquire();
  if (!lease.ok()) return;
  (void)(*lease)->ExecScript("VACUUM (SKIP_LOCKED, TRUNCATE false) entry_terms_delta",
                             "vacuum the keyword notes");
}

Result<pg::Pool::Lease> PostgresDatabase::Read() { return reads_->Read(); }

}  // namespace mnemo::storage::internal

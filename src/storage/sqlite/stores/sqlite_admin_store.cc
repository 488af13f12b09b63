// Erasure on SQLite (admin_store.h "Erasure"; docs/storage.md). Every row goes
// with its row of the contentless FTS5 index, removed with the FTS5 'delete'
// command given the text it was indexed with. A 'delete' only adds a
// tombstone: the erased tokens stay in the index's older segments until
// they are merged, so every index that lost a row is rewritten with
// 'optimize' in the same transaction (SQLite 3.40 has no 'secure-delete'
// option). secure_delete (sqlite_database.cc) then zeroes the freed pages.
#include <chrono>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "storage/rules/erasure_rules.h"
#include "storage/rules/vector_rules.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/rows/entry_writes.h"
#include "storage/sqlite/stores/row_drops.h"
#include "storage/sqlite/stores/sqlite_admin_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

// Which rows: one owner's (?1), and one session's (?2) when given.
struct Scope {
  std::string_view owner;
  std::optional<std::string_view> session_id;
};

// "owner = ?1" or "owner = ?1 AND session_id = ?2", with a column prefix.
std::string Where(const Scope& scope, std::string_view prefix = "") {
  std::string where = std::string(prefix) + "owner = ?1";
  if (scope.session_id) where += " AND " + std::string(prefix) + "session_id = ?2";
  return where;
}

// Runs `sql` with the scope bound; returns the rows it changed.
Result<int64_t> Run(Connection& db, const std::string& sql, const Scope& scope,
                    std::string_view what) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, what));
  s.Bind(1, scope.owner);
  if (scope.session_id) s.Bind(2, *scope.session_id);
  MNEMO_RETURN_IF_ERROR(s.Run(what));
  return static_cast<int64_t>(sqlite3_changes(db.handle()));
}

Result<int64_t> Count(Connection& db, const std::string& sql, const Scope& scope,
                      std::string_view what) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, what));
  s.Bind(1, scope.owner);
  if (scope.session_id) s.Bind(2, *scope.session_id);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step(what));
  return found ? s.ColumnInt(0) : 0;
}

Result<std::vector<std::string>> Strings(Connection& db, const std::string& sql, const Scope& scope,
                                         std::string_view what) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, what));
  s.Bind(1, scope.owner);
  if (scope.session_id) s.Bind(2, *scope.session_id);
  return ReadAll<std::string>(s, what,
                              [](const Statement& row) { return std::string(row.ColumnText(0)); });
}

// One indexed table: its rows of the scope leave the FTS5 table `fts`
// (`indexed` selects 'delete', rowid and the indexed columns), then the rows
// themselves; returns how many.
struct IndexedTable {
  const char* table;
  const char* fts;
  const char* columns;  // the FTS5 columns, "body" or "key, content"
  const char* indexed;  // their text in `table`, "rowid, search_text"
};

Result<int64_t> DropIndexed(Connection& db, const IndexedTable& t, const Scope& scope,
                            std::set<std::string>& touched) {
  const std::string where = Where(scope);
  const std::string what = std::string("erase from ") + t.table;
  MNEMO_ASSIGN_OR_RETURN(
      int64_t n,
      Count(db, std::string("SELECT COUNT(*) FROM ") + t.table + " WHERE " + where, scope, what));
  if (n == 0) return int64_t{0};
  MNEMO_RETURN_IF_ERROR(Run(db,
                            std::string("INSERT INTO ") + t.fts + " (" + t.fts + ", rowid, " +
                                t.columns + ") SELECT 'delete', " + t.indexed + " FROM " + t.table +
                                " WHERE " + where,
                            scope, what)
                            .status());
  MNEMO_RETURN_IF_ERROR(
      Run(db, std::string("DELETE FROM ") + t.table + " WHERE " + where, scope, what).status());
  touched.insert(t.fts);
  return n;
}

// A turn's search text is its content where search_text is NULL
// (StoredSearchText).
constexpr IndexedTable kTurns{"turns", "turns_fts", "body", "id, COALESCE(search_text, content)"};
constexpr IndexedTable kEvents{"events", "events_fts", "body", "rowid, text"};
constexpr IndexedTable kContextEvents{"context_events", "context_events_fts", "body",
                                      "id, search_text"};
constexpr IndexedTable kEntries{"entries", "entries_fts", "key, content", "rowid, key, content"};

// The segments of the scope with their recaps, recap vectors and the profile
// evidence they gave.
Status DropSegments(Connection& db, const Scope& scope, ErasureCounts& counts,
                    std::set<std::string>& touched) {
  const std::string segments = "SELECT id FROM segments WHERE " + Where(scope);
  MNEMO_ASSIGN_OR_RETURN(std::vector<std::string> ids,
                         Strings(db, segments, scope, "find the segments to erase"));
  if (ids.empty()) return Status::Ok();
  const std::set<std::string> erased(ids.begin(), ids.end());
  MNEMO_ASSIGN_OR_RETURN(
      counts.recaps,
      Count(db, "SELECT COUNT(*) FROM segment_recaps WHERE segment_id IN (" + segments + ")", scope,
            "count the recaps to erase"));
  if (counts.recaps > 0) {
    MNEMO_RETURN_IF_ERROR(Run(db,
                              "INSERT INTO segment_recaps_fts (segment_recaps_fts, rowid, body) "
                              "SELECT 'delete', rowid, body FROM segment_recaps WHERE "
                              "segment_id IN (" +
                                  segments + ")",
                              scope, "erase the recaps' index rows")
                              .status());
    MNEMO_RETURN_IF_ERROR(Run(db,
                              "DELETE FROM segment_recaps WHERE segment_id IN (" + segments + ")",
                              scope, "erase the recaps")
                              .status());
    touched.insert("segment_recaps_fts");
  }
  MNEMO_ASSIGN_OR_RETURN(
      counts.recap_vectors,
      Run(db, "DELETE FROM segment_vectors WHERE segment_id IN (" + segments + ")", scope,
          "erase the recap vectors"));
  // The facets the segments spoke for: read, decided by the shared rule.
  MNEMO_ASSIGN_OR_RETURN(std::vector<FacetRow> facets, OwnerFacetsIn(db, scope.owner));
  for (const FacetRow& f : facets) {
    bool changed = false;
    std::optional<FacetRow> kept = FacetAfterErasure(f, scope.session_id, erased, &changed);
    if (!changed) continue;
    if (kept) {
      MNEMO_RETURN_IF_ERROR(PutFacetIn(db, *kept));
      ++counts.facets_reduced;
      continue;
    }
    MNEMO_ASSIGN_OR_RETURN(Statement s,
                           db.Prepare("DELETE FROM facets WHERE owner = ?1 AND facet_type = ?2 "
                                      "AND key = ?3",
                                      "erase a facet"));
    s.Bind(1, scope.owner);
    s.Bind(2, f.facet_type);
    s.Bind(3, f.key);
    MNEMO_RETURN_IF_ERROR(s.Run("erase a facet"));
    ++counts.facets_removed;
  }
  MNEMO_ASSIGN_OR_RETURN(counts.segments, Run(db, "DELETE FROM segments WHERE " + Where(scope),
                                              scope, "erase the segments"));
  return Status::Ok();
}

// The owner's documents `ids` and the owner's triples extracted from them.
Status DropDocuments(Connection& db, std::string_view owner, std::span<const std::string> ids,
                     ErasureCounts& counts, std::set<std::string>& touched) {
  for (const std::string& id : ids) {
    {
      MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare("SELECT 1 FROM documents WHERE id = ? AND "
                                                     "owner = ?",
                                                     "find a document to erase"));
      s.Bind(1, id);
      s.Bind(2, owner);
      MNEMO_ASSIGN_OR_RETURN(bool owned, s.Step("find a document to erase"));
      if (!owned) continue;
    }
    MNEMO_ASSIGN_OR_RETURN(bool dropped, DropDocumentRow(db, id));
    if (dropped) {
      ++counts.documents;
      touched.insert("documents_fts");
    }
    MNEMO_ASSIGN_OR_RETURN(
        Statement t,
        db.Prepare("DELETE FROM triples WHERE owner = ? AND source = ?", "erase triples"));
    t.Bind(1, owner);
    t.Bind(2, id);
    MNEMO_RETURN_IF_ERROR(t.Run("erase triples"));
    counts.triples += sqlite3_changes(db.handle());
  }
  return Status::Ok();
}

// Every row of the scope's sessions (all of the owner's without a session).
Status DropEpisodic(Connection& db, const Scope& scope, ErasureCounts& counts,
                    std::set<std::string>& touched) {
  MNEMO_ASSIGN_OR_RETURN(counts.turns, DropIndexed(db, kTurns, scope, touched));
  MNEMO_RETURN_IF_ERROR(DropSegments(db, scope, counts, touched));
  MNEMO_ASSIGN_OR_RETURN(counts.events, DropIndexed(db, kEvents, scope, touched));
  MNEMO_ASSIGN_OR_RETURN(counts.context_events, DropIndexed(db, kContextEvents, scope, touched));
  // A claim's stored result holds the captured rule texts (from the user's
  // message): it goes with the session.
  MNEMO_RETURN_IF_ERROR(
      Run(db, "DELETE FROM turn_claims WHERE " + Where(scope), scope, "erase the turn claims")
          .status());
  // The rules themselves are the engine's to erase (they are entries).
  MNEMO_RETURN_IF_ERROR(
      Run(db, "DELETE FROM rule_captures WHERE " + Where(scope), scope, "erase the rules' sessions")
          .status());
  return Run(db, "DELETE FROM context_sessions WHERE " + Where(scope), scope,
             "erase the context sessions")
      .status();
}

Status OptimizeTouched(Connection& db, const std::set<std::string>& touched) {
  for (const std::string& table : touched) MNEMO_RETURN_IF_ERROR(OptimizeFtsTable(db, table));
  return Status::Ok();
}

}  // namespace

// How long an erasure waits for the write-ahead log to empty (spec 10,
// "Erasure"; docs/storage.md "Erasure").
constexpr auto kLogWait = std::chrono::seconds(10);
constexpr auto kLogRetry = std::chrono::milliseconds(20);

// Empties the write-ahead log after an erasure committed: until then the
// log holds the pages written before (the erased rows) and the ones the
// erasure wrote. A TRUNCATE checkpoint copies every frame into the
// database (where secure_delete zeroed what was erased) and cuts the log
// to zero bytes. It cannot finish while a reader (of any process) still
// reads an older snapshot: inside one attempt SQLite's busy handler
// (the writer's busy timeout) waits for such readers, and a checkpoint
// running on another connection (the Checkpointer's) makes an attempt
// fail at once; so attempts are repeated, kLogRetry apart, for up to
// kLogWait. Readers hold a snapshot for one query, so that is ample; a
// reader that holds one longer makes the erasure fail with kUnavailable
// (the rows are gone, their text may still be in the log: calling the
// erasure again, which is idempotent, empties it). Runs under the writer
// lock, so no write of this process adds frames meanwhile.
Status EmptyLog(Connection& db) {
  const auto deadline = std::chrono::steady_clock::now() + kLogWait;
  while (true) {
    int log_frames = 0;
    int copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(db.handle(), "main", SQLITE_CHECKPOINT_TRUNCATE,
                                             &log_frames, &copied);
    if (rc == SQLITE_OK) return Status::Ok();
    if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED) {
      return Unavailable(std::string("the erasure is stored, but emptying the write-ahead log "
                                     "failed: ") +
                         sqlite3_errmsg(db.handle()));
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      return Unavailable(
          "the erasure is stored, but the write-ahead log still holds the erased text: a reader "
          "kept an older snapshot open for more than 10 s; repeat the erasure to empty the log");
    }
    std::this_thread::sleep_for(kLogRetry);
  }
}

SqliteAdminStore::SqliteAdminStore(std::shared_ptr<SqliteDatabase> db) : db_(std::move(db)) {}

Result<ErasureCounts> SqliteAdminStore::EraseSession(const SessionErasure& what) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(what.owner));
  const Scope scope{.owner = what.owner, .session_id = what.session_id.view()};
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  ErasureCounts counts;
  std::set<std::string> touched;
  MNEMO_RETURN_IF_ERROR(DropEpisodic(db, scope, counts, touched));
  MNEMO_RETURN_IF_ERROR(DropDocuments(db, what.owner, what.document_ids, counts, touched));
  MNEMO_RETURN_IF_ERROR(OptimizeTouched(db, touched));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  MNEMO_RETURN_IF_ERROR(EmptyLog(db));
  return counts;
}

Result<ErasureCounts> SqliteAdminStore::ErasePrincipal(std::string_view owner) {
  MNEMO_RETURN_IF_ERROR(ValidateErasure(owner));
  const Scope scope{.owner = owner};
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  ErasureCounts counts;
  std::set<std::string> touched;
  // Entries: their vectors first (logged as removed, so every process's
  // vector index drops them), then the rows with their index rows.
  const std::string labels = "SELECT rowid FROM entries WHERE owner = ?1";
  MNEMO_ASSIGN_OR_RETURN(
      counts.entry_vectors,
      Run(db,
          "INSERT INTO vector_changes (signature, label, present) SELECT signature, label, " +
              std::to_string(kChangeRemoved) + " FROM entry_vectors WHERE label IN (" + labels +
              ")",
          scope, "log the removal of the entries' vectors"));
  db_->writer_state().logged_changes += counts.entry_vectors;
  MNEMO_RETURN_IF_ERROR(Run(db, "DELETE FROM entry_vectors WHERE label IN (" + labels + ")", scope,
                            "erase the entries' vectors")
                            .status());
  MNEMO_ASSIGN_OR_RETURN(counts.entries, DropIndexed(db, kEntries, scope, touched));
  MNEMO_RETURN_IF_ERROR(DropEpisodic(db, scope, counts, touched));
  // Facets left (stated ones, or evidence of segments already gone).
  MNEMO_ASSIGN_OR_RETURN(int64_t facets,
                         Run(db, "DELETE FROM facets WHERE owner = ?1", scope, "erase the facets"));
  counts.facets_removed += facets;
  MNEMO_ASSIGN_OR_RETURN(std::vector<std::string> documents,
                         Strings(db, "SELECT id FROM documents WHERE owner = ?1", scope,
                                 "find the documents to erase"));
  MNEMO_RETURN_IF_ERROR(DropDocuments(db, owner, documents, counts, touched));
  MNEMO_ASSIGN_OR_RETURN(
      int64_t triples, Run(db, "DELETE FROM triples WHERE owner = ?1", scope, "erase the triples"));
  counts.triples += triples;
  MNEMO_RETURN_IF_ERROR(OptimizeTouched(db, touched));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  MNEMO_RETURN_IF_ERROR(EmptyLog(db));
  return counts;
}

}  // namespace mnemo::storage::internal

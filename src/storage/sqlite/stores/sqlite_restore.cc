// AdminStore::Restore on SQLite: the one restore driver (RestoreRows,
// restore.h) over the writer connection, every row of a backup in one
// BEGIN IMMEDIATE transaction, through the same row writes as the public
// methods (entry_writes.h, sqlite_writes.h), so index rows are those a live
// write makes.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "storage/rules/graph_rules.h"
#include "storage/sqlite/fts/entry_tokens.h"
#include "storage/sqlite/rows/entry_writes.h"
#include "storage/sqlite/stores/sqlite_admin_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

// True when `sql`, bound by `bind`, finds a row.
template <typename Bind>
Result<bool> Exists(Connection& db, const char* sql, const Bind& bind) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, "check for a stored row"));
  bind(s);
  return s.Step("check for a stored row");
}

Result<int64_t> MaxId(Connection& db, const char* sql) {
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, "read the largest id"));
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("read the largest id"));
  return found ? s.ColumnInt(0) : int64_t{0};
}

// The rows of a restore on the writer, inside the caller's transaction.
class SqliteRestoreTarget final : public RestoreTarget {
 public:
  SqliteRestoreTarget(SqliteDatabase& database, EntryTokenPipeline& tokens)
      : database_(database), db_(database.writer()), tokens_(tokens) {}

  Result<int64_t> WriteEntries(std::span<const EntryWrite> entries,
                               std::vector<Label>& labels) override {
    return WriteEntriesLocked(database_, entries, tokens_, &labels);
  }
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override {
    return PutVectorsLocked(database_, signature, vectors);
  }

  Result<bool> HasTurn(const TurnRow& row) override {
    return Exists(db_, "SELECT 1 FROM turns WHERE owner = ? AND session_id = ? AND seq = ?",
                  [&](Statement& s) {
                    s.Bind(1, row.owner);
                    s.Bind(2, row.session_id);
                    s.Bind(3, row.seq);
                  });
  }
  Result<bool> HasSegment(const SegmentRow& seg) override {
    return Exists(db_,
                  "SELECT 1 FROM segments WHERE id = ?1 OR (?2 = 'open' AND owner = ?3 AND "
                  "session_id = ?4 AND status = 'open')",
                  [&](Statement& s) {
                    s.Bind(1, seg.id);
                    s.Bind(2, seg.status);
                    s.Bind(3, seg.owner);
                    s.Bind(4, seg.session_id);
                  });
  }
  Result<bool> HasEvent(const EventRow& e) override {
    return Exists(db_, "SELECT 1 FROM events WHERE id = ? OR (owner = ? AND type = ? AND text = ?)",
                  [&](Statement& s) {
                    s.Bind(1, e.id);
                    s.Bind(2, e.owner);
                    s.Bind(3, e.type);
                    s.Bind(4, e.text);
                  });
  }
  Result<bool> HasFacet(const FacetRow& f) override {
    return Exists(db_, "SELECT 1 FROM facets WHERE owner = ? AND facet_type = ? AND key = ?",
                  [&](Statement& s) {
                    s.Bind(1, f.owner);
                    s.Bind(2, f.facet_type);
                    s.Bind(3, f.key);
                  });
  }
  Result<bool> HasDocument(const DocumentRow& doc) override {
    return Exists(db_, "SELECT 1 FROM documents WHERE id = ? OR (owner = ? AND content_hash = ?)",
                  [&](Statement& s) {
                    s.Bind(1, doc.id);
                    s.Bind(2, doc.owner);
                    s.Bind(3, doc.content_hash);
                  });
  }
  Result<bool> HasContextEvent(const ContextEventRow& row) override {
    return Exists(db_,
                  "SELECT 1 FROM context_events WHERE owner = ? AND session_id = ? AND seq = ?",
                  [&](Statement& s) {
                    s.Bind(1, row.owner);
                    s.Bind(2, row.session_id);
                    s.Bind(3, row.seq);
                  });
  }
  Result<bool> HasTriple(const TripleRow& t) override {
    const std::string subject_key = TripleTermKey(t.subject);
    const std::string object_key = TripleTermKey(t.object);
    return Exists(db_,
                  "SELECT 1 FROM triples WHERE id = ?1 OR (?2 AND valid_to IS NULL AND owner = ?3 "
                  "AND subject_key = ?4 AND predicate = ?5 AND object_key = ?6)",
                  [&](Statement& s) {
                    s.Bind(1, t.id);
                    s.Bind(2, static_cast<int64_t>(t.valid_to == 0 ? 1 : 0));
                    s.Bind(3, t.owner);
                    s.Bind(4, subject_key);
                    s.Bind(5, t.predicate);
                    s.Bind(6, object_key);
                  });
  }

  Status InsertTurn(const TurnWrite& w) override {
    TurnRow row = w.row;
    int64_t& next_turn_id = database_.writer_state().next_turn_id;
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(db_, "SELECT 1 FROM turns WHERE id = ?",
                                              [&](Statement& s) { s.Bind(1, row.id); }));
    if (taken || row.id <= 0) {
      MNEMO_ASSIGN_OR_RETURN(int64_t max_id, MaxId(db_, "SELECT COALESCE(MAX(id), 0) FROM turns"));
      row.id = std::max(max_id + 1, next_turn_id);
    }
    next_turn_id = std::max(next_turn_id, row.id + 1);
    return InsertTurnIn(db_, row, w.SearchText(row));
  }
  Status InsertSegment(const SegmentRow& row) override { return PutSegmentIn(db_, row); }
  Status InsertEvent(const EventRow& row) override { return AddEventIn(db_, row).status(); }
  Status InsertFacet(const FacetRow& row) override { return PutFacetIn(db_, row); }
  Status InsertDocument(const DocumentRow& row) override { return InsertDocumentIn(db_, row); }
  Status InsertContextEvent(const ContextEventRow& given) override {
    ContextEventRow row = given;
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(db_, "SELECT 1 FROM context_events WHERE id = ?",
                                              [&](Statement& s) { s.Bind(1, row.id); }));
    if (taken) row.id = 0;
    MNEMO_RETURN_IF_ERROR(InsertContextEventIn(db_, row));
    MNEMO_ASSIGN_OR_RETURN(
        Statement next,
        db_.Prepare(
            "INSERT INTO context_sessions (owner, session_id, next_seq) VALUES (?1, ?2, ?3) "
            "ON CONFLICT (owner, session_id) DO UPDATE SET "
            "next_seq = MAX(next_seq, excluded.next_seq)",
            "raise the session's next sequence number"));
    next.Bind(1, row.owner);
    next.Bind(2, row.session_id);
    next.Bind(3, row.seq + 1);
    return next.Run("raise the session's next sequence number");
  }
  Status InsertTriple(const TripleRow& row) override { return internal::InsertTriple(db_, row); }

 private:
  SqliteDatabase& database_;
  Connection& db_;
  EntryTokenPipeline& tokens_;
};

}  // namespace

Result<RestoreReport> SqliteAdminStore::Restore(const RestoreBatch& batch) {
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  EntryTokenPipeline tokens(batch.entries);  // before the lock: see entry_tokens.h
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  SqliteRestoreTarget target(*db_, tokens);
  MNEMO_ASSIGN_OR_RETURN(RestoreReport report, RestoreRows(batch, target));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return report;
}

}  // namespace mnemo::storage::internal

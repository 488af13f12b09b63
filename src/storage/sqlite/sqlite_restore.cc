// AdminStore::Restore on SQLite: every row of a backup in one BEGIN IMMEDIATE
// transaction, through the same row writes as the public methods
// (sqlite_writes.h), so index rows are those a live write makes.
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "storage/document_rules.h"
#include "storage/graph_rules.h"
#include "storage/sqlite/entry_tokens.h"
#include "storage/sqlite/entry_writes.h"
#include "storage/sqlite/sqlite_admin_store.h"
#include "storage/sqlite/sqlite_writes.h"

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

}  // namespace

Result<RestoreReport> SqliteAdminStore::Restore(const RestoreBatch& batch) {
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  RestoreReport report;
  EntryTokenPipeline tokens(batch.entries);  // before the lock: see entry_tokens.h
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));

  std::vector<Label> labels;
  MNEMO_ASSIGN_OR_RETURN(report.entries_created,
                         WriteEntriesLocked(*db_, batch.entries, tokens, &labels));
  std::map<std::string, std::vector<LabeledVector>> by_signature;
  for (const RestoreVector& v : batch.vectors) {
    by_signature[v.signature].push_back({labels[v.entry], v.vector});
  }
  for (const auto& [signature, vectors] : by_signature) {
    MNEMO_RETURN_IF_ERROR(PutVectorsLocked(*db_, signature, vectors));
  }

  for (const TurnWrite& w : batch.turns) {
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db, "SELECT 1 FROM turns WHERE owner = ? AND session_id = ? AND seq = ?",
               [&](Statement& s) {
                 s.Bind(1, w.row.owner);
                 s.Bind(2, w.row.session_id);
                 s.Bind(3, w.row.seq);
               }));
    if (stored) {
      ++report.skipped;
      continue;
    }
    TurnRow row = w.row;
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(db, "SELECT 1 FROM turns WHERE id = ?",
                                              [&](Statement& s) { s.Bind(1, row.id); }));
    if (taken || row.id <= 0) {
      MNEMO_ASSIGN_OR_RETURN(int64_t max_id, MaxId(db, "SELECT COALESCE(MAX(id), 0) FROM turns"));
      row.id = std::max(max_id + 1, db_->writer_state().next_turn_id);
    }
    db_->writer_state().next_turn_id = std::max(db_->writer_state().next_turn_id, row.id + 1);
    MNEMO_RETURN_IF_ERROR(InsertTurnIn(db, row, w.search_text));
  }

  for (const SegmentRow& seg : batch.segments) {
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db,
               "SELECT 1 FROM segments WHERE id = ?1 OR (?2 = 'open' AND owner = ?3 AND "
               "session_id = ?4 AND status = 'open')",
               [&](Statement& s) {
                 s.Bind(1, seg.id);
                 s.Bind(2, seg.status);
                 s.Bind(3, seg.owner);
                 s.Bind(4, seg.session_id);
               }));
    if (stored) {
      ++report.skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(PutSegmentIn(db, seg));
  }

  for (const EventRow& e : batch.events) {
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(db, "SELECT 1 FROM events WHERE id = ?",
                                              [&](Statement& s) { s.Bind(1, e.id); }));
    bool added = false;
    if (!taken) {
      MNEMO_ASSIGN_OR_RETURN(added, AddEventIn(db, e));
    }
    if (!added) ++report.skipped;
  }

  for (const FacetRow& f : batch.facets) {
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db, "SELECT 1 FROM facets WHERE owner = ? AND facet_type = ? AND key = ?",
               [&](Statement& s) {
                 s.Bind(1, f.owner);
                 s.Bind(2, f.facet_type);
                 s.Bind(3, f.key);
               }));
    if (stored) {
      ++report.skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(PutFacetIn(db, f));
  }

  for (const DocumentRow& given : batch.documents) {
    DocumentRow doc = given;
    doc.content_hash = ContentHash(doc.content);
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db, "SELECT 1 FROM documents WHERE id = ? OR (owner = ? AND content_hash = ?)",
               [&](Statement& s) {
                 s.Bind(1, doc.id);
                 s.Bind(2, doc.owner);
                 s.Bind(3, doc.content_hash);
               }));
    if (stored) {
      ++report.skipped;
      ++report.documents_skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(InsertDocumentIn(db, doc));
  }

  for (const ContextEventRow& given : batch.context_events) {
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db, "SELECT 1 FROM context_events WHERE owner = ? AND session_id = ? AND seq = ?",
               [&](Statement& s) {
                 s.Bind(1, given.owner);
                 s.Bind(2, given.session_id);
                 s.Bind(3, given.seq);
               }));
    if (stored) {
      ++report.skipped;
      continue;
    }
    ContextEventRow row = given;
    MNEMO_ASSIGN_OR_RETURN(bool taken, Exists(db, "SELECT 1 FROM context_events WHERE id = ?",
                                              [&](Statement& s) { s.Bind(1, row.id); }));
    if (taken) row.id = 0;
    MNEMO_RETURN_IF_ERROR(InsertContextEventIn(db, row));
    MNEMO_ASSIGN_OR_RETURN(
        Statement next,
        db.Prepare("INSERT INTO context_sessions (owner, session_id, next_seq) VALUES (?1, ?2, ?3) "
                   "ON CONFLICT (owner, session_id) DO UPDATE SET "
                   "next_seq = MAX(next_seq, excluded.next_seq)",
                   "raise the session's next sequence number"));
    next.Bind(1, row.owner);
    next.Bind(2, row.session_id);
    next.Bind(3, row.seq + 1);
    MNEMO_RETURN_IF_ERROR(next.Run("raise the session's next sequence number"));
  }

  for (const TripleRow& t : batch.triples) {
    const std::string subject_key = TripleTermKey(t.subject);
    const std::string object_key = TripleTermKey(t.object);
    MNEMO_ASSIGN_OR_RETURN(
        bool stored,
        Exists(db,
               "SELECT 1 FROM triples WHERE id = ?1 OR (?2 AND valid_to IS NULL AND owner = ?3 "
               "AND subject_key = ?4 AND predicate = ?5 AND object_key = ?6)",
               [&](Statement& s) {
                 s.Bind(1, t.id);
                 s.Bind(2, static_cast<int64_t>(t.valid_to == 0 ? 1 : 0));
                 s.Bind(3, t.owner);
                 s.Bind(4, subject_key);
                 s.Bind(5, t.predicate);
                 s.Bind(6, object_key);
               }));
    if (stored) {
      ++report.skipped;
      ++report.triples_skipped;
      continue;
    }
    MNEMO_RETURN_IF_ERROR(InsertTriple(db, t));
  }

  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return report;
}

}  // namespace mnemo::storage::internal

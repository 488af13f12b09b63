// The graph (schema v7) on SQLite (docs/storage.md): rows in `triples`,
// compared through their subject_key / object_key columns.
#include <algorithm>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/rules/graph_rules.h"
#include "storage/sqlite/stores/row_drops.h"
#include "storage/sqlite/stores/sqlite_graph_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kTripleColumns =
    "t.id, t.owner, t.subject, t.predicate, t.object, t.confidence, t.source, t.sentence, "
    "t.valid_from, t.valid_to, t.created_at";

TripleRow ReadTriple(const Statement& s) {
  return TripleRow{.id = std::string(s.ColumnText(0)),
                   .owner = std::string(s.ColumnText(1)),
                   .subject = std::string(s.ColumnText(2)),
                   .predicate = std::string(s.ColumnText(3)),
                   .object = std::string(s.ColumnText(4)),
                   .confidence = s.ColumnDouble(5),
                   .source = std::string(s.ColumnText(6)),
                   .sentence = std::string(s.ColumnText(7)),
                   .valid_from = s.ColumnInt(8),
                   .valid_to = s.ColumnIsNull(9) ? 0 : s.ColumnInt(9),
                   .created_at = s.ColumnInt(10)};
}

}  // namespace

Status InsertTriple(Connection& db, const TripleRow& t) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO triples (id, owner, subject, subject_key, predicate, object, "
                 "object_key, confidence, source, sentence, valid_from, valid_to, created_at) "
                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?13, ?12)",
                 "store the triple"));
  const std::string subject_key = TripleTermKey(t.subject);
  const std::string object_key = TripleTermKey(t.object);
  put.Bind(1, t.id);
  put.Bind(2, t.owner);
  put.Bind(3, t.subject);
  put.Bind(4, subject_key);
  put.Bind(5, t.predicate);
  put.Bind(6, t.object);
  put.Bind(7, object_key);
  put.Bind(8, t.confidence);
  put.Bind(9, t.source);
  put.Bind(10, t.sentence);
  put.Bind(11, t.valid_from);
  put.Bind(12, t.created_at);
  if (t.valid_to == 0) {
    put.BindNull(13);
  } else {
    put.Bind(13, t.valid_to);
  }
  return put.Run("store the triple");
}

namespace {}  // namespace

SqliteGraphStore::SqliteGraphStore(std::shared_ptr<SqliteDatabase> db) : db_(std::move(db)) {}

Result<TripleUpsert> SqliteGraphStore::UpsertTriple(const TripleRow& row, bool single_valued) {
  MNEMO_ASSIGN_OR_RETURN(TripleRow incoming, NewTripleRow(row));
  const std::string subject_key = TripleTermKey(incoming.subject);
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  std::vector<TripleRow> existing;
  {
    // A multi-valued predicate's plan needs only the current triple of the
    // same object (one seek of triples_current): "user likes ..." grows with
    // every document, and reading it all made each upsert O(n).
    MNEMO_ASSIGN_OR_RETURN(
        Statement find,
        db.Prepare(std::string("SELECT ") + kTripleColumns +
                       " FROM triples t WHERE t.owner = ?1 AND t.subject_key = ?2 AND "
                       "t.predicate = ?3" +
                       (single_valued ? "" : " AND t.object_key = ?4 AND t.valid_to IS NULL") +
                       " ORDER BY t.id",
                   "find the triples"));
    find.Bind(1, incoming.owner);
    find.Bind(2, subject_key);
    find.Bind(3, incoming.predicate);
    const std::string object_key = TripleTermKey(incoming.object);
    if (!single_valued) find.Bind(4, object_key);
    MNEMO_ASSIGN_OR_RETURN(existing, ReadAll<TripleRow>(find, "find the triples", ReadTriple));
  }
  const TripleUpsertPlan plan = PlanTripleUpsert(existing, incoming, single_valued);
  auto end_at = [&](const TripleRow& t, TimeMs at) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Statement end,
        db.Prepare("UPDATE triples SET valid_to = ?1 WHERE id = ?2", "end a triple"));
    end.Bind(1, at);
    end.Bind(2, t.id);
    return end.Run("end a triple");
  };
  TripleUpsert out;
  if (plan.refresh) {
    TripleRow& same = existing[*plan.refresh];
    same.confidence = std::max(same.confidence, incoming.confidence);
    MNEMO_ASSIGN_OR_RETURN(
        Statement refresh,
        db.Prepare("UPDATE triples SET confidence = ?1 WHERE id = ?2", "refresh the triple"));
    refresh.Bind(1, same.confidence);
    refresh.Bind(2, same.id);
    MNEMO_RETURN_IF_ERROR(refresh.Run("refresh the triple"));
    out.row = same;
  } else {
    {
      MNEMO_ASSIGN_OR_RETURN(Statement taken,
                             db.Prepare("SELECT 1 FROM triples WHERE id = ?", "check the id"));
      taken.Bind(1, incoming.id);
      MNEMO_ASSIGN_OR_RETURN(bool found, taken.Step("check the id"));
      if (found) return Conflict("triple id " + incoming.id + " is already used");
    }
    incoming.valid_to = plan.insert_valid_to;
    MNEMO_RETURN_IF_ERROR(InsertTriple(db, incoming));
    out.row = incoming;
    out.created = true;
  }
  for (const size_t i : plan.supersede) {
    MNEMO_RETURN_IF_ERROR(end_at(existing[i], SupersededAt(existing[i], incoming)));
    out.superseded.push_back(existing[i].id);
  }
  for (const size_t i : plan.trim) MNEMO_RETURN_IF_ERROR(end_at(existing[i], incoming.valid_from));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return out;
}

Result<std::vector<TripleRow>> SqliteGraphStore::QueryTriples(const TripleQuery& query) {
  if (query.limit <= 0) return std::vector<TripleRow>();
  const TripleQuery q = NormalizedQuery(query);
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kTripleColumns +
                      " FROM triples t WHERE (?1 IS NULL OR t.owner = ?1) AND "
                      "(?2 IS NULL OR t.subject_key = ?2) AND (?3 IS NULL OR t.predicate = ?3) "
                      "AND (?4 IS NULL OR t.object_key = ?4) AND "
                      "(?7 IS NULL OR (t.valid_from <= ?7 AND (t.valid_to IS NULL OR "
                      "t.valid_to > ?7))) AND (?5 = 1 OR ?7 IS NOT NULL OR t.valid_to IS NULL) "
                      "ORDER BY t.subject_key, t.predicate, t.valid_to IS NOT NULL, "
                      "t.valid_from DESC, t.object_key, t.id LIMIT ?6",
                  "query triples"));
  BindOptional(s, 1, q.owner);
  BindOptional(s, 2, q.subject);
  BindOptional(s, 3, q.predicate);
  BindOptional(s, 4, q.object);
  s.Bind(5, static_cast<int64_t>(q.include_history ? 1 : 0));
  s.Bind(6, static_cast<int64_t>(q.limit));
  BindOptional(s, 7, q.as_of);
  return ReadAll<TripleRow>(s, "query triples", ReadTriple);
}

Result<std::optional<TripleRow>> SqliteGraphStore::GetTriple(std::string_view id) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement find, db->Prepare(std::string("SELECT ") + kTripleColumns +
                                                         " FROM triples t WHERE t.id = ?",
                                                     "find the triple"));
  find.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the triple"));
  if (!found) return std::optional<TripleRow>();
  return std::optional<TripleRow>(ReadTriple(find));
}

Result<bool> SqliteGraphStore::DeleteTriple(std::string_view id) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(Statement del,
                         db.Prepare("DELETE FROM triples WHERE id = ?", "delete the triple"));
  del.Bind(1, id);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the triple"));
  const bool deleted = sqlite3_changes(db.handle()) > 0;
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  // Nothing of it left behind (row_drops.h).
  if (deleted) MNEMO_RETURN_IF_ERROR(EmptyLog(db));
  return deleted;
}

Result<bool> SqliteGraphStore::CloseTriple(std::string_view id, TimeMs at) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(Statement close,
                         db.Prepare("UPDATE triples SET valid_to = max(?1, valid_from, 1) "
                                    "WHERE id = ?2 AND valid_to IS NULL",
                                    "close the triple"));
  close.Bind(1, at);
  close.Bind(2, id);
  MNEMO_RETURN_IF_ERROR(close.Run("close the triple"));
  const bool closed = sqlite3_changes(db.handle()) > 0;
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return closed;
}

}  // namespace mnemo::storage::internal

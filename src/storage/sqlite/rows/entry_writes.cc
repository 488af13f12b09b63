// The writer side of the SQLite entries (entry_writes.h).
#include "storage/sqlite/rows/entry_writes.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "storage/rules/entry_rules.h"
#include "storage/sqlite/fts/entry_tokens.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_bulk.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/tags_json.h"

namespace mnemo::storage::internal {
namespace {

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

Result<std::optional<size_t>> StoredDimension(Connection& db, std::string_view signature) {
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db.Prepare("SELECT dim FROM entry_vectors WHERE signature = ? LIMIT 1",
                                    "read the vector dimension"));
  s.Bind(1, signature);
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the vector dimension"));
  if (!row) return std::optional<size_t>();
  return std::optional<size_t>(static_cast<size_t>(s.ColumnInt(0)));
}

// Keeps the newest `limit` changes of `signature`; the newest older one
// becomes the trim marker and the rest are deleted (vector_rules.h).
Status TrimSignature(Connection& db, const std::string& signature, int64_t limit) {
  int64_t marker = 0;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement find,
                           db.Prepare("SELECT seq FROM vector_changes WHERE signature = ? "
                                      "ORDER BY seq DESC LIMIT 1 OFFSET ?",
                                      "find where to trim the vector change log"));
    find.Bind(1, signature);
    find.Bind(2, limit);
    MNEMO_ASSIGN_OR_RETURN(bool row, find.Step("find where to trim the vector change log"));
    if (!row) return Status::Ok();
    marker = find.ColumnInt(0);
  }
  MNEMO_ASSIGN_OR_RETURN(Statement drop,
                         db.Prepare("DELETE FROM vector_changes WHERE signature = ? AND seq < ?",
                                    "trim the vector change log"));
  drop.Bind(1, signature);
  drop.Bind(2, marker);
  MNEMO_RETURN_IF_ERROR(drop.Run("trim the vector change log"));
  MNEMO_ASSIGN_OR_RETURN(Statement mark,
                         db.Prepare("UPDATE vector_changes SET present = ? WHERE seq = ?",
                                    "mark the trimmed vector change log"));
  mark.Bind(1, static_cast<int64_t>(kTrimMarker));
  mark.Bind(2, marker);
  return mark.Run("mark the trimmed vector change log");
}

// A text-index write WriteEntriesLocked holds back until the entry rows of
// its chunk are written (see FlushDeferredIndex).
struct DeferredIndex {
  int64_t rowid = 0;
  std::optional<Entry> old;  // the text to remove first, if any
  Entry entry;               // the text to index
  PreparedTokens tokens;     // when set, the row already holds its length
};

Result<UpsertResult> UpsertLocked(SqliteDatabase& database, const EntryWrite& write,
                                  std::vector<DeferredIndex>* deferred, PreparedTokens tokens) {
  MNEMO_RETURN_IF_ERROR(ValidateWrite(write));
  Connection& db = database.writer();
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
  if (!existing && database.writer_state().labels_known) {
    rowid = database.writer_state().next_label++;
  } else if (!existing) {
    // Chosen up front so the FTS5 row (whose insert yields the length) can be
    // written before the entry row that stores it.
    MNEMO_ASSIGN_OR_RETURN(
        Statement next,
        db.Prepare("SELECT COALESCE(MAX(rowid), 0) + 1 FROM entries", "allocate a row id"));
    MNEMO_ASSIGN_OR_RETURN(bool row, next.Step("allocate a row id"));
    if (!row) return Internal("allocate a row id: no result");
    rowid = std::max(next.ColumnInt(0), database.writer_state().next_label);
    database.writer_state().next_label = rowid + 1;
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
  if (text_changed && existing) MNEMO_RETURN_IF_ERROR(DropVectorsLocked(database, rowid));
  if (text_changed) MNEMO_RETURN_IF_ERROR(PutWriteVectorsLocked(database, rowid, write.vectors));
  return UpsertResult{.entry = std::move(e),
                      .created = !existing.has_value(),
                      .label = rowid,
                      .text_changed = text_changed};
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
Status FlushDeferredIndex(SqliteDatabase& database, std::vector<DeferredIndex>& deferred) {
  Connection& db = database.writer();
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

}  // namespace

Result<UpsertResult> UpsertEntryLocked(SqliteDatabase& database, const EntryWrite& write) {
  return UpsertLocked(database, write, nullptr, {});
}

Result<int64_t> WriteEntriesLocked(SqliteDatabase& database, std::span<const EntryWrite> writes,
                                   EntryTokenPipeline& tokens, std::vector<Label>* labels) {
  struct ForgetLabels {
    bool& known;
    ~ForgetLabels() { known = false; }
  } forget{database.writer_state().labels_known};
  int64_t created = 0;
  std::optional<SuspendedInsertTriggers> suspended;
  if (writes.size() >= kBulkInsertFrom) {
    MNEMO_ASSIGN_OR_RETURN(suspended, SuspendedInsertTriggers::Begin(database.writer()));
  }
  std::vector<DeferredIndex> deferred;
  for (size_t c = 0; c < tokens.chunks(); ++c) {
    const TokenizedTexts& texts = tokens.Chunk(c);
    const size_t first = c * EntryTokenPipeline::kChunk;
    const size_t end = std::min(writes.size(), first + EntryTokenPipeline::kChunk);
    for (size_t i = first; i < end; ++i) {
      MNEMO_ASSIGN_OR_RETURN(
          UpsertResult result,
          UpsertLocked(database, writes[i], &deferred, {.texts = &texts, .key = 2 * (i - first)}));
      if (result.created) ++created;
      if (labels != nullptr) labels->push_back(result.label);
    }
    MNEMO_RETURN_IF_ERROR(FlushDeferredIndex(database, deferred));
    tokens.Release(c);
  }
  if (suspended) MNEMO_RETURN_IF_ERROR(suspended->Finish(database.writer()));
  return created;
}

Status DropEntryLocked(SqliteDatabase& database, int64_t rowid, std::string_view key,
                       std::string_view content) {
  Connection& db = database.writer();
  MNEMO_RETURN_IF_ERROR(Unindex(db, rowid, key, content));
  MNEMO_ASSIGN_OR_RETURN(Statement del,
                         db.Prepare("DELETE FROM entries WHERE rowid = ?", "delete the entry"));
  del.Bind(1, rowid);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the entry"));
  return DropVectorsLocked(database, rowid);
}

Status DropVectorsLocked(SqliteDatabase& database, Label label) {
  Connection& db = database.writer();
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement log, db.Prepare("INSERT INTO vector_changes (signature, label, present) "
                                  "SELECT signature, label, ? FROM entry_vectors WHERE label = ?",
                                  "log the removal of the entry's vectors"));
    log.Bind(1, static_cast<int64_t>(kChangeRemoved));
    log.Bind(2, label);
    MNEMO_RETURN_IF_ERROR(log.Run("log the removal of the entry's vectors"));
  }
  const int removed = sqlite3_changes(db.handle());
  if (removed == 0) return Status::Ok();
  database.writer_state().logged_changes += removed;
  MNEMO_ASSIGN_OR_RETURN(Statement drop, db.Prepare("DELETE FROM entry_vectors WHERE label = ?",
                                                    "delete the entry's vectors"));
  drop.Bind(1, label);
  return drop.Run("delete the entry's vectors");
}

Status TrimVectorLogLocked(SqliteDatabase& database) {
  const int64_t logged = std::exchange(database.writer_state().logged_changes, 0);
  if (logged == 0 || !database.writer_state().trim.Logged(logged)) return Status::Ok();
  Connection& db = database.writer();
  // Every signature, each found by one index seek (a skip-scan by hand).
  std::optional<std::string> signature;
  while (true) {
    std::string found;
    {
      MNEMO_ASSIGN_OR_RETURN(
          Statement next,
          signature ? db.Prepare("SELECT signature FROM vector_changes WHERE signature > ? "
                                 "ORDER BY signature LIMIT 1",
                                 "list the vector signatures")
                    : db.Prepare("SELECT signature FROM vector_changes ORDER BY signature LIMIT 1",
                                 "list the vector signatures"));
      if (signature) next.Bind(1, *signature);
      MNEMO_ASSIGN_OR_RETURN(bool row, next.Step("list the vector signatures"));
      if (!row) return Status::Ok();
      found = next.ColumnText(0);
    }
    signature = std::move(found);
    MNEMO_RETURN_IF_ERROR(TrimSignature(db, *signature, database.writer_state().trim.limit()));
  }
}

Status PutWriteVectorsLocked(SqliteDatabase& database, Label label,
                             std::span<const SignedVector> vectors) {
  for (const SignedVector& v : vectors) {
    const LabeledVector one{.label = label, .vector = v.vector};
    MNEMO_RETURN_IF_ERROR(PutVectorsLocked(database, v.signature, std::span(&one, 1)));
  }
  return Status::Ok();
}

Status PutVectorsLocked(SqliteDatabase& database, std::string_view signature,
                        std::span<const LabeledVector> vectors) {
  Connection& db = database.writer();
  MNEMO_ASSIGN_OR_RETURN(std::optional<size_t> stored_dim, StoredDimension(db, signature));
  MNEMO_RETURN_IF_ERROR(CheckVectorDimensions(signature, vectors, stored_dim));
  if (vectors.empty()) return Status::Ok();
  {
    // Labels deleted meanwhile are skipped by the EXISTS; WHERE also keeps
    // the upsert clause from being read as a join constraint.
    MNEMO_ASSIGN_OR_RETURN(
        Statement put,
        db.Prepare("INSERT INTO entry_vectors (label, signature, dim, vector) "
                   "SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM entries WHERE rowid = ?1) "
                   "ON CONFLICT (signature, label) DO UPDATE SET dim = excluded.dim, "
                   "vector = excluded.vector",
                   "store a vector"));
    MNEMO_ASSIGN_OR_RETURN(Statement log,
                           db.Prepare("INSERT INTO vector_changes (signature, label, present) "
                                      "VALUES (?, ?, ?)",
                                      "log a vector change"));
    const auto dim = static_cast<int64_t>(vectors.front().vector.size());
    std::string buffer;
    for (const LabeledVector& v : vectors) {
      put.Bind(1, v.label);
      put.Bind(2, signature);
      put.Bind(3, dim);
      put.BindBlob(4, EncodeVector(v.vector, buffer));
      MNEMO_RETURN_IF_ERROR(put.Run("store a vector"));
      put.Reset();
      if (sqlite3_changes(db.handle()) == 0) continue;
      log.Bind(1, signature);
      log.Bind(2, v.label);
      log.Bind(3, static_cast<int64_t>(kChangePresent));
      MNEMO_RETURN_IF_ERROR(log.Run("log a vector change"));
      log.Reset();
      ++database.writer_state().logged_changes;
    }
  }
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

// Documents (schema v6) on SQLite (docs/storage.md): rows in `documents`,
// their computation text, summary and tags in the contentless
// `documents_fts`, document frequencies from `documents_vocab`.
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/tags_json.h"
#include "storage/sqlite/stores/row_drops.h"
#include "storage/sqlite/stores/sqlite_document_store.h"
#include "storage/sqlite/stores/sqlite_writes.h"

namespace mnemo::storage::internal {
namespace {

constexpr const char* kDocumentColumns =
    "d.id, d.owner, d.source, d.meta, d.content, d.search_text, d.summary, d.tags, d.entities, "
    "d.content_hash, d.access_count, d.created_at, d.updated_at";
constexpr int kDocumentColumnCount = 13;

Result<DocumentRow> ReadDocument(const Statement& s) {
  std::optional<std::vector<std::string>> tags = DecodeTags(s.ColumnText(7));
  std::optional<std::vector<std::string>> entities = DecodeTags(s.ColumnText(8));
  if (!tags || !entities) return Internal("a document's tags or entities are not a JSON array");
  return DocumentRow{.id = std::string(s.ColumnText(0)),
                     .owner = std::string(s.ColumnText(1)),
                     .source = std::string(s.ColumnText(2)),
                     .meta = std::string(s.ColumnText(3)),
                     .content = std::string(s.ColumnText(4)),
                     .search_text = std::string(s.ColumnText(5)),
                     .summary = std::string(s.ColumnText(6)),
                     .tags = std::move(*tags),
                     .entities = std::move(*entities),
                     .content_hash = std::string(s.ColumnText(9)),
                     .access_count = s.ColumnInt(10),
                     .created_at = s.ColumnInt(11),
                     .updated_at = s.ColumnInt(12)};
}

// The one document `s` (bound, not yet stepped) selects, if any.
Result<std::optional<DocumentRow>> ReadOne(Statement& s, std::string_view what) {
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step(what));
  if (!found) return std::optional<DocumentRow>();
  MNEMO_ASSIGN_OR_RETURN(DocumentRow row, ReadDocument(s));
  return std::optional<DocumentRow>(std::move(row));
}

// What documents_fts indexed for one document, so it can be removed.
struct IndexedText {
  int64_t rowid = 0;
  std::string search_text;
  std::string summary;
  std::string tags;  // TagsText of the stored tags
};

Result<std::optional<IndexedText>> FindIndexed(Connection& db, std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement find,
      db.Prepare("SELECT rowid, search_text, summary, tags FROM documents WHERE id = ?",
                 "find the document"));
  find.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the document"));
  if (!found) return std::optional<IndexedText>();
  std::optional<std::vector<std::string>> tags = DecodeTags(find.ColumnText(3));
  if (!tags) return Internal("a document's tags are not a JSON array of strings");
  return std::optional<IndexedText>(IndexedText{.rowid = find.ColumnInt(0),
                                                .search_text = std::string(find.ColumnText(1)),
                                                .summary = std::string(find.ColumnText(2)),
                                                .tags = TagsText(*tags)});
}

Status Unindex(Connection& db, const IndexedText& t) {
  return UnindexFtsRow(db, "documents_fts", t.rowid,
                       {{"body", t.search_text}, {"summary", t.summary}, {"tags", t.tags}});
}

Result<int64_t> Index(Connection& db, int64_t rowid, std::string_view search_text,
                      std::string_view summary, std::string_view tags_text) {
  return IndexFtsRow(db, "documents_fts", rowid,
                     {{"body", search_text}, {"summary", summary}, {"tags", tags_text}});
}

}  // namespace

Status InsertDocumentIn(Connection& db, const DocumentRow& doc) {
  MNEMO_ASSIGN_OR_RETURN(const int64_t rowid, NextRowid(db, "documents"));
  MNEMO_ASSIGN_OR_RETURN(const int64_t length,
                         Index(db, rowid, doc.search_text, doc.summary, TagsText(doc.tags)));
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO documents (rowid, id, owner, source, meta, content, search_text, "
                 "summary, tags, entities, content_hash, access_count, created_at, updated_at, "
                 "doc_length) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, "
                 "?14, ?15)",
                 "store the document"));
  const std::string tags = EncodeTags(doc.tags);
  const std::string entities = EncodeTags(doc.entities);
  put.Bind(1, rowid);
  put.Bind(2, doc.id);
  put.Bind(3, doc.owner);
  put.Bind(4, doc.source);
  put.Bind(5, doc.meta);
  put.Bind(6, doc.content);
  put.Bind(7, doc.search_text);
  put.Bind(8, doc.summary);
  put.Bind(9, tags);
  put.Bind(10, entities);
  put.Bind(11, doc.content_hash);
  put.Bind(12, doc.access_count);
  put.Bind(13, doc.created_at);
  put.Bind(14, doc.updated_at);
  put.Bind(15, length);
  return put.Run("store the document");
}

SqliteDocumentStore::SqliteDocumentStore(std::shared_ptr<SqliteDatabase> db) : db_(std::move(db)) {}

Result<DocumentPut> SqliteDocumentStore::PutDocument(const DocumentRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateDocument(row));
  DocumentRow doc = NewDocumentRow(row);
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement same, db.Prepare(std::string("SELECT ") + kDocumentColumns +
                                                          " FROM documents d WHERE d.owner = ? AND "
                                                          "d.content_hash = ?",
                                                      "find a document with the same content"));
    same.Bind(1, doc.owner);
    same.Bind(2, doc.content_hash);
    MNEMO_ASSIGN_OR_RETURN(std::optional<DocumentRow> existing,
                           ReadOne(same, "find a document with the same content"));
    if (existing) return DocumentPut{.row = std::move(*existing), .created = false};
  }
  {
    MNEMO_ASSIGN_OR_RETURN(Statement taken,
                           db.Prepare("SELECT 1 FROM documents WHERE id = ?", "check the id"));
    taken.Bind(1, doc.id);
    MNEMO_ASSIGN_OR_RETURN(bool found, taken.Step("check the id"));
    if (found) return Conflict("document id " + doc.id + " is already used");
  }
  MNEMO_RETURN_IF_ERROR(InsertDocumentIn(db, doc));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return DocumentPut{.row = std::move(doc), .created = true};
}

Result<std::optional<DocumentRow>> SqliteDocumentStore::GetDocument(std::string_view id,
                                                                    bool count_access) {
  const std::string select =
      std::string("SELECT ") + kDocumentColumns + " FROM documents d WHERE d.id = ?";
  if (!count_access) {
    ReaderLease db = db_->AcquireReader();
    MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(select, "read the document"));
    s.Bind(1, id);
    return ReadOne(s, "read the document");
  }
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement count,
        db.Prepare("UPDATE documents SET access_count = access_count + 1 WHERE id = ?",
                   "count the document's access"));
    count.Bind(1, id);
    MNEMO_RETURN_IF_ERROR(count.Run("count the document's access"));
  }
  if (sqlite3_changes(db.handle()) == 0) return std::optional<DocumentRow>();
  std::optional<DocumentRow> doc;
  {
    MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(select, "read the document"));
    s.Bind(1, id);
    MNEMO_ASSIGN_OR_RETURN(doc, ReadOne(s, "read the document"));
  }
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return doc;
}

Result<std::vector<DocumentHit>> SqliteDocumentStore::SearchDocuments(const DocumentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<DocumentHit>();
  // Bound without a copy: must outlive the statement's steps.
  const std::string match = MatchExpression(terms);
  ReaderLease db = db_->AcquireReader();
  // One owner's documents: the statistics are that owner's too.
  FtsScope scope{
      .fts = "documents_fts", .table = "documents d", .alias = "d", .rowid_column = "d.rowid"};
  if (query.owner) {
    scope.where = "d.owner = ?";
    scope.params = {*query.owner};
  }
  MNEMO_ASSIGN_OR_RETURN(const std::string stats, ScopeStats(*db, scope, terms));
  // CROSS JOIN keeps documents_fts the outer loop, which mnemo_score needs.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kDocumentColumns +
                      ", mnemo_score(documents_fts, d.doc_length, ?4) AS score FROM documents_fts "
                      "CROSS JOIN documents d ON d.rowid = documents_fts.rowid "
                      "WHERE documents_fts MATCH ?1 AND (?2 IS NULL OR d.owner = ?2) "
                      "ORDER BY score DESC, d.created_at DESC, d.id LIMIT ?3",
                  "search documents"));
  s.Bind(1, match);
  BindOptional(s, 2, query.owner);
  s.Bind(3, static_cast<int64_t>(query.limit));
  BindScopeStats(s, 4, stats);
  return ReadAll<DocumentHit>(
      s, "search documents", [](const Statement& row) -> Result<DocumentHit> {
        MNEMO_ASSIGN_OR_RETURN(DocumentRow doc, ReadDocument(row));
        return DocumentHit{.row = std::move(doc), .score = row.ColumnDouble(kDocumentColumnCount)};
      });
}

Result<std::vector<DocumentRow>> SqliteDocumentStore::ListDocuments(
    std::optional<std::string> owner, std::optional<std::string> source_prefix, int limit,
    int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (limit <= 0) return std::vector<DocumentRow>();
  ReaderLease db = db_->AcquireReader();
  // The prefix is compared as bytes (a BLOB), like std::string::starts_with.
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare(std::string("SELECT ") + kDocumentColumns +
                                         " FROM documents d WHERE (?1 IS NULL OR d.owner = ?1) AND "
                                         "(?2 IS NULL OR substr(CAST(d.source AS BLOB), 1, "
                                         "length(CAST(?2 AS BLOB))) = CAST(?2 AS BLOB)) "
                                         "ORDER BY d.created_at DESC, d.id LIMIT ?3 OFFSET ?4",
                                     "list documents"));
  BindOptional(s, 1, owner);
  BindOptional(s, 2, source_prefix);
  s.Bind(3, static_cast<int64_t>(limit));
  s.Bind(4, offset);
  return ReadAll<DocumentRow>(s, "list documents", ReadDocument);
}

Result<bool> DropDocumentRow(Connection& db, std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<IndexedText> indexed, FindIndexed(db, id));
  if (!indexed) return false;
  MNEMO_RETURN_IF_ERROR(Unindex(db, *indexed));
  MNEMO_ASSIGN_OR_RETURN(
      Statement del, db.Prepare("DELETE FROM documents WHERE rowid = ?", "delete the document"));
  del.Bind(1, indexed->rowid);
  MNEMO_RETURN_IF_ERROR(del.Run("delete the document"));
  return true;
}

Result<bool> SqliteDocumentStore::DeleteDocument(std::string_view id) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(bool deleted, DropDocumentRow(db, id));
  if (!deleted) return false;
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Result<int64_t> SqliteDocumentStore::CountDocuments(std::optional<std::string> owner) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare("SELECT COUNT(*) FROM documents WHERE ?1 IS NULL OR owner = ?1",
                               "count documents"));
  BindOptional(s, 1, owner);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("count documents"));
  return found ? s.ColumnInt(0) : 0;
}

Result<std::vector<int64_t>> SqliteDocumentStore::DocumentFrequencies(
    std::span<const std::string> terms) {
  std::vector<int64_t> counts;
  counts.reserve(terms.size());
  ReaderLease db = db_->AcquireReader();
  // One snapshot for every term.
  MNEMO_ASSIGN_OR_RETURN(Transaction read, Transaction::BeginRead(*db));
  for (const std::string& term : terms) {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db->Prepare("SELECT doc FROM documents_vocab WHERE term = ?", "read a document frequency"));
    s.Bind(1, term);
    MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("read a document frequency"));
    counts.push_back(found ? s.ColumnInt(0) : 0);
  }
  return counts;
}

Status SqliteDocumentStore::UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                                                  std::string_view summary,
                                                  std::span<const std::string> tags,
                                                  std::span<const std::string> entities,
                                                  TimeMs updated_at) {
  const std::string tags_json = EncodeTags(std::vector<std::string>(tags.begin(), tags.end()));
  const std::string entities_json =
      EncodeTags(std::vector<std::string>(entities.begin(), entities.end()));
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  MNEMO_ASSIGN_OR_RETURN(std::optional<IndexedText> indexed, FindIndexed(db, id));
  if (!indexed) return NotFound("no document " + std::string(id));
  MNEMO_RETURN_IF_ERROR(Unindex(db, *indexed));
  MNEMO_ASSIGN_OR_RETURN(const int64_t length,
                         Index(db, indexed->rowid, search_text, summary, TagsText(tags)));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement put,
        db.Prepare("UPDATE documents SET search_text = ?, summary = ?, tags = ?, entities = ?, "
                   "updated_at = ?, doc_length = ? WHERE rowid = ?",
                   "update the document"));
    put.Bind(1, search_text);
    put.Bind(2, summary);
    put.Bind(3, tags_json);
    put.Bind(4, entities_json);
    put.Bind(5, updated_at);
    put.Bind(6, length);
    put.Bind(7, indexed->rowid);
    MNEMO_RETURN_IF_ERROR(put.Run("update the document"));
  }
  return txn.Commit();
}

}  // namespace mnemo::storage::internal

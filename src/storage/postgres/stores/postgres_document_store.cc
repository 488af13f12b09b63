// Documents on PostgreSQL (pg_schema.cc): rows in `documents`, their
// computation text, summary and tags as one tsvector (the three columns of
// SQLite's documents_fts), document frequencies counted with its GIN index.
// The content is bytea: it is stored byte for byte, invalid UTF-8 and NUL
// bytes included, which a UTF-8 text column refuses.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/postgres/pg_writes.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_document_store.h"
#include "storage/rules/document_rules.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr const char* kDocumentColumns =
    "d.id, d.owner, d.source, d.meta, d.content, d.search_text, d.summary, d.tags, d.entities, "
    "d.content_hash, d.access_count, d.created_at, d.updated_at";
constexpr int kDocumentColumnCount = 13;

DocumentRow ReadDocument(const Rows& rows, int i) {
  return DocumentRow{.id = std::string(rows.Text(i, 0)),
                     .owner = std::string(rows.Text(i, 1)),
                     .source = std::string(rows.Text(i, 2)),
                     .meta = std::string(rows.Text(i, 3)),
                     .content = rows.Bytes(i, 4),
                     .search_text = std::string(rows.Text(i, 5)),
                     .summary = std::string(rows.Text(i, 6)),
                     .tags = rows.TextArray(i, 7),
                     .entities = rows.TextArray(i, 8),
                     .content_hash = std::string(rows.Text(i, 9)),
                     .access_count = rows.Int(i, 10),
                     .created_at = rows.Int(i, 11),
                     .updated_at = rows.Int(i, 12)};
}

std::optional<DocumentRow> FirstDocument(const Rows& rows) {
  if (rows.empty()) return std::nullopt;
  return ReadDocument(rows, 0);
}

// What the keyword index reads of a document: the columns of SQLite's
// documents_fts, so both count the same length and score the same.
pg::IndexedText IndexDocument(std::string_view search_text, std::string_view summary,
                              std::span<const std::string> tags) {
  return pg::IndexText({search_text, summary, TagsText(tags)});
}

}  // namespace

// `doc` as given (content_hash included) with its index row and statistics.
Status InsertDocumentIn(PgConn& conn, const DocumentRow& doc) {
  const pg::IndexedText text = IndexDocument(doc.search_text, doc.summary, doc.tags);
  Params p;
  p.Add(doc.id)
      .Add(doc.owner)
      .Add(doc.source)
      .Add(doc.meta)
      .AddBytes(doc.content)
      .Add(doc.search_text)
      .Add(doc.summary)
      .AddTextArray(doc.tags)
      .AddTextArray(doc.entities)
      .Add(doc.content_hash)
      .Add(doc.access_count)
      .Add(doc.created_at)
      .Add(doc.updated_at)
      .Add(text.length)
      .Add(pg::TsvectorLiteral(text));
  MNEMO_RETURN_IF_ERROR(
      conn.Exec("INSERT INTO documents (row_id, id, owner, source, meta, content, search_text, "
                "summary, tags, entities, content_hash, access_count, created_at, updated_at, "
                "doc_length, tsv) VALUES (nextval('document_rows'), $1, $2, $3, $4, "
                "$5::bytea, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::tsvector)",
                p, "store the document")
          .status());
  return pg::AddTextStats(conn, "documents", 1, text.length);
}

PostgresDocumentStore::PostgresDocumentStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

Result<DocumentPut> PostgresDocumentStore::PutDocument(const DocumentRow& row) {
  MNEMO_RETURN_IF_ERROR(ValidateDocument(row));
  // Outside the transaction: a retried attempt stores the same id.
  const DocumentRow doc = NewDocumentRow(row);
  DocumentPut out;
  MNEMO_RETURN_IF_ERROR(Write("store the document", [&](PgConn& conn) -> Status {
    out = {};
    MNEMO_ASSIGN_OR_RETURN(
        Rows same, conn.Exec(std::string("SELECT ") + kDocumentColumns +
                                 " FROM documents d WHERE d.owner = $1 AND d.content_hash = $2",
                             Params().Add(doc.owner).Add(doc.content_hash),
                             "find a document with the same content"));
    if (!same.empty()) {
      out = {.row = ReadDocument(same, 0), .created = false};
      return Status::Ok();
    }
    MNEMO_ASSIGN_OR_RETURN(Rows taken, conn.Exec("SELECT 1 FROM documents WHERE id = $1",
                                                 Params().Add(doc.id), "check the id"));
    if (!taken.empty()) return Conflict("document id " + doc.id + " is already used");
    MNEMO_RETURN_IF_ERROR(InsertDocumentIn(conn, doc));
    out = {.row = doc, .created = true};
    return Status::Ok();
  }));
  return out;
}

Result<std::optional<DocumentRow>> PostgresDocumentStore::GetDocument(std::string_view id,
                                                                      bool count_access) {
  if (!count_access) {
    MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
    MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->Exec(std::string("SELECT ") + kDocumentColumns +
                                                     " FROM documents d WHERE d.id = $1",
                                                 Params().Add(id), "read the document"));
    return FirstDocument(rows);
  }
  std::optional<DocumentRow> out;
  MNEMO_RETURN_IF_ERROR(Write("count the document's access", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Rows rows, conn.Exec(std::string("UPDATE documents d SET access_count = d.access_count + 1 "
                                         "WHERE d.id = $1 RETURNING ") +
                                 kDocumentColumns,
                             Params().Add(id), "count the document's access"));
    out = FirstDocument(rows);
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<DocumentHit>> PostgresDocumentStore::SearchDocuments(
    const DocumentQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<DocumentHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(pg::TermWeights weights,
                         pg::WeighTerms(*conn, "documents", "documents", terms,
                                        query.owner ? std::optional<pg::TextScope>(
                                                          pg::TextScope{.owner = *query.owner})
                                                    : std::nullopt));
  if (weights.empty()) return std::vector<DocumentHit>();
  Params p;
  const pg::ScoreSql score = pg::AddScoreParams(p, weights, "d");
  p.Add(query.owner);
  const std::string owner = pg::Last(p);
  p.Add(static_cast<int64_t>(query.limit));
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + kDocumentColumns + ", " + score.score +
                     " AS score FROM documents d WHERE " + score.match + " AND (" + owner +
                     "::text IS NULL OR d.owner = " + owner +
                     ") ORDER BY score DESC, d.created_at DESC, d.id LIMIT " + pg::Last(p),
                 p, "search documents"));
  std::vector<DocumentHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back({.row = ReadDocument(rows, i), .score = rows.Double(i, kDocumentColumnCount)});
  }
  return hits;
}

Result<std::vector<DocumentRow>> PostgresDocumentStore::ListDocuments(
    std::optional<std::string> owner, std::optional<std::string> source_prefix, int limit,
    int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (limit <= 0) return std::vector<DocumentRow>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  // starts_with compares bytes under the "C" collation, like
  // std::string::starts_with; no LIKE, so % and _ are no wildcards.
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + kDocumentColumns +
                     " FROM documents d WHERE ($1::text IS NULL OR d.owner = $1) AND "
                     "($2::text IS NULL OR starts_with(d.source, $2)) "
                     "ORDER BY d.created_at DESC, d.id LIMIT $3 OFFSET $4",
                 Params().Add(owner).Add(source_prefix).Add(limit).Add(offset), "list documents"));
  std::vector<DocumentRow> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(ReadDocument(rows, i));
  return out;
}

Result<bool> PostgresDocumentStore::DeleteDocument(std::string_view id) {
  bool deleted = false;
  MNEMO_RETURN_IF_ERROR(Write("delete the document", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows gone,
                           conn.Exec("DELETE FROM documents WHERE id = $1 RETURNING doc_length",
                                     Params().Add(id), "delete the document"));
    deleted = !gone.empty();
    if (!deleted) return Status::Ok();
    return pg::AddTextStats(conn, "documents", -1, -gone.Int(0, 0));
  }));
  return deleted;
}

Result<int64_t> PostgresDocumentStore::CountDocuments(std::optional<std::string> owner) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec("SELECT count(*) FROM documents WHERE $1::text IS NULL OR owner = $1",
                            Params().Add(owner), "count documents"));
  return rows.empty() ? 0 : rows.Int(0, 0);
}

Result<std::vector<int64_t>> PostgresDocumentStore::DocumentFrequencies(
    std::span<const std::string> terms) {
  if (terms.empty()) return std::vector<int64_t>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  // One statement: every term counted in one snapshot.
  return pg::CountTermRows(*conn, "documents", terms);
}

Status PostgresDocumentStore::UpdateDocumentDerived(
    std::string_view id, std::string_view search_text, std::string_view summary,
    std::span<const std::string> tags, std::span<const std::string> entities, TimeMs updated_at) {
  const pg::IndexedText text = IndexDocument(search_text, summary, tags);
  return Write("update the document", [&](PgConn& conn) -> Status {
    Params p;
    p.Add(id)
        .Add(search_text)
        .Add(summary)
        .AddTextArray(tags)
        .AddTextArray(entities)
        .Add(updated_at)
        .Add(text.length)
        .Add(pg::TsvectorLiteral(text));
    // The old length comes from the row as it was before the update.
    MNEMO_ASSIGN_OR_RETURN(
        Rows updated,
        conn.Exec("WITH old AS (SELECT row_id, doc_length FROM documents WHERE id = $1) "
                  "UPDATE documents d SET search_text = $2, summary = $3, tags = $4, "
                  "entities = $5, updated_at = $6, doc_length = $7, tsv = $8::tsvector "
                  "FROM old WHERE d.row_id = old.row_id RETURNING old.doc_length",
                  p, "update the document"));
    if (updated.empty()) return NotFound("no document " + std::string(id));
    return pg::AddTextStats(conn, "documents", 0, text.length - updated.Int(0, 0));
  });
}

}  // namespace mnemo::storage::internal

#include "storage/postgres/sql/pg_text_version.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/document_rules.h"
#include "text/pipeline/tokenizer.h"

namespace mnemo::storage::internal::pg {
namespace {

constexpr std::string_view kWhat = "rebuild the keyword index for a new text version";
constexpr int kPage = 500;

// A keyword-searchable table: its key and the columns its tsv is made of
// (documents' tags, a text[], are handled apart).
struct Source {
  const char* table;
  const char* key;
  const char* columns;  // one or two text columns (or expressions)
  int column_count;
};

constexpr Source kSources[] = {
    {"entries", "label", "key, content", 2},
    // A turn's search text is its content where search_text is NULL
    // (StoredSearchText).
    {"turns", "id", "COALESCE(search_text, content)", 1},
    {"events", "row_id", "text", 1},
    {"segment_recaps", "row_id", "body", 1},
    {"context_events", "id", "search_text", 1},
};

Result<int64_t> StoredVersion(PgConn& conn) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn.Exec("SELECT value FROM generations WHERE name = 'text_version'", kWhat));
  return rows.empty() ? int64_t{1} : rows.Int(0, 0);
}

Status Put(PgConn& conn, const char* table, const char* key, int64_t id, const IndexedText& text) {
  return conn
      .Exec(std::string("UPDATE ") + table + " SET tsv = $2::tsvector WHERE " + key + " = $1",
            Params().Add(id).Add(TsvectorLiteral(text)), kWhat)
      .status();
}

Result<int64_t> Rebuild(PgConn& conn) {
  int64_t rebuilt = 0;
  for (const Source& s : kSources) {
    for (int64_t after = INT64_MIN;;) {
      MNEMO_ASSIGN_OR_RETURN(
          Rows rows, conn.Exec(std::string("SELECT ") + s.key + ", " + s.columns + " FROM " +
                                   s.table + " WHERE " + s.key + " > $1 ORDER BY " + s.key +
                                   " LIMIT " + std::to_string(kPage),
                               Params().Add(after), kWhat));
      if (rows.empty()) break;
      for (int i = 0; i < rows.size(); ++i) {
        const IndexedText text = s.column_count == 2 ? IndexText({rows.Text(i, 1), rows.Text(i, 2)})
                                                     : IndexText({rows.Text(i, 1)});
        MNEMO_RETURN_IF_ERROR(Put(conn, s.table, s.key, rows.Int(i, 0), text));
        after = rows.Int(i, 0);
        ++rebuilt;
      }
    }
  }
  for (int64_t after = INT64_MIN;;) {
    MNEMO_ASSIGN_OR_RETURN(Rows rows,
                           conn.Exec("SELECT row_id, search_text, summary, tags FROM documents "
                                     "WHERE row_id > $1 ORDER BY row_id LIMIT " +
                                         std::to_string(kPage),
                                     Params().Add(after), kWhat));
    if (rows.empty()) break;
    for (int i = 0; i < rows.size(); ++i) {
      const std::vector<std::string> tags = rows.TextArray(i, 3);
      const IndexedText text = IndexText({rows.Text(i, 1), rows.Text(i, 2), TagsText(tags)});
      MNEMO_RETURN_IF_ERROR(Put(conn, "documents", "row_id", rows.Int(i, 0), text));
      after = rows.Int(i, 0);
      ++rebuilt;
    }
  }
  MNEMO_RETURN_IF_ERROR(FlushEntryTerms(conn));
  MNEMO_RETURN_IF_ERROR(conn.Exec("INSERT INTO generations (name, value) VALUES ('text_version', "
                                  "$1) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                                  Params().Add(text::kTextVersion), kWhat)
                            .status());
  return rebuilt;
}

}  // namespace

Result<int64_t> EnsureTextVersion(PgConn& conn, const std::string& schema) {
  int64_t rebuilt = 0;
  // One process rebuilds; the others then find the version current.
  MNEMO_RETURN_IF_ERROR(InMigrationTransaction(conn, schema, kWhat, [&]() -> Status {
    MNEMO_ASSIGN_OR_RETURN(int64_t stored, StoredVersion(conn));
    if (stored == text::kTextVersion) return Status::Ok();
    MNEMO_ASSIGN_OR_RETURN(rebuilt, Rebuild(conn));
    return Status::Ok();
  }));
  return rebuilt;
}

}  // namespace mnemo::storage::internal::pg

#include "storage/postgres/sql/pg_fts_anchor.h"

#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_schema.h"

namespace mnemo::storage::internal {
namespace {

// The query's whitespace-separated words joined by websearch's "or"; quotes
// and a leading '-' are dropped so that no word becomes a phrase or a NOT.
std::string AnchorQuery(std::string_view query) {
  std::string out;
  size_t i = 0;
  while (i < query.size()) {
    const size_t j = std::min(query.size(), query.find_first_of(" \t\n", i));
    std::string word;
    for (const char c : query.substr(i, j - i)) {
      if (c != '"' && !(c == '-' && word.empty())) word += c;
    }
    if (!word.empty()) {
      if (!out.empty()) out += " or ";
      out += word;
    }
    i = j + 1;
  }
  return out;
}

}  // namespace

PgFtsAnchor::PgFtsAnchor(std::unique_ptr<pg::PgConn> conn, std::string schema)
    : conn_(std::move(conn)), schema_(std::move(schema)) {}

PgFtsAnchor::~PgFtsAnchor() {
  if (conn_ != nullptr && conn_->ok()) {
    (void)conn_->ExecScript("DROP SCHEMA IF EXISTS " + pg::QuoteIdentifier(schema_) + " CASCADE",
                            "drop the anchor's schema");
  }
}

Result<std::unique_ptr<PgFtsAnchor>> PgFtsAnchor::Create(const std::string& url,
                                                         const std::string& schema) {
  const std::string quoted = pg::QuoteIdentifier(schema);
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<pg::PgConn> conn, pg::PgConn::Connect(url));
  MNEMO_RETURN_IF_ERROR(conn->ExecScript("CREATE SCHEMA " + quoted + "; SET search_path TO " +
                                             quoted +
                                             "; CREATE TABLE anchor (id bigint PRIMARY KEY, "
                                             "content text NOT NULL, tsv tsvector GENERATED "
                                             "ALWAYS AS (to_tsvector('simple', content)) STORED)",
                                         "create the anchor's table"));
  return std::unique_ptr<PgFtsAnchor>(new PgFtsAnchor(std::move(conn), schema));
}

Status PgFtsAnchor::Insert(std::span<const std::string> texts, int64_t first_rowid) {
  std::string rows;
  for (size_t i = 0; i < texts.size(); ++i) {
    rows += std::to_string(first_rowid + static_cast<int64_t>(i));
    rows += '\t';
    pg::AppendCopyField(rows, texts[i]);
    rows += '\n';
  }
  MNEMO_RETURN_IF_ERROR(conn_->ExecScript("BEGIN", "load the anchor"));
  MNEMO_RETURN_IF_ERROR(
      conn_->CopyIn("COPY anchor (id, content) FROM STDIN", rows, "load the anchor"));
  return conn_->ExecScript(
      "CREATE INDEX anchor_tsv ON anchor USING gin (tsv); COMMIT; ANALYZE anchor",
      "index the anchor");
}

Result<std::vector<int64_t>> PgFtsAnchor::Search(std::string_view query, int k) {
  std::vector<int64_t> ids;
  const std::string words = AnchorQuery(query);
  if (words.empty()) return ids;
  MNEMO_ASSIGN_OR_RETURN(
      pg::Rows rows, conn_->ExecPrepared("SELECT a.id, a.content FROM anchor a, "
                                         "websearch_to_tsquery('simple', $1) AS q WHERE a.tsv @@ q "
                                         "ORDER BY ts_rank_cd(a.tsv, q) DESC LIMIT $2",
                                         pg::Params().Add(words).Add(k), "search the anchor"));
  ids.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) ids.push_back(rows.Int(i, 0));
  return ids;
}

}  // namespace mnemo::storage::internal

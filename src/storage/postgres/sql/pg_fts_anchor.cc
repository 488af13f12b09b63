#include "storage/postgres/sql/pg_fts_anchor.h"

#include <algorithm>
#include <utility>

#include "storage/postgres/pg_connection.h"
#include "storage/postgres/sql/pg_schema.h"
#include "storage/postgres/sql/pg_text.h"
#include "text/pipeline/query.h"

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

// mnemo's query terms (text::QueryTerms, as a search sends them) as a
// tsquery literal: each term a quoted lexeme, OR'ed.
std::string MnemoTermsQuery(std::string_view query) {
  std::string out;
  for (const std::string& term : text::QueryTerms(query)) {
    if (!pg::SearchableTerm(term)) continue;
    if (!out.empty()) out += " | ";
    pg::AppendQuotedLexeme(out, term);
  }
  return out;
}

}  // namespace

PgFtsAnchor::PgFtsAnchor(std::unique_ptr<pg::PgConn> conn, std::string schema, Terms terms)
    : conn_(std::move(conn)), schema_(std::move(schema)), terms_(terms) {}

PgFtsAnchor::~PgFtsAnchor() {
  if (conn_ != nullptr && conn_->ok()) {
    (void)conn_->ExecScript("DROP SCHEMA IF EXISTS " + pg::QuoteIdentifier(schema_) + " CASCADE",
                            "drop the anchor's schema");
  }
}

Result<std::unique_ptr<PgFtsAnchor>> PgFtsAnchor::Create(const std::string& url,
                                                         const std::string& schema, Terms terms) {
  const std::string quoted = pg::QuoteIdentifier(schema);
  // kSimple: the server parses the text; kMnemo: the loader sends the
  // tsvector IndexText builds, as the PostgreSQL backend stores it.
  const std::string tsv = terms == Terms::kSimple
                              ? "tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', "
                                "content)) STORED"
                              : "tsv tsvector NOT NULL";
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<pg::PgConn> conn, pg::PgConn::Connect(url));
  MNEMO_RETURN_IF_ERROR(conn->ExecScript("CREATE SCHEMA " + quoted + "; SET search_path TO " +
                                             quoted +
                                             "; CREATE TABLE anchor (id bigint PRIMARY KEY, "
                                             "content text NOT NULL, " +
                                             tsv + ")",
                                         "create the anchor's table"));
  return std::unique_ptr<PgFtsAnchor>(new PgFtsAnchor(std::move(conn), schema, terms));
}

Status PgFtsAnchor::Insert(std::span<const std::string> texts, int64_t first_rowid) {
  std::string rows;
  for (size_t i = 0; i < texts.size(); ++i) {
    rows += std::to_string(first_rowid + static_cast<int64_t>(i));
    rows += '\t';
    pg::AppendCopyField(rows, texts[i]);
    if (terms_ == Terms::kMnemo) {
      rows += '\t';
      pg::AppendCopyField(rows, pg::TsvectorLiteral(pg::IndexText({texts[i]})));
    }
    rows += '\n';
  }
  MNEMO_RETURN_IF_ERROR(conn_->ExecScript("BEGIN", "load the anchor"));
  MNEMO_RETURN_IF_ERROR(conn_->CopyIn(terms_ == Terms::kMnemo
                                          ? "COPY anchor (id, content, tsv) FROM STDIN"
                                          : "COPY anchor (id, content) FROM STDIN",
                                      rows, "load the anchor"));
  return conn_->ExecScript(
      "CREATE INDEX anchor_tsv ON anchor USING gin (tsv); COMMIT; ANALYZE anchor",
      "index the anchor");
}

std::string PgFtsAnchor::QueryParam(std::string_view query) const {
  return terms_ == Terms::kMnemo ? MnemoTermsQuery(query) : AnchorQuery(query);
}

std::string_view PgFtsAnchor::QuerySql() const {
  return terms_ == Terms::kMnemo ? "CAST($1 AS tsquery)" : "websearch_to_tsquery('simple', $1)";
}

Result<std::vector<int64_t>> PgFtsAnchor::Search(std::string_view query, int k) {
  std::vector<int64_t> ids;
  const std::string q = QueryParam(query);
  if (q.empty()) return ids;
  MNEMO_ASSIGN_OR_RETURN(
      pg::Rows rows,
      conn_->ExecPrepared("SELECT a.id, a.content FROM anchor a, " + std::string(QuerySql()) +
                              " AS q WHERE a.tsv @@ q "
                              "ORDER BY ts_rank_cd(a.tsv, q) DESC LIMIT $2",
                          pg::Params().Add(q).Add(k), "search the anchor"));
  ids.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) ids.push_back(rows.Int(i, 0));
  return ids;
}

Result<int64_t> PgFtsAnchor::CountMatches(std::string_view query) {
  const std::string q = QueryParam(query);
  if (q.empty()) return 0;
  MNEMO_ASSIGN_OR_RETURN(pg::Rows rows,
                         conn_->ExecPrepared("SELECT count(*) FROM anchor a, " +
                                                 std::string(QuerySql()) + " AS q WHERE a.tsv @@ q",
                                             pg::Params().Add(q), "count the anchor's matches"));
  return rows.Int(0, 0);
}

}  // namespace mnemo::storage::internal

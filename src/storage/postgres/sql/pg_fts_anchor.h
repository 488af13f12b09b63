// The anchors `mnemo bench --backend postgres` measures keyword search against
// (issue 46): raw PostgreSQL full-text search on the same texts, as an
// application would use it without mnemo. One table in a schema of its own
// (dropped again by the destructor): the text and a stored tsvector of it,
// rows loaded by COPY in one transaction, then a GIN index on the tsvector. A
// query is the OR of its terms, matched with `@@`, ranked by `ts_rank_cd`,
// LIMIT k, answering id and text; one prepared statement, one round trip.
//
// Two kinds of terms:
//  - kSimple, what an application gets out of the box: the tsvector is
//    `to_tsvector('simple', text)` and a query its whitespace-separated words
//    (`websearch_to_tsquery('simple', 'w1 or w2 …')`). No stemming, and
//    unspaced Chinese text is one word per clause, so Chinese queries and
//    inflected English forms rarely match;
//  - kMnemo, the terms mnemo itself searches: the tsvector is the literal the
//    PostgreSQL backend stores for the text (pg_text.h's IndexText, the one
//    tokenizer of every backend) and a query the OR of text::QueryTerms, as a
//    search of mnemo sends them. The anchor then matches the rows mnemo
//    matches, and mnemo's ratio to it is its overhead over PostgreSQL's own
//    full-text search doing the same work.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::storage::internal {

namespace pg {
class PgConn;
}  // namespace pg

class PgFtsAnchor {
 public:
  enum class Terms { kSimple, kMnemo };

  // A new schema `schema` on the server at `url` (an existing one is an error).
  static Result<std::unique_ptr<PgFtsAnchor>> Create(const std::string& url,
                                                     const std::string& schema, Terms terms);
  ~PgFtsAnchor();
  PgFtsAnchor(const PgFtsAnchor&) = delete;
  PgFtsAnchor& operator=(const PgFtsAnchor&) = delete;

  // Inserts texts[i] as id first_rowid + i, then builds the index.
  Status Insert(std::span<const std::string> texts, int64_t first_rowid);

  // The ids of the top k rows for `query` (empty when it has no words).
  Result<std::vector<int64_t>> Search(std::string_view query, int k);

  // How many rows match `query` (all of them, not only the top k; 0 when it
  // has no terms): what the anchor's ranking had to go through.
  Result<int64_t> CountMatches(std::string_view query);

 private:
  PgFtsAnchor(std::unique_ptr<pg::PgConn> conn, std::string schema, Terms terms);
  // The statement's tsquery parameter for `query` (empty: no terms) and the
  // SQL expression that turns it into a tsquery.
  std::string QueryParam(std::string_view query) const;
  std::string_view QuerySql() const;
  std::unique_ptr<pg::PgConn> conn_;
  std::string schema_;
  Terms terms_;
};

}  // namespace mnemo::storage::internal

// The anchor `mnemo bench --backend postgres` measures keyword search against
// (issue 46): raw PostgreSQL full-text search on the same texts, as an
// application would use it without mnemo. One table in a schema of its own
// (dropped again by the destructor): the text and a stored tsvector of it
// (`to_tsvector('simple', text)`), rows loaded by COPY in one transaction,
// then a GIN index on the tsvector. A query is its whitespace-separated words
// OR'ed (`websearch_to_tsquery('simple', 'w1 or w2 …')`), matched with `@@`,
// ranked by `ts_rank_cd`, LIMIT k, answering id and text; one prepared
// statement, one round trip.
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
  // A new schema `schema` on the server at `url` (an existing one is an error).
  static Result<std::unique_ptr<PgFtsAnchor>> Create(const std::string& url,
                                                     const std::string& schema);
  ~PgFtsAnchor();
  PgFtsAnchor(const PgFtsAnchor&) = delete;
  PgFtsAnchor& operator=(const PgFtsAnchor&) = delete;

  // Inserts texts[i] as id first_rowid + i, then builds the index.
  Status Insert(std::span<const std::string> texts, int64_t first_rowid);

  // The ids of the top k rows for `query` (empty when it has no words).
  Result<std::vector<int64_t>> Search(std::string_view query, int k);

 private:
  PgFtsAnchor(std::unique_ptr<pg::PgConn> conn, std::string schema);
  std::unique_ptr<pg::PgConn> conn_;
  std::string schema_;
};

}  // namespace mnemo::storage::internal

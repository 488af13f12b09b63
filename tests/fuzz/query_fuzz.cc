// The FTS query sanitiser (text/pipeline/query.h, spec 20) and the MATCH expression
// the SQLite backend builds from its terms. Properties: any text gives at
// most kMaxQueryTerms distinct, non-empty, valid UTF-8 terms; their MATCH
// expression never fails in FTS5 (no syntax survives); a document holding
// the query text is found by it (index and query agree), with a score in
// [0, 1].
#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.h"
#include "storage/sqlite/fts/fts_rank.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "text/pipeline/query.h"
#include "text/utf8.h"

using mnemo::fuzz::Fail;

namespace {

sqlite3* Db() {
  static sqlite3* db = [] {
    sqlite3* d = nullptr;
    if (sqlite3_open(":memory:", &d) != SQLITE_OK) Fail("sqlite3_open");
    if (!mnemo::storage::internal::RegisterFtsTokenizer(d).ok() ||
        !mnemo::storage::internal::RegisterFtsRank(d).ok()) {
      Fail("cannot register the tokenizer");
    }
    if (sqlite3_exec(d, "CREATE VIRTUAL TABLE docs USING fts5(body, tokenize='mnemo')", nullptr,
                     nullptr, nullptr) != SQLITE_OK) {
      Fail(sqlite3_errmsg(d));
    }
    return d;
  }();
  return db;
}

void Exec(sqlite3* db, const char* sql, std::string_view text = {}) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) Fail(sqlite3_errmsg(db));
  if (!text.empty()) {
    sqlite3_bind_text(stmt, 1, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
  }
  if (sqlite3_finalize(stmt) != SQLITE_OK) Fail(sqlite3_errmsg(db));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> terms = mnemo::text::QueryTerms(query);
  if (terms.size() > mnemo::text::kMaxQueryTerms) Fail("too many terms");
  std::set<std::string> distinct;
  for (const std::string& t : terms) {
    if (t.empty() || !mnemo::text::IsValidUtf8(t)) Fail("empty or ill-formed term");
    if (!distinct.insert(t).second) Fail("repeated term " + t);
  }
  if (terms.empty()) return 0;

  sqlite3* db = Db();
  Exec(db, "DELETE FROM docs");
  // The raw bytes, as a tool output or turn would be indexed.
  Exec(db, "INSERT INTO docs(rowid, body) VALUES (1, ?1)", query);
  const std::string match = mnemo::storage::internal::MatchExpression(terms);
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT rowid, mnemo_score(docs) FROM docs WHERE docs MATCH ?1", -1,
                         &stmt, nullptr) != SQLITE_OK) {
    Fail(sqlite3_errmsg(db));
  }
  sqlite3_bind_text(stmt, 1, match.data(), static_cast<int>(match.size()), SQLITE_STATIC);
  int rows = 0;
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    ++rows;
    const double score = sqlite3_column_double(stmt, 1);
    if (!(score >= 0.0 && score <= 1.0)) Fail("score outside [0, 1]");
  }
  if (rc != SQLITE_DONE) Fail(std::string("MATCH failed: ") + sqlite3_errmsg(db) + " for " + match);
  sqlite3_finalize(stmt);
  if (size <= mnemo::text::kMaxQueryReadBytes && rows != 1) {
    Fail("the document holding the query is not found by its terms: " + match);
  }
  return 0;
}

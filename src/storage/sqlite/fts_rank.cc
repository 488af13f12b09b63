#include "storage/sqlite/fts_rank.h"

#include <charconv>
#include <vector>

#include "storage/bm25.h"
#include "storage/sqlite/connection.h"
#include "storage/sqlite/entry_sql.h"
#include "storage/sqlite/fts_tokenizer.h"

namespace mnemo::storage::internal {
namespace {

// Per-query statistics, computed on the first row and reused for the rest.
struct QueryStats {
  Bm25Corpus corpus;
  std::vector<Bm25Term> terms;  // documents_with_term fixed; frequency per row
};

int CountRow(const Fts5ExtensionApi* /*api*/, Fts5Context* /*fts*/, void* user) {
  ++*static_cast<int64_t*>(user);
  return SQLITE_OK;
}

// The counts of a `stats` argument ("N total n_1 ... n_k"); false when the
// text is not that.
bool ParseScopeStats(std::string_view text, QueryStats& stats, int phrases) {
  std::vector<int64_t> numbers;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    int64_t n = 0;
    auto [next, ec] = std::from_chars(p, end, n);
    if (ec != std::errc()) return false;
    numbers.push_back(n);
    p = next;
  }
  if (numbers.size() != static_cast<size_t>(phrases) + 2) return false;
  stats.corpus = {numbers[0], numbers[1]};
  stats.terms.assign(static_cast<size_t>(phrases), Bm25Term{});
  for (int i = 0; i < phrases; ++i) {
    stats.terms[static_cast<size_t>(i)].documents_with_term = numbers[static_cast<size_t>(i) + 2];
  }
  return true;
}

int LoadQueryStats(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_value* scope,
                   QueryStats& stats) {
  if (scope != nullptr && sqlite3_value_type(scope) != SQLITE_NULL) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(scope));
    const int bytes = sqlite3_value_bytes(scope);
    return ParseScopeStats(
               std::string_view(text == nullptr ? "" : text, static_cast<size_t>(bytes)), stats,
               api->xPhraseCount(fts))
               ? SQLITE_OK
               : SQLITE_MISMATCH;
  }
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  stats.corpus = {rows, tokens};
  const int phrases = api->xPhraseCount(fts);
  stats.terms.assign(static_cast<size_t>(phrases), Bm25Term{});
  for (int i = 0; rc == SQLITE_OK && i < phrases; ++i) {
    int64_t count = 0;
    rc = api->xQueryPhrase(fts, i, &count, CountRow);
    stats.terms[static_cast<size_t>(i)].documents_with_term = count;
  }
  return rc;
}

void Score(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int argc,
           sqlite3_value** argv) {
  auto* stats = static_cast<QueryStats*>(api->xGetAuxdata(fts, 0));
  if (stats == nullptr) {
    stats = new QueryStats();
    int rc = LoadQueryStats(api, fts, argc >= 2 ? argv[1] : nullptr, *stats);
    if (rc == SQLITE_OK) {
      rc = api->xSetAuxdata(fts, stats, [](void* p) { delete static_cast<QueryStats*>(p); });
    } else {
      delete stats;
    }
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
  }
  for (Bm25Term& t : stats->terms) t.frequency = 0;
  int instances = 0;
  int rc = api->xInstCount(fts, &instances);
  for (int i = 0; rc == SQLITE_OK && i < instances; ++i) {
    int phrase = 0;
    int column = 0;
    int offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase >= 0 && phrase < static_cast<int>(stats->terms.size())) {
      ++stats->terms[static_cast<size_t>(phrase)].frequency;
    }
  }
  int64_t length = 0;
  if (argc >= 1) {
    length = sqlite3_value_int64(argv[0]);
  } else if (rc == SQLITE_OK) {
    int size = 0;
    rc = api->xColumnSize(fts, -1, &size);
    length = size;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_double(ctx, NormalisedBm25(stats->corpus, length, stats->terms));
}

// mnemo_matched(fts): how many phrases of the MATCH expression (query terms)
// the current row holds.
void Matched(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int /*argc*/,
             sqlite3_value** /*argv*/) {
  const int phrases = api->xPhraseCount(fts);
  int64_t matched = 0;
  for (int i = 0; i < phrases; ++i) {
    Fts5PhraseIter iter;
    int column = 0;
    int offset = 0;
    if (api->xPhraseFirst(fts, i, &iter, &column, &offset) != SQLITE_OK) {
      sqlite3_result_error_code(ctx, SQLITE_ERROR);
      return;
    }
    if (column >= 0) ++matched;
  }
  sqlite3_result_int64(ctx, matched);
}

}  // namespace

Result<std::string> ScopeStats(Connection& db, const FtsScope& scope,
                               const std::vector<std::string>& terms) {
  if (scope.where.empty()) return std::string();
  const std::string what = "count the keyword statistics of the caller's rows";
  std::string corpus_sql(scope.corpus_sql);
  if (corpus_sql.empty()) {
    corpus_sql = "SELECT count(*), COALESCE(sum(";
    corpus_sql.append(scope.alias).append(".doc_length), 0) FROM ").append(scope.table);
    corpus_sql.append(" WHERE ").append(scope.where);
  }
  MNEMO_ASSIGN_OR_RETURN(Statement corpus, db.Prepare(corpus_sql, what));
  for (size_t i = 0; i < scope.params.size(); ++i) {
    corpus.Bind(static_cast<int>(i) + 1, std::string_view(scope.params[i]));
  }
  MNEMO_ASSIGN_OR_RETURN(bool row, corpus.Step(what));
  std::string out =
      row ? std::to_string(corpus.ColumnInt(0)) + " " + std::to_string(corpus.ColumnInt(1)) : "0 0";
  MNEMO_ASSIGN_OR_RETURN(
      Statement count,
      db.Prepare("SELECT count(*) FROM " + std::string(scope.fts) + " CROSS JOIN " +
                     std::string(scope.table) + " ON " + std::string(scope.rowid_column) + " = " +
                     std::string(scope.fts) + ".rowid WHERE " + std::string(scope.fts) +
                     " MATCH ? AND " + scope.where,
                 what));
  for (const std::string& term : terms) {
    const std::string match = MatchExpression({term});
    count.Reset();
    count.Bind(1, std::string_view(match));
    for (size_t i = 0; i < scope.params.size(); ++i) {
      count.Bind(static_cast<int>(i) + 2, std::string_view(scope.params[i]));
    }
    MNEMO_ASSIGN_OR_RETURN(bool counted, count.Step(what));
    out += " " + std::to_string(counted ? count.ColumnInt(0) : 0);
  }
  return out;
}

void BindScopeStats(Statement& s, int index, const std::string& stats) {
  if (stats.empty()) {
    s.BindNull(index);
  } else {
    s.Bind(index, std::string_view(stats));
  }
}

Status RegisterFtsRank(sqlite3* db) {
  MNEMO_ASSIGN_OR_RETURN(fts5_api * api, GetFts5Api(db));
  int rc = api->xCreateFunction(api, kFtsRankFunctionName, nullptr, Score, nullptr);
  if (rc == SQLITE_OK) {
    rc = api->xCreateFunction(api, kFtsMatchedFunctionName, nullptr, Matched, nullptr);
  }
  return rc == SQLITE_OK ? Status::Ok() : SqliteStatus(rc, "register the FTS5 rank functions");
}

}  // namespace mnemo::storage::internal

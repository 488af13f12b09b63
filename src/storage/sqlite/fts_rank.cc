#include "storage/sqlite/fts_rank.h"

#include <vector>

#include "storage/bm25.h"
#include "storage/sqlite/connection.h"
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

int LoadQueryStats(const Fts5ExtensionApi* api, Fts5Context* fts, QueryStats& stats) {
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
    int rc = LoadQueryStats(api, fts, *stats);
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

}  // namespace

Status RegisterFtsRank(sqlite3* db) {
  MNEMO_ASSIGN_OR_RETURN(fts5_api * api, GetFts5Api(db));
  const int rc = api->xCreateFunction(api, kFtsRankFunctionName, nullptr, Score, nullptr);
  return rc == SQLITE_OK ? Status::Ok() : SqliteStatus(rc, "register the FTS5 rank function");
}

}  // namespace mnemo::storage::internal

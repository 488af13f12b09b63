// EntryStore::KeywordSearch on SQLite: entries_fts scored by mnemo_score,
// over the narrow entries_search rows when the filter allows, else over
// `entries` (migrations.cc, versions 1 and 13).
#include <algorithm>
#include <tuple>

#include "storage/rules/entry_rules.h"
#include "storage/sqlite/fts/fts_rank.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/stores/sqlite_entry_store.h"

namespace mnemo::storage::internal {

namespace {

// How many rows past k a search over the narrow rows takes, so that a run
// of rows tied on (score, updated_at) at the k-th place is seen whole.
constexpr int64_t kTieSlack = 8;

// KeywordSearch over the narrow entries_search rows (schema v13), for a
// filter they can answer (`narrow`, BuildSearchFilter). Their seek is what a
// search costs per match, and rows of 18 bytes instead of `entries`' ~350
// mostly hit the cache: at 100k entries the seek into `entries` was a third
// of a search (issue 22). The rows have no key, owner or namespace, the
// tie-breakers after (score, updated_at) (spec 20): the query takes kTieSlack
// rows past k, the rows down to the end of the k-th row's tie are read from
// `entries` and sorted in full. nullopt when that tie runs past them too (the
// caller then searches `entries`). Runs in `db`'s open read transaction.
Result<std::optional<std::vector<KeywordHit>>> SearchNarrowRows(Connection& db,
                                                                const KeywordQuery& query,
                                                                const SqlFilter& narrow,
                                                                const std::string& match,
                                                                const std::string& stats) {
  struct Ranked {
    Label label;
    double score;
    TimeMs updated_at;
  };
  const auto k = static_cast<size_t>(query.limit);
  const int64_t taken = query.limit + kTieSlack;
  std::vector<Ranked> ranked;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db.Prepare("SELECT e.rowid, mnemo_score(entries_fts, e.doc_length, ?) AS score, "
                   "e.updated_at AS u FROM entries_fts CROSS JOIN entries_search e "
                   "ON e.rowid = entries_fts.rowid WHERE entries_fts MATCH ? AND " +
                       narrow.where + " ORDER BY score DESC, u DESC LIMIT ?",
                   "search entries"));
    BindScopeStats(s, 1, stats);
    s.Bind(2, match);
    s.Bind(BindFilter(s, narrow, 3), taken);
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("search entries"));
      if (!row) break;
      ranked.push_back({s.ColumnInt(0), s.ColumnDouble(1), s.ColumnInt(2)});
    }
  }
  auto tied = [](const Ranked& a, const Ranked& b) {
    return a.score == b.score && a.updated_at == b.updated_at;
  };
  if (ranked.size() > k) {
    const Ranked& kth = ranked[k - 1];
    if (static_cast<int64_t>(ranked.size()) == taken && tied(ranked.back(), kth)) {
      return std::optional<std::vector<KeywordHit>>();
    }
    size_t end = k;
    while (end < ranked.size() && tied(ranked[end], kth)) ++end;
    ranked.resize(end);
  }
  std::vector<KeywordHit> hits;
  hits.reserve(ranked.size());
  {
    MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(std::string("SELECT ") + kEntryColumns +
                                                       " FROM entries e WHERE e.rowid = ?",
                                                   "read an entry found"));
    for (const Ranked& r : ranked) {
      s.Reset();
      s.Bind(1, r.label);
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read an entry found"));
      if (!row) return Internal("an entry found by search is not in `entries`");
      hits.push_back({.entry = ReadEntry(s), .keyword_score = r.score, .label = r.label});
    }
  }
  // The ORDER BY of the search over `entries` (std::string compares bytes,
  // as SQLite's BINARY collation does).
  std::sort(hits.begin(), hits.end(), [](const KeywordHit& a, const KeywordHit& b) {
    if (a.keyword_score != b.keyword_score) return a.keyword_score > b.keyword_score;
    if (a.entry.updated_at != b.entry.updated_at) return a.entry.updated_at > b.entry.updated_at;
    return std::tie(a.entry.key, a.entry.owner, a.entry.ns) <
           std::tie(b.entry.key, b.entry.owner, b.entry.ns);
  });
  if (hits.size() > k) hits.resize(k);
  return std::optional<std::vector<KeywordHit>>(std::move(hits));
}

}  // namespace

namespace {

// The search over `match`, scored with `stats`: over the narrow rows when
// the filter allows and the tie at the limit fits, else over `entries`.
Result<std::vector<KeywordHit>> SearchMatch(Connection& db, const KeywordQuery& query,
                                            const std::string& match, const std::string& stats) {
  if (const std::optional<SqlFilter> narrow = BuildSearchFilter(query.filter)) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<std::vector<KeywordHit>> hits,
                           SearchNarrowRows(db, query, *narrow, match, stats));
    if (hits) return std::move(*hits);
  }
  // Two passes (issue 22): the inner query scores every match the filter
  // lets through and keeps only the sort key and the rowid in its top-k
  // sorter; the outer one reads whole entries for those rows alone. CROSS
  // JOIN keeps entries_fts the outer loop, which mnemo_score needs; the
  // filters drop rows before they are scored and sorted.
  const SqlFilter f = BuildFilter(query.filter);
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db.Prepare(std::string("SELECT ") + kEntryColumns +
                     ", t.score, t.rid FROM (SELECT e.rowid AS rid, "
                     "mnemo_score(entries_fts, e.doc_length, ?) AS score, e.updated_at AS u, "
                     "e.key AS k, e.owner AS o, e.namespace AS n FROM entries_fts "
                     "CROSS JOIN entries e ON e.rowid = entries_fts.rowid "
                     "WHERE entries_fts MATCH ? AND " +
                     f.where +
                     " ORDER BY score DESC, u DESC, k, o, n LIMIT ?) t "
                     "CROSS JOIN entries e ON e.rowid = t.rid "
                     "ORDER BY t.score DESC, t.u DESC, t.k, t.o, t.n",
                 "search entries"));
  BindScopeStats(s, 1, stats);
  s.Bind(2, match);
  const int next = BindFilter(s, f, 3);
  s.Bind(next, static_cast<int64_t>(query.limit));
  std::vector<KeywordHit> hits;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("search entries"));
    if (!row) break;
    hits.push_back({.entry = ReadEntry(s),
                    .keyword_score = s.ColumnDouble(kEntryColumnCount),
                    .label = s.ColumnInt(kEntryColumnCount + 1)});
  }
  return hits;
}

// Whether the hits of a search over `pruned.match` are the full query's:
// `limit` of them, the last above what a row of C terms alone can score.
bool Proven(const PrunedMatch& pruned, const std::vector<KeywordHit>& hits, size_t limit) {
  return hits.size() == limit && hits.back().keyword_score > pruned.bound + kPruneBoundMargin;
}

}  // namespace

Result<std::vector<KeywordHit>> SqliteEntryStore::KeywordSearch(const KeywordQuery& query) {
  const std::vector<std::string> terms = DistinctTerms(query.terms);
  if (terms.empty() || query.limit <= 0) return std::vector<KeywordHit>();
  const std::string match = MatchExpression(terms);
  ReaderLease db = db_->AcquireReader();
  // One snapshot for the statistics and every statement of the search.
  MNEMO_ASSIGN_OR_RETURN(Transaction snapshot, Transaction::BeginRead(*db));
  MNEMO_ASSIGN_OR_RETURN(ScoreStatsMemo* const memo, db.ValidMemo());
  const FtsScope scope = EntryFtsScope(query.filter.scope);
  const std::optional<int64_t> rows =
      scope.where.empty() ? memo->KnownRows(scope) : std::optional<int64_t>();
  if (terms.size() < 2 || (rows && *rows < db_->options().prune_keyword_search_from_rows)) {
    MNEMO_ASSIGN_OR_RETURN(const std::string stats, ScopeStats(*db, scope, terms, memo));
    return SearchMatch(*db, query, match, stats);
  }
  // A query of several terms first searches the rows of its rarer ones,
  // when that can be shown to give the same hits (FirstPrunedMatch): at 1M
  // entries a common word matches tens of thousands of rows, each read and
  // scored by the full query.
  MNEMO_ASSIGN_OR_RETURN(const ScoreStats counts, CountScoreStats(*db, scope, terms, memo));
  const auto limit = static_cast<size_t>(query.limit);
  if (const std::optional<PrunedMatch> first = FirstPrunedMatch(terms, counts, query.limit)) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<KeywordHit> hits,
                           SearchMatch(*db, query, first->match, first->stats));
    if (Proven(*first, hits, limit)) {
      pruned_first_.fetch_add(1, std::memory_order_relaxed);
      return hits;
    }
    // The full query's limit-th hit scores at least this one's: leave to C
    // the common terms that cannot reach it.
    const std::optional<PrunedMatch> second =
        hits.size() == limit ? PrunedMatchBelow(terms, counts, hits.back().keyword_score)
                             : std::nullopt;
    if (second) {
      MNEMO_ASSIGN_OR_RETURN(hits, SearchMatch(*db, query, second->match, second->stats));
      if (Proven(*second, hits, limit)) {
        pruned_second_.fetch_add(1, std::memory_order_relaxed);
        return hits;
      }
    }
    pruned_full_.fetch_add(1, std::memory_order_relaxed);
  }
  return SearchMatch(*db, query, match, FormatStats(counts));
}

SqliteEntryStore::KeywordPruneCounts SqliteEntryStore::keyword_prune_counts() const {
  return {.first = pruned_first_.load(std::memory_order_relaxed),
          .second = pruned_second_.load(std::memory_order_relaxed),
          .full = pruned_full_.load(std::memory_order_relaxed)};
}

}  // namespace mnemo::storage::internal

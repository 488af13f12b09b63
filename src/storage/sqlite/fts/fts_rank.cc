#include "storage/sqlite/fts/fts_rank.h"

#include <algorithm>
#include <charconv>
#include <tuple>
#include <vector>

#include "storage/rules/bm25.h"
#include "storage/sqlite/connection.h"
#include "storage/sqlite/fts/fts_tokenizer.h"
#include "storage/sqlite/rows/entry_sql.h"

namespace mnemo::storage::internal {
namespace {

// Per-query statistics, computed on the first row and reused for the rest.
struct QueryStats {
  Bm25Corpus corpus;
  std::vector<Bm25Term> terms;  // documents_with_term fixed; frequency per row
  // The term of each phrase of the MATCH expression, -1 for a phrase not
  // counted (a pruned match repeats terms); empty: phrase i is term i.
  std::vector<int> phrase_terms;
};

int CountRow(const Fts5ExtensionApi* /*api*/, Fts5Context* /*fts*/, void* user) {
  ++*static_cast<int64_t*>(user);
  return SQLITE_OK;
}

// The numbers of a `stats` argument, "N total n_1 ... n_k" with an optional
// phrase map "| p_1 ... p_m" (FormatStats); false when the text is not that
// or does not fit the `phrases` of the MATCH expression.
bool ParseScopeStats(std::string_view text, QueryStats& stats, int phrases) {
  std::vector<int64_t> numbers;
  std::vector<int64_t> map;
  bool in_map = false;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (*p == ' ') {
      ++p;
      continue;
    }
    if (*p == '|' && !in_map) {
      in_map = true;
      ++p;
      continue;
    }
    int64_t n = 0;
    auto [next, ec] = std::from_chars(p, end, n);
    if (ec != std::errc()) return false;
    (in_map ? map : numbers).push_back(n);
    p = next;
  }
  if (numbers.size() < 2) return false;
  const size_t terms = numbers.size() - 2;
  if (in_map ? map.size() != static_cast<size_t>(phrases) : terms != static_cast<size_t>(phrases)) {
    return false;
  }
  stats.corpus = {numbers[0], numbers[1]};
  stats.terms.assign(terms, Bm25Term{});
  for (size_t i = 0; i < terms; ++i) stats.terms[i].documents_with_term = numbers[i + 2];
  stats.phrase_terms.clear();
  for (const int64_t t : map) {
    if (t < -1 || t >= static_cast<int64_t>(terms)) return false;
    stats.phrase_terms.push_back(static_cast<int>(t));
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
    if (rc == SQLITE_OK && !stats->phrase_terms.empty()) {
      phrase = phrase >= 0 && phrase < static_cast<int>(stats->phrase_terms.size())
                   ? stats->phrase_terms[static_cast<size_t>(phrase)]
                   : -1;
    }
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

ScoreStats ToScoreStats(const QueryStats& stats) {
  ScoreStats out{.documents = stats.corpus.documents, .total_tokens = stats.corpus.total_tokens};
  out.documents_with_term.reserve(stats.terms.size());
  for (const Bm25Term& t : stats.terms) out.documents_with_term.push_back(t.documents_with_term);
  return out;
}

// mnemo_stats(fts): the numbers mnemo_score takes from FTS5 when it has no
// `stats` argument, as that argument's text (FormatStats).
void TableStats(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int /*argc*/,
                sqlite3_value** /*argv*/) {
  QueryStats stats;
  const int rc = LoadQueryStats(api, fts, nullptr, stats);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  const std::string text = FormatStats(ToScoreStats(stats));
  sqlite3_result_text(ctx, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

}  // namespace

std::string FormatStats(const ScoreStats& stats, std::span<const int> phrase_terms) {
  std::string out = std::to_string(stats.documents);
  out.append(1, ' ').append(std::to_string(stats.total_tokens));
  for (const int64_t n : stats.documents_with_term) out.append(1, ' ').append(std::to_string(n));
  if (!phrase_terms.empty()) {
    out.append(" |");
    for (const int t : phrase_terms) out.append(1, ' ').append(std::to_string(t));
  }
  return out;
}

Status ScoreStatsMemo::Validate(Connection& db) {
  const std::string what = "read the database's data version";
  MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare("PRAGMA data_version", what));
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step(what));
  const int64_t version = row ? s.ColumnInt(0) : -1;
  if (version != version_ || version < 0) {
    scopes_.clear();
    kept_ = 0;
  }
  version_ = version;
  return Status::Ok();
}

namespace {

std::string ScopeKey(const FtsScope& scope) {
  std::string key(scope.fts);
  key.append(1, '\x1f').append(scope.table).append(1, '\x1f').append(scope.where);
  for (const std::string& p : scope.params) key.append(1, '\x1f').append(p);
  return key;
}

}  // namespace

ScoreStatsMemo::Counts& ScoreStatsMemo::For(const FtsScope& scope) {
  const auto [it, added] = scopes_.try_emplace(ScopeKey(scope));
  if (added) ++kept_;
  return it->second;
}

void ScoreStatsMemo::Keep(Counts& counts, const std::string& term, int64_t rows) {
  if (counts.terms.insert_or_assign(term, rows).second) ++kept_;
}

void ScoreStatsMemo::Trim() {
  if (kept_ <= kMaxKept) return;
  scopes_.clear();
  kept_ = 0;
}

std::optional<int64_t> ScoreStatsMemo::KnownRows(const FtsScope& scope) const {
  const auto it = scopes_.find(ScopeKey(scope));
  if (it == scopes_.end() || !it->second.corpus) return std::nullopt;
  return it->second.corpus->first;
}

Result<ScoreStats> CountScoreStats(Connection& db, const FtsScope& scope,
                                   const std::vector<std::string>& terms, ScoreStatsMemo* memo) {
  const std::string what = "count the keyword statistics of the caller's rows";
  ScoreStatsMemo::Counts* kept = memo != nullptr ? &memo->For(scope) : nullptr;
  ScoreStats out;
  out.documents_with_term.assign(terms.size(), 0);
  std::vector<size_t> missing;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (kept != nullptr) {
      if (const auto it = kept->terms.find(terms[i]); it != kept->terms.end()) {
        out.documents_with_term[i] = it->second;
        continue;
      }
    }
    missing.push_back(i);
  }
  const bool need_corpus = kept == nullptr || !kept->corpus;
  if (!need_corpus) std::tie(out.documents, out.total_tokens) = *kept->corpus;
  auto keep = [&] {
    if (kept == nullptr) return;
    for (const size_t i : missing) memo->Keep(*kept, terms[i], out.documents_with_term[i]);
    memo->Trim();
  };
  if (scope.where.empty()) {
    if (!need_corpus && missing.empty()) return out;
    // FTS5's own numbers come with a matched row: the corpus with every
    // term's count the first time, then the counts of the terms not kept.
    if (need_corpus) {
      missing.resize(terms.size());
      for (size_t i = 0; i < terms.size(); ++i) missing[i] = i;
    }
    std::vector<std::string> asked;
    asked.reserve(missing.size());
    for (const size_t i : missing) asked.push_back(terms[i]);
    MNEMO_ASSIGN_OR_RETURN(
        Statement s, db.Prepare("SELECT " + std::string(kFtsStatsFunctionName) + "(" +
                                    std::string(scope.fts) + ") FROM " + std::string(scope.fts) +
                                    " WHERE " + std::string(scope.fts) + " MATCH ? LIMIT 1",
                                what));
    const std::string match = MatchExpression(asked);
    s.Bind(1, std::string_view(match));
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step(what));
    // No row holds an asked term: each counts 0 (and, the first time, no
    // score is ever asked for).
    if (!row) {
      keep();
      return out;
    }
    QueryStats parsed;
    if (!ParseScopeStats(s.ColumnText(0), parsed, static_cast<int>(asked.size()))) {
      return Internal("mnemo_stats gave numbers that do not fit the query");
    }
    const ScoreStats asked_stats = ToScoreStats(parsed);
    out.documents = asked_stats.documents;
    out.total_tokens = asked_stats.total_tokens;
    for (size_t j = 0; j < missing.size(); ++j) {
      out.documents_with_term[missing[j]] = asked_stats.documents_with_term[j];
    }
    if (kept != nullptr) kept->corpus = std::pair(out.documents, out.total_tokens);
    keep();
    return out;
  }
  if (need_corpus) {
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
    if (row) {
      out.documents = corpus.ColumnInt(0);
      out.total_tokens = corpus.ColumnInt(1);
    }
    if (kept != nullptr) kept->corpus = std::pair(out.documents, out.total_tokens);
  }
  if (missing.empty()) {
    if (memo != nullptr) memo->Trim();
    return out;
  }
  MNEMO_ASSIGN_OR_RETURN(
      Statement count,
      db.Prepare("SELECT count(*) FROM " + std::string(scope.fts) + " CROSS JOIN " +
                     std::string(scope.table) + " ON " + std::string(scope.rowid_column) + " = " +
                     std::string(scope.fts) + ".rowid WHERE " + std::string(scope.fts) +
                     " MATCH ? AND " + scope.where,
                 what));
  for (const size_t i : missing) {
    const std::string match = MatchExpression({terms[i]});
    count.Reset();
    count.Bind(1, std::string_view(match));
    for (size_t p = 0; p < scope.params.size(); ++p) {
      count.Bind(static_cast<int>(p) + 2, std::string_view(scope.params[p]));
    }
    MNEMO_ASSIGN_OR_RETURN(bool counted, count.Step(what));
    out.documents_with_term[i] = counted ? count.ColumnInt(0) : 0;
  }
  keep();
  return out;
}

Result<std::string> ScopeStats(Connection& db, const FtsScope& scope,
                               const std::vector<std::string>& terms, ScoreStatsMemo* memo) {
  if (scope.where.empty()) {
    if (memo == nullptr) return std::string();
    ScoreStatsMemo::Counts& kept = memo->For(scope);
    if (!kept.corpus) return std::string();
    for (const std::string& t : terms) {
      if (!kept.terms.contains(t)) return std::string();
    }
  }
  MNEMO_ASSIGN_OR_RETURN(const ScoreStats stats, CountScoreStats(db, scope, terms, memo));
  return FormatStats(stats);
}

namespace {

// The query's terms by the rows holding them, most first: the order in which
// they are left to C.
struct TermOrder {
  std::vector<size_t> by_rows;  // term indexes, most rows first
  std::vector<double> idf;      // per term index
  double mass = 0;              // Σ idf
};

std::optional<TermOrder> OrderTerms(const std::vector<std::string>& terms,
                                    const ScoreStats& stats) {
  const size_t k = terms.size();
  if (k < 2 || stats.documents_with_term.size() != k || stats.documents <= 0) return std::nullopt;
  TermOrder out;
  out.idf.resize(k);
  for (size_t i = 0; i < k; ++i) {
    out.idf[i] = Bm25Idf(stats.documents, stats.documents_with_term[i]);
    out.mass += out.idf[i];
    out.by_rows.push_back(i);
  }
  if (out.mass <= 0) return std::nullopt;
  std::stable_sort(out.by_rows.begin(), out.by_rows.end(), [&](size_t a, size_t b) {
    return stats.documents_with_term[a] > stats.documents_with_term[b];
  });
  return out;
}

// The highest score of a row holding only the first `common` terms of
// `order`: each term contributes below idf · (k1 + 1) whatever its frequency
// and the row's length.
double CommonBound(const TermOrder& order, size_t common) {
  double idf = 0;
  for (size_t j = 0; j < common; ++j) idf += order.idf[order.by_rows[j]];
  return std::min(1.0, (kBm25K1 + 1) * idf / order.mass);
}

// (E...) AND (E... OR C...) with C the first `common` terms of `order`, E
// the rest, each in query order: every row holding an E term, with the
// instances of every term; E's second phrases are not counted.
PrunedMatch BuildPrunedMatch(const std::vector<std::string>& terms, const ScoreStats& stats,
                             const TermOrder& order, size_t common) {
  std::vector<bool> is_common(terms.size(), false);
  for (size_t j = 0; j < common; ++j) is_common[order.by_rows[j]] = true;
  std::vector<std::string> essential;
  std::vector<int> phrase_terms;
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!is_common[i]) {
      essential.push_back(terms[i]);
      phrase_terms.push_back(static_cast<int>(i));
    }
  }
  std::vector<std::string> all = essential;
  phrase_terms.resize(phrase_terms.size() + essential.size(), -1);
  for (size_t i = 0; i < terms.size(); ++i) {
    if (is_common[i]) {
      all.push_back(terms[i]);
      phrase_terms.push_back(static_cast<int>(i));
    }
  }
  PrunedMatch out;
  out.match.append(1, '(').append(MatchExpression(essential)).append(") AND (");
  out.match.append(MatchExpression(all)).append(1, ')');
  out.stats = FormatStats(stats, phrase_terms);
  out.bound = CommonBound(order, common);
  return out;
}

}  // namespace

std::optional<PrunedMatch> FirstPrunedMatch(const std::vector<std::string>& terms,
                                            const ScoreStats& stats, int limit) {
  const std::optional<TermOrder> order = OrderTerms(terms, stats);
  if (!order || limit <= 0) return std::nullopt;
  // E: the rarest terms until they hold `limit` rows between them.
  const size_t k = terms.size();
  size_t common = k;
  int64_t essential_rows = 0;
  while (common > 0 && essential_rows < limit) {
    --common;
    essential_rows += stats.documents_with_term[order->by_rows[common]];
  }
  if (common == 0) return std::nullopt;
  int64_t common_rows = 0;
  for (size_t j = 0; j < common; ++j) common_rows += stats.documents_with_term[order->by_rows[j]];
  if (common_rows < kPruneMinRows || common_rows < kPruneMinShare * essential_rows ||
      CommonBound(*order, 1) + kPruneBoundMargin >= 1) {
    return std::nullopt;
  }
  return BuildPrunedMatch(terms, stats, *order, common);
}

std::optional<PrunedMatch> PrunedMatchBelow(const std::vector<std::string>& terms,
                                            const ScoreStats& stats, double kth) {
  const std::optional<TermOrder> order = OrderTerms(terms, stats);
  if (!order) return std::nullopt;
  size_t common = 0;
  while (common + 1 < terms.size() && CommonBound(*order, common + 1) + kPruneBoundMargin < kth) {
    ++common;
  }
  if (common == 0) return std::nullopt;
  return BuildPrunedMatch(terms, stats, *order, common);
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
  if (rc == SQLITE_OK) {
    rc = api->xCreateFunction(api, kFtsStatsFunctionName, nullptr, TableStats, nullptr);
  }
  return rc == SQLITE_OK ? Status::Ok() : SqliteStatus(rc, "register the FTS5 rank functions");
}

}  // namespace mnemo::storage::internal

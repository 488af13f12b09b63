#include "storage/postgres/sql/pg_entry_search.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>

#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/bm25.h"

namespace mnemo::storage::internal::pg {
namespace {

std::string Num(double v) { return std::to_string(v); }

}  // namespace

Status FlushEntryTerms(PgConn& conn, EntryTermsFold fold, std::optional<Rows>* logged_rows) {
  // An UPDATE of the terms already counted and a plain INSERT of the others:
  // INSERT ... ON CONFLICT pays a speculative insertion per row, twice the
  // cost for the hundreds of thousands of notes of a bulk write. Writers are
  // serialised (the schema's advisory lock), so no row appears in between.
  std::string log;
  if (fold.logged) {
    // The fold's deltas under the generation it moves to (pg_schema.cc,
    // v11), or one row with a NULL term (reload everything) for a fold too
    // large to copy; and the generations past the kept window deleted.
    const std::string too_large =
        fold.bulk ? std::string("true")
                  : "(SELECT count(*) > " + std::to_string(kLoggedRowsAtMost) + " FROM agg)";
    log =
        "logged AS (INSERT INTO entry_terms_log (generation, term, bucket, docs, tokens) "
        "SELECT gen.value, agg.term, agg.bucket, agg.docs, agg.tokens FROM gen, agg WHERE NOT " +
        too_large + " UNION ALL SELECT gen.value, NULL, NULL, 0, 0 FROM gen WHERE " + too_large +
        " RETURNING generation, term, bucket, docs, tokens), "
        "pruned AS (DELETE FROM entry_terms_log WHERE generation <= (SELECT value FROM gen) - " +
        std::to_string(kLoggedGenerations) + "), ";
  }
  // A write's fold returns what it logged, for the process's own mirror
  // (KeywordStatsCache::ApplyOwnFold), and clears the notes it folded in
  // the same statement: those of its snapshot, the very rows agg summed.
  const bool returns = fold.logged && !fold.bulk && logged_rows != nullptr;
  std::string end = "SELECT 1; " + std::string(fold.bulk ? "TRUNCATE entry_terms_delta; ANALYZE "
                                                           "entry_terms_delta"
                                                         : "DELETE FROM entry_terms_delta");
  if (returns) {
    end =
        "cleared AS (DELETE FROM entry_terms_delta) SELECT generation, term, bucket, docs, tokens "
        "FROM logged";
  }
  const std::string sql =
      "WITH agg AS (SELECT term, bucket, sum(docs) AS docs, sum(tokens) AS tokens FROM "
      "entry_terms_delta GROUP BY term, bucket), "
      "up AS (UPDATE entry_terms t SET docs = t.docs + agg.docs, tokens = t.tokens + "
      "agg.tokens FROM agg WHERE t.term = agg.term AND t.bucket = agg.bucket RETURNING t.term, "
      "t.bucket), "
      // Every change of entry_terms moves its generation in the same
      // statement (pg_keyword_stats.h; a data-modifying CTE always runs).
      "gen AS (UPDATE generations SET value = value + 1 WHERE name = 'entry_terms' AND (" +
      std::string(fold.copied ? "true" : "EXISTS (SELECT 1 FROM agg)") + ") RETURNING value), " +
      log +
      "ins AS (INSERT INTO entry_terms (term, bucket, docs, tokens) SELECT agg.term, "
      "agg.bucket, agg.docs, agg.tokens FROM agg WHERE NOT EXISTS (SELECT 1 FROM up WHERE "
      "up.term = agg.term AND up.bucket = agg.bucket))" +
      std::string(returns ? ", " : " ") + end;
  if (!returns) return conn.ExecScript(sql, "update the keyword statistics");
  // Prepared once per connection: every write runs it, and planning its
  // seven CTEs took about as long as running them for one entry's notes
  // (0.9 against 1.2 ms). Without parameters its plan is the generic one,
  // made when first run on the connection and made again whenever
  // entry_terms or the notes' table is analysed (a bulk fold analyses the
  // notes' table empty), as a plan made per statement would be.
  // Sent in the COMMIT's pipeline (Pool::Transaction): the last statement
  // of the write, so a round trip of its own only held the writer lock
  // longer. Its rows arrive once the commit has succeeded; a failed or
  // unknown commit leaves `logged_rows` empty, and the fold's failure
  // aborts the COMMIT sent after it.
  conn.before_commit.push_back({.sql = sql, .prepared = true, .rows_after_commit = logged_rows});
  return Status::Ok();
}

namespace {

// The size under which a stored tsvector is read in place (AddTermScores).
constexpr int kPlainTsvectorBytes = 900;

// The BM25 weights a score reads, as SQL: each term's idf (by position in
// the query's terms), avgdl and the idfs' sum.
struct WeightsSql {
  std::function<std::string(size_t)> idf;
  std::string avgdl;
  std::string mass;
};

// The weights as the columns of `k` (the CTE of AddEntryWeights and
// MissStatement).
WeightsSql ColumnsOfK() {
  return {.idf = [](size_t i) { return "k.idf" + std::to_string(i + 1); },
          .avgdl = "k.avgdl",
          .mass = "k.mass"};
}

// The lateral `f` and the score over `weights`: a parameter per searchable
// term (its lexeme as a tsquery).
struct TermScoreSql {
  std::string lateral;
  std::string score;
};
TermScoreSql AddTermScores(Params& params, const std::vector<std::string>& terms,
                           const std::vector<std::string>& lexemes, const WeightsSql& weights) {
  std::string tfs;
  std::string sum;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    // A term no tsvector holds adds its idf to the mass and nothing to a score.
    if (!SearchableTerm(terms[i])) continue;
    params.Add(lexemes[i]);
    // The parameter is typed tsquery by its cast (the server parses it once,
    // at bind), and is no expression the planner estimates with.
    // A row holds few of the query's terms: the match (a binary search, no
    // allocation) skips the rank's work for the others.
    const std::string lexeme = Last(params) + "::tsquery";
    tfs += "CASE WHEN d.tsv @@ " + lexeme + " THEN ts_rank_cd('{1,1,1,1}', d.tsv, " + lexeme +
           ", 0)::float8 ELSE 0.0 END AS tf" + n + ", ";
    if (!sum.empty()) sum += " + ";
    sum +=
        weights.idf(i) + " * f.tf" + n + " * " + Num(kBm25K1 + 1) + " / (f.tf" + n + " + f.norm)";
  }
  TermScoreSql out;
  // d: the row's tsvector read once. A plain one is read in place. A
  // compressed one, or one stored apart from its row (TOAST, uncompressed: a
  // tsvector seldom compresses), would be decompressed or fetched again by
  // every match and rank of it: it is read once into memory. setweight to D
  // (the weight every position already has, and one the score's weights
  // {1,1,1,1} ignore anyway) is the cheapest copy: a copy of the bytes, where
  // `|| ''` merged every lexeme (at 100k, 1.3 against 1.5 ms for a query
  // of 311 rows, 210 of them large). pg_column_size and pg_column_compression
  // read neither. A value is stored apart only in a row over 2 KB, where the
  // tsvector is nearly always the largest column: one under
  // kPlainTsvectorBytes is in place (were it not, it would only be fetched
  // once per match and rank of it, as before).
  // avgdl 0 (no tokens at all): every length is average, as in bm25.cc.
  out.lateral = "CROSS JOIN LATERAL (SELECT " + tfs + Num(kBm25K1) + " * (1 - " + Num(kBm25B) +
                " + " + Num(kBm25B) + " * (CASE WHEN " + weights.avgdl +
                " > 0 THEN e.doc_length / " + weights.avgdl +
                " ELSE 1.0 END)) AS norm "
                "FROM (SELECT CASE WHEN pg_column_compression(e.tsv) IS NULL AND "
                "pg_column_size(e.tsv) < " +
                std::to_string(kPlainTsvectorBytes) +
                " THEN e.tsv ELSE setweight(e.tsv, 'D') END AS tsv OFFSET 0) d OFFSET 0) f";
  out.score = sum.empty() ? "0.0" : "LEAST(1.0, (" + sum + ") / " + weights.mass + ")";
  return out;
}

std::vector<std::string> Lexemes(const std::vector<std::string>& terms) {
  std::vector<std::string> lexemes;
  lexemes.reserve(terms.size());
  for (const std::string& t : terms) lexemes.push_back(SearchableTerm(t) ? QuoteLexeme(t) : "");
  return lexemes;
}

}  // namespace

namespace {

// The buckets of the scope (pg_schema.cc, v7): all, or the public rows and
// the caller's own.
const std::string kInScope = "(a.everyone OR c.bucket = 'p' OR c.bucket = 'o:' || a.principal)";

// The CTEs a (the arguments: terms, lexemes, scope), q (term, lexeme, i, df:
// each term's row count in the scope, rarest first, then by position) and st
// (n, tokens: the scope's rows and their token total). Adds the arguments.
std::string StatsWith(Params& params, const std::vector<std::string>& terms,
                      const std::vector<std::string>& lexemes, const ReadScope& scope) {
  const int first = params.size() + 1;
  params.AddTextArray(terms).AddTextArray(lexemes).Add(scope.all).Add(scope.principal);
  auto arg = [&](int i) { return "$" + std::to_string(first + i); };
  // The arguments are read through `a`, out of the planner's sight: its
  // estimates then never depend on them, so a prepared search runs a generic
  // plan after its fifth execution instead of being planned anew each time
  // (the plan is the same whatever the terms: index reads of entry_terms,
  // then a GIN bitmap scan of entries).
  return "WITH a AS MATERIALIZED (SELECT " + arg(0) + "::text[] AS terms, " + arg(1) +
         "::text[] AS lexemes, " + arg(2) + "::boolean AS everyone, " + arg(3) +
         "::text AS principal), "
         "q AS MATERIALIZED (SELECT t.term, t.lexeme, t.i, COALESCE((SELECT sum(c.docs) FROM "
         "entry_terms c WHERE c.term = t.term AND " +
         kInScope +
         "), 0)::float8 AS df FROM a, unnest(a.terms, a.lexemes) WITH ORDINALITY AS t(term, "
         "lexeme, i) ORDER BY 4, 3), "
         "st AS MATERIALIZED (SELECT COALESCE(sum(c.docs), 0)::float8 AS n, "
         "COALESCE(sum(c.tokens), 0)::float8 AS tokens FROM a, entry_terms c WHERE c.term = '' "
         "AND " +
         kInScope + ")";
}

// bm25.h's Bm25Idf of q's row in st: ln(1 + (N - n + 0.5) / (n + 0.5)), n =
// clamp(n_t, 1, N); the same expression wherever a statement computes it,
// so the same bits.
const std::string kIdf =
    "CASE WHEN st.n <= 0 THEN 0.0 ELSE ln(1.0 + (st.n - LEAST(GREATEST(q.df, 1), st.n) + 0.5) / "
    "(LEAST(GREATEST(q.df, 1), st.n) + 0.5)) END";

// The scope's avgdl from st (0 without tokens: every length is average).
const std::string kAvgdl = "CASE WHEN st.tokens > 0 THEN st.tokens / st.n ELSE 0.0 END";

}  // namespace

EntryWeightsSql AddEntryWeights(Params& params, const std::vector<std::string>& terms,
                                const ReadScope& scope) {
  const std::vector<std::string> lexemes = Lexemes(terms);
  EntryWeightsSql out;
  std::string idfs;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    idfs += ", max(w.idf) FILTER (WHERE w.i = " + n + ") AS idf" + n;
  }
  out.with = StatsWith(params, terms, lexemes, scope) +
             ", w AS MATERIALIZED (SELECT q.term, q.lexeme, q.i, q.df, " + kIdf +
             " AS idf, COALESCE(sum(q.df) OVER (ORDER BY q.df, q.i ROWS BETWEEN UNBOUNDED "
             "PRECEDING AND 1 PRECEDING), 0) AS rarer FROM q, st), "
             "k AS MATERIALIZED (SELECT " +
             kAvgdl + " AS avgdl, COALESCE(sum(w.idf), 0) AS mass" + idfs +
             " FROM st, w GROUP BY st.n, st.tokens)";
  const TermScoreSql scores = AddTermScores(params, terms, lexemes, ColumnsOfK());
  out.lateral = scores.lateral;
  out.score = scores.score;
  out.ready = "k.mass > 0";
  return out;
}

namespace {

const std::string kRank = " ORDER BY score DESC, e.updated_at DESC, e.key, e.owner, e.namespace";

// The candidates carry their row's address and the sort keys only; the
// entry's columns are read for the hits alone, by that address (a TID scan),
// in the same snapshot.
std::string CandidateColumns(const std::string& score) {
  return "e.ctid AS tid, e.updated_at, e.key, e.owner, e.namespace, " + score + " AS score";
}
std::string HitColumns() { return std::string("e.label, ") + kEntryColumns + ", r.score, r.try"; }
const std::string kHitsJoin =
    ") r ON true LEFT JOIN entries e ON e.ctid = r.tid ORDER BY r.score DESC, r.updated_at DESC, "
    "r.key, r.owner, r.namespace";

// The statement computing the statistics itself (the CTEs of AddEntryWeights).
// Its first columns are those statistics (kTermStatsColumns), on every row and
// on one row without hits when there are none.
PgStatement FullStatement(const KeywordQuery& query) {
  PgStatement st{.prepared = true};
  Params& p = st.params;
  const EntryWeightsSql weights = AddEntryWeights(p, query.terms, query.filter.scope);
  p.Add(static_cast<int64_t>(query.limit));
  const std::string limit_arg = Last(p);
  const std::string limit = "(SELECT n FROM lim)";
  const std::string where = FilterSql(query.filter, p);
  const std::string columns = CandidateColumns(weights.score);
  const std::string from = " FROM entries e CROSS JOIN k " + weights.lateral + " WHERE ";
  const std::string k1 = Num(kBm25K1 + 1);
  // first: the rows of E (the rarest terms until they hold `limit` rows).
  // proof: its hits are the full query's when the limit-th scores above the
  // bound of C. Otherwise `second` leaves to C only the most common terms
  // whose bound stays below that limit-th score (a lower bound of the full
  // query's), and `rest` scores the rows of the other terms: every term when
  // the first try did not run or found fewer than `limit` rows.
  st.sql =
      weights.with + ", lim AS MATERIALIZED (SELECT " + limit_arg +
      "::bigint AS n), plan AS (SELECT string_agg(w.lexeme, ' | ') FILTER (WHERE w.rarer < " +
      limit + " AND w.lexeme <> '') AS eq, COALESCE(sum(w.idf) FILTER (WHERE w.rarer >= " + limit +
      "), 0) AS c_idf, COALESCE(sum(w.df) FILTER (WHERE w.rarer >= " + limit +
      "), 0) AS c_rows, COALESCE(sum(w.df) FILTER (WHERE w.rarer < " + limit +
      "), 0) AS e_rows, COALESCE(min(w.idf), 0) AS least_idf FROM w), "
      "first AS (SELECT " +
      columns + from + weights.ready + " AND (SELECT c_rows >= " + std::to_string(kPruneFromRows) +
      " AND c_rows >= 4 * e_rows AND eq IS NOT NULL AND " + k1 +
      " * least_idf < (SELECT mass FROM k) * (1 - 1e-9) FROM plan) AND e.tsv @@ (SELECT "
      "eq::tsquery FROM plan) AND " +
      where + kRank + " LIMIT " + limit +
      "), "
      "proof AS (SELECT count(*) = " +
      limit + " AS full_page, COALESCE(min(score), 0) AS floor, count(*) = " + limit +
      " AND min(score) > LEAST(1.0, " + k1 +
      " * (SELECT c_idf FROM plan) / (SELECT mass FROM k)) + 1e-9 AS proven FROM first), "
      "second AS (SELECT string_agg(c.lexeme, ' | ') FILTER (WHERE NOT c.common AND c.lexeme <> "
      "'') AS eq, bool_or(c.common) AS narrowed FROM (SELECT w.lexeme, proof.full_page AND " +
      k1 +
      " * sum(w.idf) OVER (ORDER BY w.df DESC, w.i DESC ROWS UNBOUNDED PRECEDING) / k.mass + "
      "1e-9 < proof.floor AS common FROM w, proof, k) c), "
      "rest AS (SELECT " +
      columns + from + weights.ready +
      " AND NOT (SELECT proven FROM proof) AND e.tsv @@ (SELECT eq::tsquery FROM second) AND " +
      where + kRank + " LIMIT " + limit +
      ") "
      "SELECT s.*, " +
      HitColumns() +
      " FROM (SELECT (SELECT g.value FROM generations g WHERE g.name = 'entry_terms') AS "
      "generation, st.n::bigint AS n, st.tokens::bigint AS tokens, (SELECT array_agg(q.df::bigint "
      "ORDER BY q.i) FROM q) AS dfs FROM st) s LEFT JOIN (SELECT *, 1 AS try FROM first WHERE "
      "(SELECT proven FROM proof) UNION ALL SELECT *, CASE WHEN (SELECT narrowed FROM second) THEN "
      "2 ELSE 0 END FROM rest" +
      kHitsJoin;
  return st;
}

// The statement of a search whose statistics are not cached when the
// weights it reads rule out FullStatement's pruned first try: the
// statistics' CTEs of FullStatement (the same expressions, terms summed
// rarest first as w orders them, so the same bits), then every row holding
// a term scored as FullStatement's `rest` scores them when the first try
// does not run. Without w's window, plan, first, proof and second its plan
// is half the size (at 100k, 0.27 instead of 0.45 ms of execution for two
// rare terms). The first try is ruled out, whatever `limit`, when its C
// (all terms but the rarest at least) holds under kPruneFromRows rows, when
// C cannot hold 4 times E's rows (all rows under 5 times the rarest term's),
// or when the most common term's bound is not below 1 (FullStatement's own
// test). Otherwise `go` is false, the statement scores nothing and the
// search goes on with the statistics it returned (CachedStatement). Its
// first columns are the statistics (kTermStatsColumns), then `go`.
PgStatement MissStatement(const KeywordQuery& query) {
  PgStatement st{.prepared = true};
  Params& p = st.params;
  const std::vector<std::string>& terms = query.terms;
  const std::vector<std::string> lexemes = Lexemes(terms);
  std::string idfs;
  std::string all;  // every term's lexeme, OR'ed
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    idfs += ", max(y.idf) FILTER (WHERE y.i = " + n + ") AS idf" + n;
    if (!lexemes[i].empty()) all += (all.empty() ? "" : " | ") + lexemes[i];
  }
  const std::string with = StatsWith(p, terms, lexemes, query.filter.scope);
  p.Add(static_cast<int64_t>(query.limit));
  const std::string limit = "(SELECT " + Last(p) + "::bigint)";
  p.Add(all);
  const std::string match = "(SELECT " + Last(p) + "::tsquery)";
  const TermScoreSql scores = AddTermScores(p, terms, lexemes, ColumnsOfK());
  const std::string where = FilterSql(query.filter, p);
  st.sql = with + ", k AS MATERIALIZED (SELECT " + kAvgdl +
           " AS avgdl, x.* FROM st, (SELECT COALESCE(sum(y.idf), 0) AS mass, "
           "COALESCE(min(y.idf), 0) AS least_idf, COALESCE(sum(y.df), 0) AS total, "
           "COALESCE(min(y.df), 0) AS rarest" +
           idfs + " FROM (SELECT q.df, q.i, " + kIdf +
           " AS idf FROM q, st) y) x), "
           "go AS MATERIALIZED (SELECT k.total - k.rarest < " +
           std::to_string(kPruneFromRows) + " OR k.total < 5 * k.rarest OR NOT " +
           Num(kBm25K1 + 1) +
           " * k.least_idf < k.mass * (1 - 1e-9) AS ok FROM k), "
           "rest AS (SELECT " +
           CandidateColumns(scores.score) + " FROM entries e CROSS JOIN k " + scores.lateral +
           " WHERE k.mass > 0 AND (SELECT ok FROM go) AND e.tsv @@ " + match + " AND " + where +
           kRank + " LIMIT " + limit +
           ") "
           "SELECT s.*, " +
           HitColumns() +
           " FROM (SELECT (SELECT g.value FROM generations g WHERE g.name = 'entry_terms') AS "
           "generation, st.n::bigint AS n, st.tokens::bigint AS tokens, (SELECT "
           "array_agg(q.df::bigint ORDER BY q.i) FROM q) AS dfs, (SELECT ok FROM go) AS go FROM "
           "st) s LEFT JOIN (SELECT *, 0 AS try FROM rest" +
           kHitsJoin;
  return st;
}

// The rows a stale statement (`ok`, its freshness, false) returns for the
// mirror to catch up with, in kLogColumns (KeywordStatsCache::CatchUpFrom):
// the server's generation, the oldest the log keeps, and the log's rows
// after `after` (at most the kept window, entry_terms_log); none when `ok`
// is true (a one-time filter: nothing is read). Joined laterally after the
// row `ok` is read from.
std::string StaleLog(const std::string& after, const std::string& ok) {
  const std::string current = "(SELECT g.value FROM generations g WHERE g.name = 'entry_terms')";
  return "(SELECT " + current +
         " AS current, (SELECT min(generation) FROM entry_terms_log) AS oldest, l.term, l.bucket, "
         "l.docs, l.tokens, l.generation FROM (SELECT 1) o LEFT JOIN entry_terms_log l ON "
         "l.generation > " +
         after + " AND l.generation <= " + current + " WHERE NOT " + ok + ")";
}

// The column of a cached statement's row where StaleLog's start.
constexpr int kStaleLogColumn = 4 + kEntryColumnCount;

// A double as a float8 literal that reads back to the same bits.
std::string Exact(double v) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

// Adds avgdl, the mass and each term's idf of `weights` as float8
// parameters (Params::Add, which reads back to the same bits); returns the weights as those
// parameters.
WeightsSql AddWeightArgs(Params& params, const StatsWeights& weights) {
  params.Add(weights.avgdl);
  const std::string avgdl = Last(params) + "::float8";
  params.Add(weights.mass);
  const std::string mass = Last(params) + "::float8";
  std::vector<std::string> idf_args;
  for (const double idf : weights.idf) {
    params.Add(idf);
    idf_args.push_back(Last(params) + "::float8");
  }
  return {.idf = [idf_args](size_t i) { return idf_args[i]; }, .avgdl = avgdl, .mass = mass};
}

// A one-row select of `ok`: whether the store's generation is still
// `generation` (a bigint expression) in the statement's snapshot.
std::string FreshSql(const std::string& generation) {
  return "SELECT COALESCE((SELECT g.value = " + generation +
         " FROM generations g WHERE g.name = 'entry_terms'), false) AS ok";
}

}  // namespace

StatsWeights WeighStats(const TermStats& stats) {
  const size_t count = stats.df.size();
  const auto n = static_cast<double>(stats.documents);
  const auto tokens = static_cast<double>(stats.tokens);
  StatsWeights out;
  out.df.resize(count);
  out.idf.resize(count);
  for (size_t i = 0; i < count; ++i) {
    out.df[i] = static_cast<double>(stats.df[i]);
    const double nt = std::min(std::max(out.df[i], 1.0), n);
    out.idf[i] = n <= 0 ? 0.0 : std::log(1.0 + (n - nt + 0.5) / (nt + 0.5));
  }
  out.order.resize(count);
  for (size_t i = 0; i < count; ++i) out.order[i] = i;
  const std::vector<double>& df = out.df;
  std::sort(out.order.begin(), out.order.end(),
            [&](size_t a, size_t b) { return df[a] != df[b] ? df[a] < df[b] : a < b; });
  for (const size_t i : out.order) out.mass += out.idf[i];
  out.avgdl = tokens > 0 ? tokens / n : 0.0;
  return out;
}

EntryWeightsSql AddEntryWeightsFrom(Params& params, const std::vector<std::string>& terms,
                                    const TermStats& stats) {
  params.Add(stats.generation);
  const std::string generation = Last(params) + "::bigint";
  const WeightsSql args = AddWeightArgs(params, WeighStats(stats));
  const TermScoreSql scores = AddTermScores(params, terms, Lexemes(terms), args);
  return {.lateral = scores.lateral,
          .score = scores.score,
          .ready = args.mass + " > 0",
          .fresh = FreshSql(generation)};
}

namespace {

// The statement of FullStatement with the statistics `stats` (of
// query.terms in the query's scope) as arguments: everything its CTEs q,
// st, w, k and plan computed from them is computed here in the same
// floating-point operations and order (the window's order for sums), so the
// scores are the same bits. It answers only when the store's generation is
// still stats.generation in its own snapshot: its first column is false
// otherwise, on a single row without hits. The weights known beforehand, so
// is whether the first, pruned try would run: when it would not, the
// statement is the one scored select FullStatement would end in.
//
// With `log` (a mirror's statistics), a stale statement also returns what
// the mirror needs to catch up (StaleLog): its columns after the hits'.
PgStatement CachedStatement(const KeywordQuery& query, const TermStats& stats, bool log) {
  const std::vector<std::string>& terms = query.terms;
  const std::vector<std::string> lexemes = Lexemes(terms);
  const size_t count = terms.size();
  const auto limit = static_cast<double>(query.limit);
  // The literal the statement's k1 + 1 reads as.
  const double k1 = std::strtod(Num(kBm25K1 + 1).c_str(), nullptr);
  const StatsWeights weights = WeighStats(stats);
  const std::vector<double>& df = weights.df;
  const std::vector<double>& idf = weights.idf;
  const std::vector<size_t>& order = weights.order;
  const double mass = weights.mass;
  double rarer = 0;
  double c_idf = 0;
  double c_rows = 0;
  double e_rows = 0;
  double least_idf = 0;
  std::string eq;
  for (size_t j = 0; j < count; ++j) {
    const size_t i = order[j];
    least_idf = j == 0 ? idf[i] : std::min(least_idf, idf[i]);
    if (rarer < limit) {
      e_rows += df[i];
      if (!lexemes[i].empty()) eq += (eq.empty() ? "" : " | ") + lexemes[i];
    } else {
      c_idf += idf[i];
      c_rows += df[i];
    }
    rarer += df[i];
  }
  const bool try_first = c_rows >= static_cast<double>(kPruneFromRows) && c_rows >= 4 * e_rows &&
                         !eq.empty() && k1 * least_idf < mass * (1 - 1e-9);
  const double bound = mass > 0 ? std::min(1.0, k1 * c_idf / mass) : 0.0;
  // second's terms, most common first, each with the bound of it and the
  // more common ones.
  std::vector<std::string> c_lexemes;
  std::string c_bounds = "{";
  double common = 0;
  for (size_t j = count; j-- > 0;) {
    const size_t i = order[j];
    common += idf[i];
    if (j + 1 < count) c_bounds += ',';
    c_lexemes.push_back(lexemes[i]);
    c_bounds += mass > 0 ? Exact(k1 * common / mass) : "Infinity";
  }
  c_bounds += "}";

  // The weights and every argument are parameters read in place (no CTE
  // of arguments, no InitPlan a lexeme): the plan is what the search
  // needs and little more, so the server starts it quickly at each bind.
  // Only what the planner would estimate with (the match, the limit) is
  // read through an InitPlan, so that the cost of every plan is the same
  // and a prepared search runs a generic plan from its sixth execution.
  PgStatement st{.prepared = true};
  Params& p = st.params;
  // $1 the generation, then the weights.
  p.Add(stats.generation);
  const WeightsSql args = AddWeightArgs(p, weights);
  const std::string mass_arg = args.mass;
  p.Add(static_cast<int64_t>(query.limit));
  const std::string limit_arg = Last(p) + "::bigint";
  const std::string limit_sql = "(SELECT " + limit_arg + ")";
  std::string bound_arg;
  std::string c_lexemes_arg;
  std::string c_bounds_arg;
  if (try_first) {
    p.Add(eq);
  } else {
    // Every row holding a term is scored: the lexemes' OR.
    std::string all;
    for (const std::string& l : lexemes) {
      if (!l.empty()) all += (all.empty() ? "" : " | ") + l;
    }
    p.Add(all);
  }
  const std::string match = "e.tsv @@ (SELECT " + Last(p) + "::tsquery)";
  if (try_first) {
    p.Add(bound);
    bound_arg = Last(p) + "::float8";
    p.AddTextArray(c_lexemes);
    c_lexemes_arg = Last(p) + "::text[]";
    p.Add(c_bounds);
    c_bounds_arg = Last(p) + "::float8[]";
  }
  const TermScoreSql scores = AddTermScores(p, terms, lexemes, args);
  const std::string where = FilterSql(query.filter, p);
  const std::string columns = CandidateColumns(scores.score);
  const std::string fresh = FreshSql("$1::bigint");
  const std::string hits = "SELECT g.ok, " + HitColumns() + (log ? ", lg.*" : "") + " FROM ";
  // After `g` (fresh's row): the log rows a stale mirror needs.
  const std::string stale_log =
      log ? " LEFT JOIN LATERAL " + StaleLog("$1::bigint", "g.ok") + " lg ON true" : "";
  if (!try_first) {
    // The first try would not run (FullStatement's plan): one scored
    // select, run only when the generation is still the statistics'.
    st.sql = hits + "(" + fresh + " OFFSET 0) g" + stale_log + " LEFT JOIN LATERAL (SELECT " +
             columns + ", 0 AS try FROM entries e " + scores.lateral + " WHERE g.ok AND " +
             mass_arg + " > 0 AND " + match + " AND " + where + kRank + " LIMIT " + limit_sql +
             kHitsJoin;
    return st;
  }
  const std::string from = " FROM entries e " + scores.lateral + " WHERE " + mass_arg +
                           " > 0 AND (SELECT ok FROM fresh) AND ";
  st.sql =
      "WITH fresh AS MATERIALIZED (" + fresh + "), first AS (SELECT " + columns + from + match +
      " AND " + where + kRank + " LIMIT " + limit_sql +
      "), "
      "proof AS (SELECT count(*) = " +
      limit_arg + " AS full_page, COALESCE(min(score), 0) AS floor, count(*) = " + limit_arg +
      " AND min(score) > " + bound_arg +
      " + 1e-9 AS proven FROM first), "
      "second AS (SELECT string_agg(c.lexeme, ' | ') FILTER (WHERE NOT c.common AND c.lexeme <> "
      "'') AS eq, bool_or(c.common) AS narrowed FROM (SELECT u.lexeme, proof.full_page AND "
      "u.bound + 1e-9 < proof.floor AS common FROM proof, unnest(" +
      c_lexemes_arg + ", " + c_bounds_arg +
      ") AS u(lexeme, bound)) c), "
      "rest AS (SELECT " +
      columns + from + "NOT (SELECT proven FROM proof) AND e.tsv @@ (SELECT eq::tsquery FROM " +
      "second) AND " + where + kRank + " LIMIT " + limit_sql + ") " + hits + "fresh g" + stale_log +
      " LEFT JOIN (SELECT *, 1 AS try FROM first WHERE (SELECT proven FROM proof) UNION "
      "ALL SELECT *, CASE WHEN (SELECT narrowed FROM second) THEN 2 ELSE 0 END FROM rest" +
      kHitsJoin;
  return st;
}

// The hits of a search's rows, their label in column `first`.
std::vector<KeywordHit> ReadHits(const Rows& rows, int first, bool* pruned) {
  std::vector<KeywordHit> hits;
  hits.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.IsNull(i, first)) continue;
    if (pruned != nullptr && hits.empty()) {
      *pruned = rows.Int(i, first + 2 + kEntryColumnCount) != 0;
    }
    hits.push_back({.entry = ReadEntry(rows, i, first + 1),
                    .keyword_score = rows.Double(i, first + 1 + kEntryColumnCount),
                    .label = rows.Int(i, first)});
  }
  return hits;
}

bool NothingToSearch(const KeywordQuery& query) {
  return std::none_of(query.terms.begin(), query.terms.end(), SearchableTerm) || query.limit <= 0;
}

// The statement computing everything itself; the statistics it read are
// kept in `cache` when there is one.
Result<std::vector<KeywordHit>> SearchWeighingAll(PgConn& conn, const KeywordQuery& query,
                                                  KeywordStatsCache* cache, bool* pruned) {
  if (cache != nullptr) cache->CountStatement();
  const PgStatement full = FullStatement(query);
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.ExecPrepared(full.sql, full.params, "search entries"));
  if (cache != nullptr) {
    cache->CountRead();
    if (std::optional<TermStats> stats = ReadTermStats(rows, query.terms.size())) {
      cache->Keep(query.filter.scope, query.terms, *stats);
    }
  }
  return ReadHits(rows, kTermStatsColumns, pruned);
}

// Cached statements a search from the mirror runs at most: each stale one
// brings the log rows that catch the mirror up to its snapshot, so only a
// write landing between two of them makes another (under a steady stream
// of writes from other nodes, bench/scaleout.py).
constexpr int kMirroredAttempts = 3;

// The hits from the statistics the cache mirrors: the cached statement, and
// when the generation moved, the log it returned caught up and the
// statement once more. nullopt when the cache gave the mirror up, or when
// the server is behind the mirror (a standby) or kept moving: the caller
// falls back.
Result<std::optional<std::vector<KeywordHit>>> SearchMirrored(PgConn& conn,
                                                              const KeywordQuery& query,
                                                              KeywordStatsCache& cache,
                                                              bool* pruned) {
  for (int attempt = 0; attempt < kMirroredAttempts; ++attempt) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<TermStats> stats,
                           cache.Mirrored(conn, query.filter.scope, query.terms));
    if (!stats) break;
    cache.CountStatement();
    const PgStatement cached = CachedStatement(query, *stats, /*log=*/true);
    MNEMO_ASSIGN_OR_RETURN(Rows rows,
                           conn.ExecPrepared(cached.sql, cached.params, "search entries"));
    if (!rows.empty() && rows.Bool(0, 0)) {
      return std::optional<std::vector<KeywordHit>>(ReadHits(rows, 1, pruned));
    }
    if (attempt + 1 == kMirroredAttempts) break;
    // Stale: the log rows came with the answer, so catching up costs no
    // round trip (unless a reload is due).
    MNEMO_ASSIGN_OR_RETURN(const bool caught_up,
                           cache.CatchUpFrom(conn, rows, kStaleLogColumn, stats->generation));
    if (!caught_up) break;
  }
  return std::optional<std::vector<KeywordHit>>();
}

}  // namespace

Result<std::vector<KeywordHit>> SearchEntries(PgConn& conn, const KeywordQuery& query,
                                              KeywordStatsCache* cache, bool* pruned) {
  if (pruned != nullptr) *pruned = false;
  if (NothingToSearch(query)) return std::vector<KeywordHit>();
  const ReadScope& scope = query.filter.scope;
  if (cache != nullptr && cache->mirrors()) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<std::vector<KeywordHit>> hits,
                           SearchMirrored(conn, query, *cache, pruned));
    if (hits) return std::move(*hits);
    // Below: the statements reading the statistics in their own snapshot
    // (the mirror, when still held, keeps none of them).
  } else if (cache != nullptr) {
    if (std::optional<TermStats> stats = cache->Find(scope, query.terms)) {
      cache->CountStatement();
      const PgStatement cached = CachedStatement(query, *stats, /*log=*/false);
      MNEMO_ASSIGN_OR_RETURN(Rows rows,
                             conn.ExecPrepared(cached.sql, cached.params, "search entries"));
      if (!rows.empty() && rows.Bool(0, 0)) return ReadHits(rows, 1, pruned);
      cache->Clear();  // a write since: the generation moved
    }
  }
  // A term cached as common (the terms of a query recur: the rare ones
  // seldom, the common ones often): a pruned try may pay, and the statement
  // ready for it reads the statistics too.
  if (cache == nullptr || query.terms.size() < 2 ||
      cache->LargestCachedDf(scope, query.terms) < kPruneFromRows) {
    // The statistics read, and the rows scored when no pruned try could pay.
    if (cache != nullptr) cache->CountStatement();
    const PgStatement miss = MissStatement(query);
    MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.ExecPrepared(miss.sql, miss.params, "search entries"));
    const std::optional<TermStats> stats = ReadTermStats(rows, query.terms.size());
    if (cache != nullptr) {
      cache->CountRead();
      if (stats) cache->Keep(scope, query.terms, *stats);
    }
    if (!rows.empty() && !rows.IsNull(0, kTermStatsColumns) && rows.Bool(0, kTermStatsColumns)) {
      return ReadHits(rows, kTermStatsColumns + 1, pruned);
    }
    // A pruned try may pay: the statement taking the statistics just read,
    // which leaves the tries out or runs them as FullStatement would.
    if (stats) {
      if (cache != nullptr) cache->CountStatement();
      const PgStatement cached = CachedStatement(query, *stats, /*log=*/false);
      MNEMO_ASSIGN_OR_RETURN(Rows again,
                             conn.ExecPrepared(cached.sql, cached.params, "search entries"));
      if (!again.empty() && again.Bool(0, 0)) return ReadHits(again, 1, pruned);
      if (cache != nullptr) cache->Clear();  // a write in between
    }
  }
  return SearchWeighingAll(conn, query, cache, pruned);
}

Result<std::vector<KeywordHit>> SearchEntriesWeighingAll(PgConn& conn, const KeywordQuery& query,
                                                         bool* pruned) {
  if (pruned != nullptr) *pruned = false;
  if (NothingToSearch(query)) return std::vector<KeywordHit>();
  return SearchWeighingAll(conn, query, nullptr, pruned);
}

}  // namespace mnemo::storage::internal::pg

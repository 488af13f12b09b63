#include "storage/postgres/sql/pg_entry_search.h"

#include <algorithm>

#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/bm25.h"

namespace mnemo::storage::internal::pg {
namespace {

constexpr const char* kOrder = "score DESC, updated_at DESC, key, owner, namespace";

std::string Num(double v) { return std::to_string(v); }

}  // namespace

Status FlushEntryTerms(PgConn& conn, bool bulk) {
  // An UPDATE of the terms already counted and a plain INSERT of the others:
  // INSERT ... ON CONFLICT pays a speculative insertion per row, twice the
  // cost for the hundreds of thousands of notes of a bulk write. Writers are
  // serialised (the schema's advisory lock), so no row appears in between.
  return conn.ExecScript(
      "WITH agg AS (SELECT term, bucket, sum(docs) AS docs, sum(tokens) AS tokens FROM "
      "entry_terms_delta GROUP BY term, bucket), "
      "up AS (UPDATE entry_terms t SET docs = t.docs + agg.docs, tokens = t.tokens + "
      "agg.tokens FROM agg WHERE t.term = agg.term AND t.bucket = agg.bucket RETURNING t.term, "
      "t.bucket) "
      "INSERT INTO entry_terms (term, bucket, docs, tokens) SELECT agg.term, agg.bucket, "
      "agg.docs, agg.tokens FROM agg WHERE NOT EXISTS (SELECT 1 FROM up WHERE up.term = "
      "agg.term AND up.bucket = agg.bucket); " +
          std::string(bulk ? "TRUNCATE entry_terms_delta; ANALYZE entry_terms_delta"
                           : "DELETE FROM entry_terms_delta"),
      "update the keyword statistics");
}

EntryWeightsSql AddEntryWeights(Params& params, const std::vector<std::string>& terms,
                                const ReadScope& scope) {
  std::vector<std::string> lexemes;
  lexemes.reserve(terms.size());
  for (const std::string& t : terms) lexemes.push_back(SearchableTerm(t) ? QuoteLexeme(t) : "");
  const int first = params.size() + 1;
  params.AddTextArray(terms).AddTextArray(lexemes).Add(scope.all).Add(scope.principal);
  auto arg = [&](int i) { return "$" + std::to_string(first + i); };
  // The buckets of the scope (pg_schema.cc, v7): all, or the public rows and
  // the caller's own.
  const std::string in_scope = "(a.everyone OR c.bucket = 'p' OR c.bucket = 'o:' || a.principal)";
  EntryWeightsSql out;
  std::string idfs;
  std::string tfs;
  std::string sum;
  for (size_t i = 0; i < terms.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    idfs += ", max(w.idf) FILTER (WHERE w.i = " + n + ") AS idf" + n;
    // A term no tsvector holds adds its idf to the mass and nothing to a score.
    if (!SearchableTerm(terms[i])) continue;
    params.Add(lexemes[i]);
    // (SELECT $n::tsquery): an InitPlan, parsed once per search; a bare
    // cast of a generic plan's parameter is parsed again for every row.
    // A row holds few of the query's terms: the match (a binary search, no
    // allocation) skips the rank's work for the others.
    const std::string lexeme = "(SELECT " + Last(params) + "::tsquery)";
    tfs += "CASE WHEN d.tsv @@ " + lexeme + " THEN ts_rank_cd('{1,1,1,1}', d.tsv, " + lexeme +
           ", 0)::float8 ELSE 0.0 END AS tf" + n + ", ";
    if (!sum.empty()) sum += " + ";
    sum += "k.idf" + n + " * f.tf" + n + " * " + Num(kBm25K1 + 1) + " / (f.tf" + n + " + f.norm)";
  }
  // idf is bm25.h's Bm25Idf: ln(1 + (N - n + 0.5) / (n + 0.5)), n = clamp(n_t, 1, N).
  // The arguments are read through `a`, out of the planner's sight: its
  // estimates then never depend on them, so a prepared search runs a generic
  // plan after its fifth execution instead of being planned anew each time
  // (the plan is the same whatever the terms: index reads of entry_terms,
  // then a GIN bitmap scan of entries).
  out.with =
      "WITH a AS MATERIALIZED (SELECT " + arg(0) + "::text[] AS terms, " + arg(1) +
      "::text[] AS lexemes, " + arg(2) + "::boolean AS everyone, " + arg(3) +
      "::text AS principal), "
      "q AS MATERIALIZED (SELECT t.term, t.lexeme, t.i, COALESCE((SELECT sum(c.docs) FROM "
      "entry_terms c "
      "WHERE c.term = t.term AND " +
      in_scope +
      "), 0)::float8 AS df FROM a, unnest(a.terms, a.lexemes) WITH ORDINALITY AS t(term, "
      "lexeme, i)), "
      "st AS (SELECT COALESCE(sum(c.docs), 0)::float8 AS n, COALESCE(sum(c.tokens), 0)::float8 "
      "AS tokens FROM a, entry_terms c WHERE c.term = '' AND " +
      in_scope +
      "), "
      "w AS MATERIALIZED (SELECT q.term, q.lexeme, q.i, q.df, CASE WHEN st.n <= 0 THEN 0.0 ELSE "
      "ln(1.0 + (st.n - LEAST(GREATEST(q.df, 1), st.n) + 0.5) / (LEAST(GREATEST(q.df, 1), st.n) "
      "+ 0.5)) END AS idf, COALESCE(sum(q.df) OVER (ORDER BY q.df, q.i ROWS BETWEEN UNBOUNDED "
      "PRECEDING AND 1 PRECEDING), 0) AS rarer FROM q, st), "
      "k AS MATERIALIZED (SELECT CASE WHEN st.tokens > 0 THEN st.tokens / st.n ELSE 0.0 END AS "
      "avgdl, COALESCE(sum(w.idf), 0) AS mass" +
      idfs + " FROM st, w GROUP BY st.n, st.tokens)";
  // avgdl 0 (no tokens at all): every length is average, as in bm25.cc.
  out.lateral = "CROSS JOIN LATERAL (SELECT " + tfs + Num(kBm25K1) + " * (1 - " + Num(kBm25B) +
                " + " + Num(kBm25B) +
                " * (CASE WHEN k.avgdl > 0 THEN e.doc_length / k.avgdl ELSE 1.0 END)) AS norm "
                "FROM (SELECT CASE WHEN pg_column_compression(e.tsv) IS NULL THEN e.tsv ELSE "
                "e.tsv || ''::tsvector END AS tsv OFFSET 0) d OFFSET 0) f";
  out.score = sum.empty() ? "0.0" : "LEAST(1.0, (" + sum + ") / k.mass)";
  out.ready = "k.mass > 0";
  return out;
}

Result<std::vector<KeywordHit>> SearchEntries(PgConn& conn, const KeywordQuery& query,
                                              bool* pruned) {
  std::vector<KeywordHit> hits;
  if (std::none_of(query.terms.begin(), query.terms.end(), SearchableTerm) || query.limit <= 0) {
    return hits;
  }
  Params p;
  const EntryWeightsSql weights = AddEntryWeights(p, query.terms, query.filter.scope);
  p.Add(static_cast<int64_t>(query.limit));
  const std::string limit_arg = Last(p);
  const std::string limit = "(SELECT n FROM lim)";
  const std::string where = FilterSql(query.filter, p);
  const std::string columns =
      std::string("e.label, ") + kEntryColumns + ", " + weights.score + " AS score";
  const std::string from = " FROM entries e CROSS JOIN k " + weights.lateral + " WHERE ";
  const std::string rank = " ORDER BY score DESC, e.updated_at DESC, e.key, e.owner, e.namespace";
  const std::string k1 = Num(kBm25K1 + 1);
  // first: the rows of E (the rarest terms until they hold `limit` rows).
  // proof: its hits are the full query's when the limit-th scores above the
  // bound of C. Otherwise `second` leaves to C only the most common terms
  // whose bound stays below that limit-th score (a lower bound of the full
  // query's), and `rest` scores the rows of the other terms: every term when
  // the first try did not run or found fewer than `limit` rows.
  const std::string sql =
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
      where + rank + " LIMIT " + limit +
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
      where + rank + " LIMIT " + limit +
      ") "
      "SELECT *, 1 AS try FROM first WHERE (SELECT proven FROM proof) UNION ALL SELECT *, CASE "
      "WHEN (SELECT narrowed FROM second) THEN 2 ELSE 0 END FROM rest ORDER BY " +
      kOrder;
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.ExecPrepared(sql, p, "search entries"));
  hits.reserve(static_cast<size_t>(rows.size()));
  if (pruned != nullptr) *pruned = !rows.empty() && rows.Int(0, 2 + kEntryColumnCount) != 0;
  for (int i = 0; i < rows.size(); ++i) {
    hits.push_back({.entry = ReadEntry(rows, i, 1),
                    .keyword_score = rows.Double(i, 1 + kEntryColumnCount),
                    .label = rows.Int(i, 0)});
  }
  return hits;
}

}  // namespace mnemo::storage::internal::pg

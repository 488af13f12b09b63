#include "storage/postgres/sql/pg_keyword_stats.h"

namespace mnemo::storage::internal::pg {
namespace {

// Every read scope is a sum of entry_terms' buckets (pg_schema.cc, v7): all
// of them, or the public rows' and the principal's.
std::string ScopeKey(const ReadScope& scope) {
  return scope.all ? std::string("*") : "o:" + scope.principal;
}

}  // namespace

std::optional<TermStats> KeywordStatsCache::Find(const ReadScope& scope,
                                                 const std::vector<std::string>& terms) {
  std::lock_guard lock(mu_);
  if (!generation_) return std::nullopt;
  auto it = scopes_.find(ScopeKey(scope));
  if (it == scopes_.end()) return std::nullopt;
  TermStats out{
      .generation = *generation_, .documents = it->second.documents, .tokens = it->second.tokens};
  out.df.reserve(terms.size());
  for (const std::string& t : terms) {
    auto found = it->second.df.find(t);
    if (found == it->second.df.end()) return std::nullopt;
    out.df.push_back(found->second);
  }
  return out;
}

void KeywordStatsCache::Keep(const ReadScope& scope, const std::vector<std::string>& terms,
                             const TermStats& stats) {
  std::lock_guard lock(mu_);
  if (generation_ != stats.generation || terms_ + terms.size() > kMaxTerms) {
    scopes_.clear();
    terms_ = 0;
  }
  generation_ = stats.generation;
  Scope& s = scopes_[ScopeKey(scope)];
  s.documents = stats.documents;
  s.tokens = stats.tokens;
  for (size_t i = 0; i < terms.size() && i < stats.df.size(); ++i) {
    if (s.df.insert_or_assign(terms[i], stats.df[i]).second) ++terms_;
  }
}

void KeywordStatsCache::Clear() {
  std::lock_guard lock(mu_);
  generation_.reset();
  scopes_.clear();
  terms_ = 0;
}

PgStatement KeywordStatsStatement(const std::vector<std::string>& terms, const ReadScope& scope) {
  PgStatement st{.prepared = true};
  st.params.AddTextArray(terms).Add(scope.all).Add(scope.principal);
  const std::string in_scope = "(a.everyone OR c.bucket = 'p' OR c.bucket = 'o:' || a.principal)";
  // The arguments through `a`, as the search's own statistics
  // (pg_entry_search.cc): one generic plan whatever they are.
  st.sql =
      "WITH a AS MATERIALIZED (SELECT $1::text[] AS terms, $2::boolean AS everyone, $3::text AS "
      "principal), st AS MATERIALIZED (SELECT (SELECT g.value FROM generations g WHERE g.name = "
      "'entry_terms') AS generation, COALESCE(sum(c.docs), 0)::bigint AS n, "
      "COALESCE(sum(c.tokens), 0)::bigint AS tokens FROM a, entry_terms c WHERE c.term = '' AND " +
      in_scope +
      ") SELECT st.generation, st.n, st.tokens, COALESCE((SELECT sum(c.docs) FROM entry_terms c "
      "WHERE c.term = t.term AND " +
      in_scope +
      "), 0)::bigint FROM a, st, unnest(a.terms) WITH ORDINALITY AS t(term, i) ORDER BY t.i";
  return st;
}

std::optional<TermStats> ReadTermStats(const Rows& rows, size_t terms) {
  if (rows.size() != static_cast<int>(terms) || rows.empty() || rows.IsNull(0, 0)) {
    return std::nullopt;
  }
  TermStats out{
      .generation = rows.Int(0, 0), .documents = rows.Int(0, 1), .tokens = rows.Int(0, 2)};
  out.df.reserve(terms);
  for (int i = 0; i < rows.size(); ++i) out.df.push_back(rows.Int(i, 3));
  return out;
}

}  // namespace mnemo::storage::internal::pg

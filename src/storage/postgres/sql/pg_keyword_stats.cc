#include "storage/postgres/sql/pg_keyword_stats.h"

#include <algorithm>
#include <charconv>

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

int64_t KeywordStatsCache::LargestCachedDf(const ReadScope& scope,
                                           const std::vector<std::string>& terms) {
  std::lock_guard lock(mu_);
  if (!generation_) return 0;
  auto it = scopes_.find(ScopeKey(scope));
  if (it == scopes_.end()) return 0;
  int64_t largest = 0;
  for (const std::string& t : terms) {
    auto found = it->second.df.find(t);
    if (found != it->second.df.end()) largest = std::max(largest, found->second);
  }
  return largest;
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

std::optional<TermStats> ReadTermStats(const Rows& rows, size_t terms) {
  if (rows.empty() || rows.IsNull(0, 0) || rows.IsNull(0, 3)) return std::nullopt;
  TermStats out{
      .generation = rows.Int(0, 0), .documents = rows.Int(0, 1), .tokens = rows.Int(0, 2)};
  // A bigint[] as text, split by the one array reader of the rows.
  for (const std::string& item : rows.TextArray(0, 3)) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || end != item.data() + item.size()) return std::nullopt;
    out.df.push_back(v);
  }
  if (out.df.size() != terms) return std::nullopt;
  return out;
}

}  // namespace mnemo::storage::internal::pg

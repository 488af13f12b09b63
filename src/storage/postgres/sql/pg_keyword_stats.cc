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
  if (mirror_on_) return;  // the mirror holds them all
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

void KeywordStatsCache::Apply(Mirror& m, std::string_view term, std::string_view bucket,
                              int64_t docs, int64_t tokens) {
  auto [b, new_bucket] =
      m.bucket_ids.try_emplace(std::string(bucket), static_cast<uint32_t>(m.bucket_ids.size()));
  const uint32_t id = b->second;
  MirroredTerm& t = m.terms[std::string(term)];
  t.docs += docs;
  t.tokens += tokens;
  for (BucketCount& c : t.buckets) {
    if (c.bucket == id) {
      c.docs += docs;
      c.tokens += tokens;
      return;
    }
  }
  t.buckets.push_back({.bucket = id, .docs = docs, .tokens = tokens});
  ++m.rows;
}

void KeywordStatsCache::GiveUpLocked() {
  mirror_.reset();
  mirror_on_ = false;
}

Status KeywordStatsCache::LoadLocked(PgConn& conn) {
  // One statement, so one snapshot: the generation and every row at it. The
  // rows all zero (a term no row holds any more) count for nothing.
  static const std::string kLoad =
      "SELECT g.value, t.term, t.bucket, t.docs, t.tokens FROM generations g LEFT JOIN LATERAL "
      "(SELECT term, bucket, docs, tokens FROM entry_terms WHERE docs <> 0 OR tokens <> 0 LIMIT "
      "$1) t ON true WHERE g.name = 'entry_terms'";
  ++reads_;
  ++loads_;
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn.ExecPrepared(kLoad, Params().Add(static_cast<int64_t>(kMirrorRowsAtMost + 1)),
                                   "load the keyword statistics"));
  // No generation (a store before v9), or past the bound: per term.
  if (rows.empty() || static_cast<size_t>(rows.size()) > kMirrorRowsAtMost) {
    GiveUpLocked();
    return Status::Ok();
  }
  Mirror m;
  m.generation = rows.Int(0, 0);
  m.terms.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.IsNull(i, 1)) continue;  // entry_terms is empty
    Apply(m, rows.Text(i, 1), rows.Text(i, 2), rows.Int(i, 3), rows.Int(i, 4));
  }
  mirror_ = std::move(m);
  return Status::Ok();
}

Result<std::optional<TermStats>> KeywordStatsCache::Mirrored(
    PgConn& conn, const ReadScope& scope, const std::vector<std::string>& terms) {
  std::lock_guard lock(mu_);
  if (!mirror_on_) return std::optional<TermStats>();
  if (!mirror_) {
    MNEMO_RETURN_IF_ERROR(LoadLocked(conn));
    if (!mirror_) return std::optional<TermStats>();
  }
  const Mirror& m = *mirror_;
  // A scope is all buckets, or the public rows' and the principal's
  // (pg_schema.cc, v7): the same integers the statement's sums add.
  std::optional<uint32_t> pub;
  std::optional<uint32_t> own;
  if (!scope.all) {
    if (auto it = m.bucket_ids.find("p"); it != m.bucket_ids.end()) pub = it->second;
    if (auto it = m.bucket_ids.find("o:" + scope.principal); it != m.bucket_ids.end()) {
      own = it->second;
    }
  }
  auto count = [&](const std::string& term, bool tokens) -> int64_t {
    auto it = m.terms.find(term);
    if (it == m.terms.end()) return 0;
    if (scope.all) return tokens ? it->second.tokens : it->second.docs;
    int64_t sum = 0;
    for (const BucketCount& c : it->second.buckets) {
      if (c.bucket == pub || c.bucket == own) sum += tokens ? c.tokens : c.docs;
    }
    return sum;
  };
  TermStats out{.generation = m.generation,
                .documents = count(std::string(), false),
                .tokens = count(std::string(), true)};
  out.df.reserve(terms.size());
  for (const std::string& t : terms) out.df.push_back(count(t, false));
  return std::optional<TermStats>(std::move(out));
}

Result<bool> KeywordStatsCache::CatchUp(PgConn& conn) {
  std::lock_guard lock(mu_);
  if (!mirror_) return false;
  // The server's generation, the oldest the log keeps and the log's rows
  // after the mirror's, in one snapshot.
  static const std::string kCatchUp =
      "SELECT g.value, (SELECT min(generation) FROM entry_terms_log), l.term, l.bucket, l.docs, "
      "l.tokens, l.generation FROM generations g LEFT JOIN entry_terms_log l ON l.generation > "
      "$1::bigint AND l.generation <= g.value WHERE g.name = 'entry_terms'";
  ++reads_;
  ++catch_ups_;
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.ExecPrepared(kCatchUp, Params().Add(mirror_->generation),
                                                      "catch up the keyword statistics"));
  if (rows.empty()) {  // no generation
    GiveUpLocked();
    return false;
  }
  const int64_t current = rows.Int(0, 0);
  // Behind the mirror (a standby that has not replayed what the mirror
  // holds): nothing to apply, and that search falls back.
  if (current < mirror_->generation) return false;
  if (current == mirror_->generation) return true;
  // The log no longer holds the generation after the mirror's (pruned), or
  // a fold logged "reload everything": all of entry_terms again.
  bool reload = rows.IsNull(0, 1) || rows.Int(0, 1) > mirror_->generation + 1;
  for (int i = 0; i < rows.size() && !reload; ++i) {
    reload = !rows.IsNull(i, 6) && rows.IsNull(i, 2);
  }
  if (reload) {
    MNEMO_RETURN_IF_ERROR(LoadLocked(conn));
    return mirror_.has_value();
  }
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.IsNull(i, 6)) continue;
    Apply(*mirror_, rows.Text(i, 2), rows.Text(i, 3), rows.Int(i, 4), rows.Int(i, 5));
  }
  mirror_->generation = current;
  if (mirror_->rows > kMirrorRowsAtMost) GiveUpLocked();
  return mirror_.has_value();
}

std::optional<int64_t> KeywordStatsCache::mirror_generation() {
  std::lock_guard lock(mu_);
  if (!mirror_) return std::nullopt;
  return mirror_->generation;
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

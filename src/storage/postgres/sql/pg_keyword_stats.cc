#include "storage/postgres/sql/pg_keyword_stats.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

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

uint32_t KeywordStatsCache::BucketId(Mirror& m, std::string_view bucket) {
  auto [it, added] =
      m.bucket_ids.try_emplace(std::string(bucket), static_cast<uint32_t>(m.bucket_ids.size()));
  if (added) m.tokens.push_back(0);
  return it->second;
}

void KeywordStatsCache::Apply(Mirror& m, std::string_view term, std::string_view bucket,
                              int64_t docs, int64_t tokens) {
  const uint32_t id = BucketId(m, bucket);
  if (term.empty()) m.tokens[id] += tokens;
  auto& rows = m.added[std::string(term)];
  for (auto& [b, d] : rows) {
    if (b == id) {
      d += docs;
      return;
    }
  }
  rows.emplace_back(id, docs);
  ++m.added_rows;
}

void KeywordStatsCache::GiveUpLocked() {
  mirror_.reset();
  mirror_on_ = false;
}

Status KeywordStatsCache::LoadLocked(PgConn& conn) {
  // One statement, so one snapshot: the generation and every row at it (a
  // sequential scan: 0.2 s at 100k, where the rows in the terms' order took
  // 2 s by the index or a sort). The rows all zero (a term no row holds any
  // more) count for nothing.
  static const std::string kLoad =
      "SELECT g.value, t.term, t.bucket, t.docs, t.tokens FROM generations g LEFT JOIN LATERAL "
      "(SELECT term, bucket, docs, tokens FROM entry_terms WHERE docs <> 0 OR tokens <> 0 LIMIT "
      "$1) t ON true WHERE g.name = 'entry_terms'";
  ++reads_;
  ++loads_;
  mirror_.reset();
  {
    MNEMO_ASSIGN_OR_RETURN(
        Rows rows,
        conn.ExecPrepared(kLoad, Params().Add(static_cast<int64_t>(kMirrorRowsAtMost + 1)),
                          "load the keyword statistics"));
    // No generation (a store before v9), or past the bound: per term.
    if (rows.empty() || static_cast<size_t>(rows.size()) > kMirrorRowsAtMost) {
      GiveUpLocked();
      return Status::Ok();
    }
    Mirror m;
    m.generation = rows.Int(0, 0);
    // Each row's term, then the rows grouped by term (a counting sort).
    std::vector<uint32_t> term_of;
    term_of.reserve(static_cast<size_t>(rows.size()));
    std::vector<uint32_t> per_term;
    for (int i = 0; i < rows.size(); ++i) {
      if (rows.IsNull(i, 1)) continue;  // entry_terms is empty
      const std::string_view term = rows.Text(i, 1);
      const uint32_t t = m.terms.Intern(term);
      if (t == per_term.size()) per_term.push_back(0);
      term_of.push_back(t);
      ++per_term[t];
      if (term.empty()) m.tokens[BucketId(m, rows.Text(i, 2))] += rows.Int(i, 4);
    }
    const size_t terms = per_term.size();
    m.row_at.assign(terms + 1, 0);
    for (size_t t = 0; t < terms; ++t) m.row_at[t + 1] = m.row_at[t] + per_term[t];
    m.bucket.resize(term_of.size());
    m.docs.resize(term_of.size());
    m.all.assign(terms, 0);
    std::vector<uint32_t> next(m.row_at.begin(), m.row_at.end() - 1);
    for (int i = 0, r = 0; i < rows.size(); ++i) {
      if (rows.IsNull(i, 1)) continue;
      const uint32_t t = term_of[static_cast<size_t>(r++)];
      const uint32_t at = next[t]++;
      m.bucket[at] = BucketId(m, rows.Text(i, 2));
      m.docs[at] = rows.Int(i, 3);
      m.all[t] += m.docs[at];
    }
    m.terms.ShrinkToFit();
    mirror_ = std::move(m);
  }
#if defined(__GLIBC__)
  // The result's rows (several times the mirror's size) go back to the
  // system, not kept by the allocator for the process's life.
  malloc_trim(0);
#endif
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
  constexpr uint32_t kNone = UINT32_MAX;
  uint32_t pub = kNone;
  uint32_t own = kNone;
  if (!scope.all) {
    if (auto it = m.bucket_ids.find("p"); it != m.bucket_ids.end()) pub = it->second;
    if (auto it = m.bucket_ids.find("o:" + scope.principal); it != m.bucket_ids.end()) {
      own = it->second;
    }
  }
  auto docs = [&](const std::string& term) -> int64_t {
    int64_t sum = 0;
    if (const uint32_t t = m.terms.Find(term); t != ::mnemo::internal::StringIds::kNone) {
      if (scope.all) {
        sum += m.all[t];
      } else {
        for (uint32_t r = m.row_at[t]; r < m.row_at[t + 1]; ++r) {
          if (m.bucket[r] == pub || m.bucket[r] == own) sum += m.docs[r];
        }
      }
    }
    if (auto it = m.added.find(term); it != m.added.end()) {
      for (const auto& [b, d] : it->second) {
        if (scope.all || b == pub || b == own) sum += d;
      }
    }
    return sum;
  };
  int64_t tokens = 0;
  for (size_t b = 0; b < m.tokens.size(); ++b) {
    if (scope.all || b == pub || b == own) tokens += m.tokens[b];
  }
  TermStats out{.generation = m.generation, .documents = docs(std::string()), .tokens = tokens};
  out.df.reserve(terms.size());
  for (const std::string& t : terms) out.df.push_back(docs(t));
  return std::optional<TermStats>(std::move(out));
}

namespace {

// The server's generation, the oldest the log keeps and the log's rows
// after $1, in one snapshot (kLogColumns).
constexpr std::string_view kCatchUp =
    "SELECT g.value, (SELECT min(generation) FROM entry_terms_log), l.term, l.bucket, l.docs, "
    "l.tokens, l.generation FROM generations g LEFT JOIN entry_terms_log l ON l.generation > "
    "$1::bigint AND l.generation <= g.value WHERE g.name = 'entry_terms'";

}  // namespace

Result<bool> KeywordStatsCache::CatchUp(PgConn& conn) {
  std::lock_guard lock(mu_);
  if (!mirror_) return false;
  ++reads_;
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn.ExecPrepared(kCatchUp, Params().Add(mirror_->generation),
                                                      "catch up the keyword statistics"));
  return CatchUpLocked(conn, rows, 0);
}

std::optional<std::pair<PgStatement, int64_t>> KeywordStatsCache::CatchUpStatement() {
  std::lock_guard lock(mu_);
  if (!mirror_) return std::nullopt;
  PgStatement st{.sql = std::string(kCatchUp), .prepared = true};
  st.params.Add(mirror_->generation);
  return std::make_pair(std::move(st), mirror_->generation);
}

Status KeywordStatsCache::CatchUpAfter(PgConn& conn, const Rows& rows, int64_t from) {
  // Current (the usual case): nothing to do, and no catch-up counted.
  if (!rows.empty() && !rows.IsNull(0, 0) && rows.Int(0, 0) == from) return Status::Ok();
  ++reads_;
  return CatchUpFrom(conn, rows, 0, from).status();
}

Result<bool> KeywordStatsCache::CatchUpFrom(PgConn& conn, const Rows& rows, int first,
                                            int64_t from) {
  {
    std::lock_guard lock(mu_);
    if (!mirror_) return false;
    // The rows cover every generation after `from`: those after the
    // mirror's when it is not behind `from` (another thread may have moved
    // it on since the statement was built).
    if (from <= mirror_->generation) return CatchUpLocked(conn, rows, first);
  }
  return CatchUp(conn);
}

Result<bool> KeywordStatsCache::CatchUpLocked(PgConn& conn, const Rows& rows, int first) {
  ++catch_ups_;
  if (rows.empty() || rows.IsNull(0, first)) {  // no generation
    GiveUpLocked();
    return false;
  }
  const int64_t current = rows.Int(0, first);
  // Behind the mirror (a standby that has not replayed what the mirror
  // holds): nothing to apply, and that search falls back.
  if (current < mirror_->generation) return false;
  if (current == mirror_->generation) return true;
  // The log no longer holds the generation after the mirror's (pruned), or
  // a fold logged "reload everything": all of entry_terms again.
  const int64_t after = mirror_->generation;
  bool reload = rows.IsNull(0, first + 1) || rows.Int(0, first + 1) > after + 1;
  for (int i = 0; i < rows.size() && !reload; ++i) {
    reload =
        !rows.IsNull(i, first + 6) && rows.Int(i, first + 6) > after && rows.IsNull(i, first + 2);
  }
  if (reload) {
    MNEMO_RETURN_IF_ERROR(LoadLocked(conn));
    return mirror_.has_value();
  }
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.IsNull(i, first + 6) || rows.Int(i, first + 6) <= after) continue;
    Apply(*mirror_, rows.Text(i, first + 2), rows.Text(i, first + 3), rows.Int(i, first + 4),
          rows.Int(i, first + 5));
  }
  mirror_->generation = current;
  // Many writes since the load: the rows they added are folded into a new
  // one (and a store grown past the bound is no longer mirrored).
  if (mirror_->added_rows > kAddedRowsAtMost) MNEMO_RETURN_IF_ERROR(LoadLocked(conn));
  return mirror_.has_value();
}

void KeywordStatsCache::ApplyOwnFold(const Rows& logged) {
  // Columns: generation, term, bucket, docs, tokens (FlushEntryTerms).
  if (logged.empty() || logged.IsNull(0, 0)) return;
  std::lock_guard lock(mu_);
  if (!mirror_) return;
  const int64_t generation = logged.Int(0, 0);
  if (generation != mirror_->generation + 1) return;
  for (int i = 0; i < logged.size(); ++i) {
    if (logged.IsNull(i, 1)) return;  // "reload everything": the next search does
  }
  for (int i = 0; i < logged.size(); ++i) {
    Apply(*mirror_, logged.Text(i, 1), logged.Text(i, 2), logged.Int(i, 3), logged.Int(i, 4));
  }
  mirror_->generation = generation;
  ++own_folds_;
  // Many writes since the load: the next search loads a new one.
  if (mirror_->added_rows > kAddedRowsAtMost) mirror_.reset();
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

#include "storage/postgres/sql/pg_node_search.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "storage/postgres/sql/pg_entry_sql.h"

namespace mnemo::storage::internal::pg {
namespace {

// The columns of a row the index holds (binary results), as RowAt reads them.
constexpr const char* kRowColumns =
    "e.label, e.tsv, e.doc_length, e.updated_at, e.owner, e.visibility = 'public' AS is_public, "
    "e.archived, e.namespace";

// The log's head: the seq of the newest change a snapshot holds.
constexpr const char* kHead = "(SELECT COALESCE(max(seq), 0) AS head FROM entry_changes)";

NodeKeywordRow RowAt(const Rows& rows, int i, int first) {
  return {.label = rows.Int(i, first),
          .tsv = rows.Text(i, first + 1),
          .doc_length = rows.Int(i, first + 2),
          .updated_at = rows.Int(i, first + 3),
          .owner = rows.Text(i, first + 4),
          .is_public = rows.Bool(i, first + 5),
          .archived = rows.Bool(i, first + 6),
          .system = IsSystemNamespace(rows.Text(i, first + 7))};
}

// Every row with the head in one snapshot: column 0 the head, the row's
// columns from 1 (a single row of NULLs when there are none).
PgStatement LoadStatement() {
  return {.sql = std::string("SELECT g.head, r.* FROM ") + kHead + " g LEFT JOIN LATERAL (SELECT " +
                 kRowColumns + " FROM entries e) r ON true",
          .prepared = true,
          .binary_results = true};
}

// The log past `after` (at most kChangesAtMost + 1 changes) with each
// changed row's columns now (NULL: deleted), after the highest seq the log
// deleted (column 0, on every row; one row without a change when there is
// none): 0 trimmed, 1 seq, 2 label, then the row's columns from 3.
PgStatement ChangesStatement(int64_t after) {
  PgStatement st{
      .sql = std::string("SELECT t.trimmed, c.seq, c.label, r.* FROM (SELECT trimmed FROM "
                         "entry_changes_window) t LEFT JOIN LATERAL (SELECT seq, "
                         "label FROM entry_changes WHERE seq > $1::bigint ORDER BY seq LIMIT "
                         "$2::bigint) c ON true LEFT JOIN LATERAL (SELECT ") +
             kRowColumns + " FROM entries e WHERE e.label = c.label) r ON true ORDER BY c.seq",
      .prepared = true,
      .binary_results = true};
  st.params.Add(after).Add(NodeKeywords::kChangesAtMost + 1);
  return st;
}
constexpr int kChangedRow = 3;

// The entries of `labels` with the log's head in the statement's snapshot:
// column 0 the head, then the label and the entry (a single row of NULLs
// when there are none).
PgStatement FetchStatement(const std::vector<Label>& labels) {
  PgStatement st{.sql = std::string("SELECT g.head, e.label, ") + kEntryColumns + " FROM " + kHead +
                        " g LEFT JOIN LATERAL (SELECT * FROM entries e WHERE e.label = "
                        "ANY($1::bigint[])) e ON true",
                 .prepared = true};
  st.params.AddIntArray(labels);
  return st;
}

// The entries of `labels` that pass `filter`, with the log's head in the
// statement's snapshot: column 0 the head, then the label and the entry (a
// single row of NULLs when none passes).
PgStatement FilteredFetchStatement(std::span<const Label> labels, const EntryFilter& filter) {
  PgStatement st{.prepared = true};
  st.params.AddIntArray(labels);
  const std::string where = FilterSql(filter, st.params);
  st.sql = std::string("SELECT g.head, e.label, ") + kEntryColumns + " FROM " + kHead +
           " g LEFT JOIN LATERAL (SELECT * FROM entries e WHERE e.label = ANY($1::bigint[]) AND " +
           where + ") e ON true";
  return st;
}

// The hits of `ranked` from their rows fetched (FetchStatement's), in the
// server's order (score, updated_at, then key, owner and namespace, which
// break the ties Rank left), the first `limit`; nullopt when a ranked row
// is missing.
std::optional<std::vector<KeywordHit>> Hits(const std::vector<NodeKeywordCandidate>& ranked,
                                            const Rows& rows, int limit) {
  std::unordered_map<Label, int> row_of;
  for (int i = 0; i < rows.size(); ++i) {
    if (!rows.IsNull(i, 1)) row_of[rows.Int(i, 1)] = i;
  }
  std::vector<KeywordHit> hits;
  hits.reserve(ranked.size());
  for (const NodeKeywordCandidate& c : ranked) {
    const auto it = row_of.find(c.label);
    if (it == row_of.end()) return std::nullopt;
    hits.push_back(
        {.entry = ReadEntry(rows, it->second, 2), .keyword_score = c.score, .label = c.label});
  }
  std::stable_sort(hits.begin(), hits.end(), [](const KeywordHit& x, const KeywordHit& y) {
    if (x.keyword_score != y.keyword_score) return x.keyword_score > y.keyword_score;
    if (x.entry.updated_at != y.entry.updated_at) return x.entry.updated_at > y.entry.updated_at;
    if (x.entry.key != y.entry.key) return x.entry.key < y.entry.key;
    if (x.entry.owner != y.entry.owner) return x.entry.owner < y.entry.owner;
    return x.entry.ns < y.entry.ns;
  });
  if (hits.size() > static_cast<size_t>(limit)) hits.resize(static_cast<size_t>(limit));
  return hits;
}

}  // namespace

bool NodeKeywords::Handles(const EntryFilter& filter) {
  return !filter.category && !filter.ns && !filter.ns_prefix && filter.tags.empty() &&
         !filter.since && !filter.until;
}

int64_t NodeKeywords::watermark() {
  std::shared_lock lock(mu_);
  return watermark_;
}

size_t NodeKeywords::rows() {
  std::shared_lock lock(mu_);
  return index_.rows();
}

size_t NodeKeywords::memory_bytes() {
  std::shared_lock lock(mu_);
  return index_.MemoryBytes();
}

std::optional<std::pair<PgStatement, int64_t>> NodeKeywords::CatchUpStatement() {
  const int64_t from = watermark();
  if (from < 0) return std::nullopt;
  return std::make_pair(ChangesStatement(from), from);
}

Status NodeKeywords::Reload(PgConn& conn, int64_t seen) {
  std::lock_guard load(load_mu_);
  if (loads_.load() != seen) return Status::Ok();
  const auto started = std::chrono::steady_clock::now();
  const PgStatement st = LoadStatement();
  ++round_trips_;
  MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> results,
                         conn.ExecPipeline(std::span(&st, 1), "load the node's keyword index"));
  if (results.size() != 1 || results[0].empty()) {
    return Internal("load the node's keyword index: no result");
  }
  const Rows& rows = results[0];
  NodeKeywordIndex fresh;
  for (int i = 0; i < rows.size(); ++i) {
    if (!rows.IsNull(i, 1)) MNEMO_RETURN_IF_ERROR(fresh.Put(RowAt(rows, i, 1)));
  }
  fresh.ShrinkToFit();
  const size_t held = fresh.rows();
  const size_t bytes = fresh.MemoryBytes();
  {
    std::unique_lock lock(mu_);
    index_ = std::move(fresh);
    watermark_ = rows.Int(0, 0);
    recent_.clear();
    recent_from_ = watermark_;
  }
  ++loads_;
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - started)
                      .count();
  logger_->Log(LogLevel::kInfo, "loaded the keyword index of " + std::to_string(held) +
                                    " entries in " + std::to_string(ms) + " ms (" +
                                    std::to_string(bytes / 1024) + " KiB)");
  return Status::Ok();
}

Status NodeKeywords::CatchUp(PgConn& conn, const Rows& changes, int64_t from) {
  std::unique_lock lock(mu_);
  // Another search caught up meanwhile: the changes past its watermark.
  const int64_t at = watermark_;
  if (at < from) return Status::Ok();  // reloaded since, or a catch-up failed
  bool reload = changes.empty() || changes.Int(0, 0) > at;
  int count = 0;
  for (int i = 0; i < changes.size() && !reload; ++i) {
    if (changes.IsNull(i, 1)) continue;
    ++count;
    reload = (changes.IsNull(i, 2) && changes.Int(i, 1) > at) || count > kChangesAtMost;
  }
  if (reload) {
    const int64_t seen = loads_.load();
    lock.unlock();
    return Reload(conn, seen);
  }
  int64_t last = at;
  count = 0;
  for (int i = 0; i < changes.size(); ++i) {
    if (changes.IsNull(i, 1) || changes.Int(i, 1) <= at) continue;
    ++count;
    last = std::max(last, changes.Int(i, 1));
    recent_.emplace_back(changes.Int(i, 1), changes.Int(i, 2));
    if (recent_.size() > kRecentChanges) {
      recent_from_ = recent_.front().first;
      recent_.pop_front();
    }
    if (changes.IsNull(i, kChangedRow)) {
      index_.Remove(changes.Int(i, 2));
    } else if (Status s = index_.Put(RowAt(changes, i, kChangedRow)); !s.ok()) {
      watermark_ = -1;  // partly applied: the next search reloads
      return s;
    }
  }
  watermark_ = last;
  changes_applied_ += count;
  return Status::Ok();
}

bool NodeKeywords::ChangedSince(int64_t seq, std::span<const Label> labels) const {
  if (seq == watermark_) return false;
  if (seq < recent_from_) return true;
  std::unordered_set<Label> asked;
  for (auto it = recent_.rbegin(); it != recent_.rend() && it->first > seq; ++it) {
    if (asked.empty()) asked.insert(labels.begin(), labels.end());
    if (asked.contains(it->second)) return true;
  }
  return false;
}

std::optional<NodeKeywords::Fetch> NodeKeywords::FetchStatements(std::span<const Label> labels,
                                                                 const EntryFilter& filter) {
  const int64_t from = watermark();
  if (from < 0) return std::nullopt;
  return Fetch{.changes = ChangesStatement(from),
               .rows = FilteredFetchStatement(labels, filter),
               .from = from};
}

Result<std::optional<std::vector<KeywordHit>>> NodeKeywords::WeighFetched(
    PgConn& conn, const Fetch& fetch, const Rows& changes, const Rows& rows,
    std::span<const Label> labels, const std::vector<std::string>& terms, const ReadScope& scope) {
  using Answer = std::optional<std::vector<KeywordHit>>;
  if (rows.empty()) return Internal("read entries by label: no result");
  const int64_t head = rows.Int(0, 0);
  if (head > fetch.from) MNEMO_RETURN_IF_ERROR(CatchUp(conn, changes, fetch.from));
  std::vector<double> scores;
  {
    std::shared_lock lock(mu_);
    if (watermark_ < head || ChangedSince(head, labels)) {
      ++fetches_left_;
      return Answer();
    }
    scores = index_.Score(terms, scope, labels);
  }
  std::unordered_map<Label, int> row_of;
  for (int i = 0; i < rows.size(); ++i) {
    if (!rows.IsNull(i, 1)) row_of[rows.Int(i, 1)] = i;
  }
  std::vector<KeywordHit> hits;
  hits.reserve(row_of.size());
  for (size_t at = 0; at < labels.size(); ++at) {
    const auto it = row_of.find(labels[at]);
    if (it == row_of.end()) continue;
    hits.push_back({.entry = ReadEntry(rows, it->second, 2),
                    .keyword_score = scores[at],
                    .label = labels[at]});
    row_of.erase(it);  // each once, as FetchByLabels gives them
  }
  ++weighed_fetches_;
  return Answer(std::move(hits));
}

Result<std::optional<std::vector<KeywordHit>>> NodeKeywords::Search(PgConn& conn,
                                                                    const KeywordQuery& query) {
  using Answer = std::optional<std::vector<KeywordHit>>;
  if (!Handles(query.filter)) return Answer();
  if (const int64_t seen = loads_.load(); watermark() < 0) {
    MNEMO_RETURN_IF_ERROR(Reload(conn, seen));
  }
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    int64_t from = 0;
    std::vector<NodeKeywordCandidate> ranked;
    {
      std::shared_lock lock(mu_);
      from = watermark_;
      if (from < 0) break;  // a catch-up failed part way
      ranked =
          index_.Rank(query.terms, query.filter.scope, query.filter.include_archived, query.limit);
    }
    std::vector<Label> labels;
    labels.reserve(ranked.size());
    for (const NodeKeywordCandidate& c : ranked) labels.push_back(c.label);
    const PgStatement statements[] = {ChangesStatement(from), FetchStatement(labels)};
    ++round_trips_;
    MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> results,
                           conn.ExecPipeline(statements, "search entries"));
    if (results.size() != 2 || results[1].empty()) return Internal("search entries: no result");
    const int64_t head = results[1].Int(0, 0);
    if (head < from) break;  // a server behind the node (a standby)
    if (head > from) {
      // Another write since: the index catches up with the changes read
      // just before the rows. When it then holds exactly the rows' snapshot
      // and ranks no row they miss (the write touched none of the top, as
      // most do not), those rows are the hits: no second round trip.
      // (Or a later one, caught up by another search, whose changes since
      // touched none of the rows ranked: they are that snapshot's too.)
      MNEMO_RETURN_IF_ERROR(CatchUp(conn, results[0], from));
      std::shared_lock lock(mu_);
      if (watermark_ < head) continue;
      ranked =
          index_.Rank(query.terms, query.filter.scope, query.filter.include_archived, query.limit);
      labels.clear();
      for (const NodeKeywordCandidate& c : ranked) labels.push_back(c.label);
      if (ChangedSince(head, labels)) continue;
    }
    Answer hits = Hits(ranked, results[1], query.limit);
    if (hits) {
      ++searches_;
      return hits;
    }
    if (head == from) return hits;  // a ranked row missing from its own snapshot
  }
  return Answer();
}

}  // namespace mnemo::storage::internal::pg

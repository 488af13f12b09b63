// The vector half of the PostgreSQL backend (entry_store.h, "Vectors") and its
// reads by label: tables entry_vectors and vector_changes (pg_schema.cc),
// the same log as SQLite's (vector_rules.h). Writers are serialised by the
// writer lock, so a change's seq is also its commit order and a reader that
// has seen seq s has seen every change up to s.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_matching_labels.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/postgres/stores/postgres_entry_store.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr int kForEachVectorPage = 1024;

// Keeps the newest `limit` changes of `signature`; the newest older one
// becomes the trim marker and the rest are deleted (vector_rules.h).
Status TrimSignature(PgConn& conn, const std::string& signature, int64_t limit) {
  MNEMO_ASSIGN_OR_RETURN(Rows found, conn.Exec("SELECT seq FROM vector_changes WHERE signature = "
                                               "$1 ORDER BY seq DESC LIMIT 1 OFFSET $2",
                                               Params().Add(signature).Add(limit),
                                               "find where to trim the vector change log"));
  if (found.empty()) return Status::Ok();
  const int64_t marker = found.Int(0, 0);
  MNEMO_RETURN_IF_ERROR(conn.Exec("DELETE FROM vector_changes WHERE signature = $1 AND seq < $2",
                                  Params().Add(signature).Add(marker), "trim the vector change log")
                            .status());
  return conn
      .Exec("UPDATE vector_changes SET present = $1 WHERE seq = $2",
            Params().Add(static_cast<int64_t>(kTrimMarker)).Add(marker),
            "mark the trimmed vector change log")
      .status();
}

// `st` alone, prepared, its rows in binary (PgStatement::binary_results):
// the statements that read stored vectors.
Result<Rows> ExecBinary(PgConn& conn, pg::PgStatement st, std::string_view what) {
  st.prepared = true;
  st.binary_results = true;
  MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> rows, conn.ExecPipeline(std::span(&st, 1), what));
  if (rows.size() != 1) return Internal(std::string(what) + ": no result");
  return std::move(rows[0]);
}

// VectorWatermark's statement. Prepared: every search reads it, and parsing
// and planning it each time cost the server more than running it.
pg::PgStatement WatermarkStatement(std::string_view signature) {
  pg::PgStatement st{.sql = "SELECT max(seq) FROM vector_changes WHERE signature = $1",
                     .prepared = true};
  st.params.Add(signature);
  return st;
}

// VectorsFor's statement and its rows in the labels' order.
pg::PgStatement VectorsStatement(std::string_view signature, std::span<const Label> labels) {
  pg::PgStatement st{.sql =
                         "SELECT label, vector FROM entry_vectors WHERE signature = $1 AND "
                         "label = ANY($2::bigint[])",
                     .prepared = true,
                     .binary_results = true};
  st.params.Add(signature).AddIntArray(labels);
  return st;
}

std::vector<LabeledVector> FetchedVectors(std::span<const Label> labels, const Rows& rows) {
  std::unordered_map<Label, LabeledVector> found;
  for (int i = 0; i < rows.size(); ++i) {
    const Label label = rows.Int(i, 0);
    found[label] = {label, rows.Floats(i, 1)};
  }
  return InLabelOrder(labels, found);
}

// FetchByLabels' statement: one, so the scores are those of the entries
// read, from the statistics of the same snapshot (pg_entry_search.h). With
// `stats` (the node's statistics of DistinctTerms(terms) in the filter's
// scope, KeywordStatsCache) it weighs with them as parameters and reads no
// entry_terms row: the same scores, to the bit, as long as the store's
// generation is still theirs in the statement's snapshot; otherwise it
// returns no row of an entry (Fresh is false). Each row's last column is
// that check; a row without a label is the check alone.
pg::PgStatement FetchStatement(std::span<const Label> labels, const EntryFilter& filter,
                               const std::vector<std::string>& terms,
                               const pg::TermStats* stats = nullptr) {
  const std::vector<std::string> distinct = DistinctTerms(terms);
  pg::PgStatement st{.prepared = true};
  Params& p = st.params;
  p.AddIntArray(labels);
  std::string with;
  std::string joins;  // k and f of the weights
  std::string score = "0.0";
  std::string fresh;
  std::string full;
  for (const std::string& t : distinct) {
    if (!pg::SearchableTerm(t)) continue;
    if (!full.empty()) full += " | ";
    full += pg::QuoteLexeme(t);
  }
  if (!full.empty()) {
    const pg::EntryWeightsSql w = stats != nullptr ? pg::AddEntryWeightsFrom(p, distinct, *stats)
                                                   : pg::AddEntryWeights(p, distinct, filter.scope);
    p.Add(full);
    if (stats != nullptr) {
      fresh = w.fresh;
      joins = " " + w.lateral;
    } else {
      with = w.with + " ";
      joins = " CROSS JOIN k " + w.lateral;
    }
    score = "CASE WHEN " + w.ready + " AND e.tsv @@ " + pg::Last(p) + "::tsquery THEN " + w.score +
            " ELSE 0.0 END";
  }
  const std::string where = pg::FilterSql(filter, p);
  const std::string rows = "SELECT e.label, " + std::string(pg::kEntryColumns) + ", " + score +
                           " AS score FROM entries e" + joins +
                           " WHERE e.label = ANY($1::bigint[]) AND " + where;
  if (stats == nullptr) {
    st.sql = with + rows;
    return st;
  }
  // The rows only when fresh (a one-time filter); the check's row always.
  st.sql = "SELECT h.*, g.ok FROM (" + fresh + " OFFSET 0) g LEFT JOIN LATERAL (" + rows +
           " AND g.ok) h ON true";
  return st;
}

// Whether the rows of a FetchStatement given statistics are weighed with
// fresh ones.
bool Fresh(const Rows& rows) { return !rows.empty() && rows.Bool(0, 2 + pg::kEntryColumnCount); }

std::vector<KeywordHit> FetchedHits(std::span<const Label> labels, const Rows& rows) {
  std::unordered_map<Label, KeywordHit> hits;
  for (int i = 0; i < rows.size(); ++i) {
    if (rows.IsNull(i, 0)) continue;  // the freshness check's row alone
    const Label label = rows.Int(i, 0);
    hits[label] = {.entry = pg::ReadEntry(rows, i, 1),
                   .keyword_score = rows.Double(i, 1 + pg::kEntryColumnCount),
                   .label = label};
  }
  return InLabelOrder(labels, hits);
}

// The statistics a fetch of candidates for `terms` in `filter`'s scope
// weighs with, from the node's cache: the mirror's (loaded on `conn` at
// the first use, as the keyword search does), or those a search kept per
// term; nullopt when it holds none (the fetch reads them on the server).
// `terms` holds a searchable one (otherwise nothing is weighed).
Result<std::optional<pg::TermStats>> CachedStats(PgConn& conn, pg::KeywordStatsCache& cache,
                                                 const EntryFilter& filter,
                                                 const std::vector<std::string>& terms) {
  const std::vector<std::string> distinct = DistinctTerms(terms);
  if (cache.mirrors()) return cache.Mirrored(conn, filter.scope, distinct);
  return cache.Find(filter.scope, distinct);
}

}  // namespace

Status PostgresDatabase::DropVectorsIn(PgConn& conn, Label label) {
  MNEMO_ASSIGN_OR_RETURN(
      Rows logged,
      conn.ExecPrepared("INSERT INTO vector_changes (signature, label, present) SELECT "
                        "signature, label, $1 FROM entry_vectors WHERE label = $2 ORDER BY "
                        "signature",
                        Params().Add(static_cast<int64_t>(kChangeRemoved)).Add(label),
                        "log the removal of the entry's vectors"));
  if (logged.affected() == 0) return Status::Ok();
  logged_changes_ += logged.affected();
  return conn
      .ExecPrepared("DELETE FROM entry_vectors WHERE label = $1", Params().Add(label),
                    "delete the entry's vectors")
      .status();
}

Status PostgresDatabase::TrimVectorLogIn(PgConn& conn) {
  const int64_t logged = std::exchange(logged_changes_, 0);
  if (logged == 0 || !trim_.Logged(logged)) return Status::Ok();
  MNEMO_ASSIGN_OR_RETURN(Rows signatures, conn.Exec("SELECT DISTINCT signature FROM vector_changes",
                                                    "list the vector signatures"));
  for (int i = 0; i < signatures.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(TrimSignature(conn, std::string(signatures.Text(i, 0)), trim_.limit()));
  }
  return Status::Ok();
}

Status PostgresEntryStore::PutVectors(std::string_view signature,
                                      std::span<const LabeledVector> vectors) {
  return Write("store vectors",
               [&](PgConn& conn) -> Status { return db_->PutVectorsIn(conn, signature, vectors); });
}

Status PostgresDatabase::PutVectorsIn(PgConn& conn, std::string_view signature,
                                      std::span<const LabeledVector> vectors) {
  MNEMO_RETURN_IF_ERROR(CheckVectorDimensions(signature, vectors, std::nullopt));
  if (vectors.empty()) return Status::Ok();
  // The stored dimension is read in the round trip of the first vectors,
  // before them: the write is a transaction, so a dimension that turns out
  // wrong undoes what was sent along (the caller's Write rolls back). One
  // round trip per kPipelinedVectors vectors instead of two per vector: a
  // store's vector no longer costs a round trip of its own under the lock.
  static constexpr size_t kPipelinedVectors = 256;
  static const std::string kDimension =
      "SELECT dim FROM entry_vectors WHERE signature = $1 LIMIT 1";
  // Labels deleted meanwhile are skipped; each stored vector is logged.
  static const std::string kPut =
      "WITH put AS (INSERT INTO entry_vectors (label, signature, dim, vector) "
      "SELECT $1, $2, $3, $4::bytea WHERE EXISTS (SELECT 1 FROM entries WHERE "
      "label = $1) ON CONFLICT (signature, label) DO UPDATE SET dim = "
      "excluded.dim, vector = excluded.vector RETURNING label) "
      "INSERT INTO vector_changes (signature, label, present) SELECT $2, label, $5 "
      "FROM put";
  for (size_t from = 0; from < vectors.size(); from += kPipelinedVectors) {
    const std::span<const LabeledVector> chunk =
        vectors.subspan(from, std::min(kPipelinedVectors, vectors.size() - from));
    std::vector<pg::PgStatement> statements;
    statements.reserve(chunk.size() + 1);
    if (from == 0) {
      statements.push_back(
          {.sql = kDimension, .params = Params().Add(signature), .prepared = true});
    }
    for (const LabeledVector& v : chunk) {
      statements.push_back({.sql = kPut,
                            .params = Params()
                                          .Add(v.label)
                                          .Add(signature)
                                          .Add(static_cast<int64_t>(v.vector.size()))
                                          .AddFloats(v.vector)
                                          .Add(static_cast<int64_t>(kChangePresent)),
                            .prepared = true});
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> rows, conn.ExecPipeline(statements, "store vectors"));
    if (rows.size() != statements.size()) return Internal("store vectors: results missing");
    size_t at = 0;
    if (from == 0) {
      const Rows& dim = rows[at++];
      std::optional<size_t> stored;
      if (!dim.empty()) stored = static_cast<size_t>(dim.Int(0, 0));
      MNEMO_RETURN_IF_ERROR(CheckVectorDimensions(signature, vectors, stored));
    }
    for (; at < rows.size(); ++at) logged_changes_ += rows[at].affected();
  }
  return Status::Ok();
}

Status PostgresDatabase::PutWriteVectorsIn(PgConn& conn, Label label,
                                           std::span<const SignedVector> vectors) {
  for (const SignedVector& v : vectors) {
    const LabeledVector one{.label = label, .vector = v.vector};
    MNEMO_RETURN_IF_ERROR(PutVectorsIn(conn, v.signature, std::span(&one, 1)));
  }
  return Status::Ok();
}

Status PostgresEntryStore::ForEachVector(std::string_view signature,
                                         const std::function<Status(const LabeledVector&)>& fn) {
  Label after = 0;
  while (true) {
    // Pages by keyset; `fn` runs with no connection held.
    std::vector<LabeledVector> page;
    {
      MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
      MNEMO_ASSIGN_OR_RETURN(
          Rows rows,
          ExecBinary(*conn,
                     {.sql = "SELECT label, vector FROM entry_vectors WHERE signature = $1 AND "
                             "label > $2 ORDER BY label LIMIT " +
                             std::to_string(kForEachVectorPage),
                      .params = Params().Add(signature).Add(after)},
                     "read vectors"));
      for (int i = 0; i < rows.size(); ++i) page.push_back({rows.Int(i, 0), rows.Floats(i, 1)});
    }
    for (const LabeledVector& v : page) MNEMO_RETURN_IF_ERROR(fn(v));
    if (page.size() < static_cast<size_t>(kForEachVectorPage)) return Status::Ok();
    after = page.back().label;
  }
}

Result<std::vector<LabeledVector>> PostgresEntryStore::VectorsFor(std::string_view signature,
                                                                  std::span<const Label> labels) {
  if (labels.empty()) return std::vector<LabeledVector>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         ExecBinary(*conn, VectorsStatement(signature, labels), "read vectors"));
  return FetchedVectors(labels, rows);
}

Result<std::vector<MissingVector>> PostgresEntryStore::MissingVectors(std::string_view signature,
                                                                      Label after_label,
                                                                      int limit) {
  std::vector<MissingVector> out;
  if (limit <= 0) return out;
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec("SELECT e.label, e.key, e.content FROM entries e WHERE e.label > $1 AND NOT "
                 "EXISTS (SELECT 1 FROM entry_vectors v WHERE v.signature = $2 AND "
                 "v.label = e.label) ORDER BY e.label LIMIT $3",
                 Params().Add(after_label).Add(signature).Add(static_cast<int64_t>(limit)),
                 "find entries without vectors"));
  for (int i = 0; i < rows.size(); ++i) {
    out.push_back({rows.Int(i, 0), std::string(rows.Text(i, 1)), std::string(rows.Text(i, 2))});
  }
  return out;
}

Result<int64_t> PostgresEntryStore::CountMissingVectors(std::string_view signature) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec("SELECT count(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM "
                            "entry_vectors v WHERE v.signature = $1 AND v.label = e.label)",
                            Params().Add(signature), "count entries without vectors"));
  return rows.Int(0, 0);
}

Result<int64_t> PostgresEntryStore::VectorWatermark(std::string_view signature) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  const pg::PgStatement st = WatermarkStatement(signature);
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->ExecPrepared(st.sql, st.params, "read the vector watermark"));
  return rows.Int(0, 0);
}

Result<int64_t> PostgresEntryStore::CountVectors(std::string_view signature) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec("SELECT count(*) FROM entry_vectors WHERE signature = $1",
                                    Params().Add(signature), "count the vectors"));
  return rows.Int(0, 0);
}

Result<std::vector<VectorChange>> PostgresEntryStore::VectorChangesSince(std::string_view signature,
                                                                         int64_t seq, int limit) {
  std::vector<VectorChange> out;
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  // One statement, so one snapshot for the trim check and the changes, in
  // one round trip: every other search of the process waits for a catch-up
  // (VectorSpace holds its lock), and a snapshot transaction around two
  // statements took four round trips, most of a search's time through a
  // node other than the writer's on a busy server. The first row is the
  // oldest change (part 0); a put carries the label's current vector, as on
  // SQLite.
  std::vector<pg::PgStatement> statements;
  statements.push_back(
      {.sql = "(SELECT 0 AS part, seq, present::bigint AS label, NULL::bytea AS vector FROM "
              "vector_changes WHERE signature = $1 ORDER BY seq LIMIT 1) UNION ALL (SELECT 1, "
              "c.seq, c.label, v.vector FROM vector_changes c LEFT JOIN entry_vectors v ON "
              "c.present = 1 AND v.signature = c.signature AND v.label = c.label WHERE "
              "c.signature = $1 AND c.seq > $2 AND c.present >= 0 ORDER BY c.seq LIMIT $3) "
              "ORDER BY part, seq",
       .params = Params().Add(signature).Add(seq).Add(static_cast<int64_t>(std::max(limit, 0))),
       .prepared = true,
       .binary_results = true});
  // The keyword statistics' log after the node's mirror, in the same round
  // trip: a search reads the vector log before its keyword statement
  // (SearchService), so another node's write moves the mirror here and the
  // keyword statement finds it current instead of stale (a second round
  // trip). Nothing is read when nothing is mirrored.
  pg::KeywordStatsCache& stats = keyword_stats();
  std::optional<std::pair<pg::PgStatement, int64_t>> catch_up = stats.CatchUpStatement();
  if (catch_up) statements.push_back(std::move(catch_up->first));
  // The same for the node's keyword index (pg_node_search.h).
  std::optional<std::pair<pg::PgStatement, int64_t>> node_catch_up;
  if (pg::NodeKeywords* node = node_keywords()) node_catch_up = node->CatchUpStatement();
  if (node_catch_up) statements.push_back(std::move(node_catch_up->first));
  MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> results,
                         conn->ExecPipeline(statements, "read vector changes"));
  if (results.size() != statements.size()) return Internal("read vector changes: no result");
  if (catch_up) MNEMO_RETURN_IF_ERROR(stats.CatchUpAfter(*conn, results[1], catch_up->second));
  if (node_catch_up) {
    MNEMO_RETURN_IF_ERROR(
        node_keywords()->CatchUpAfter(*conn, results.back(), node_catch_up->second));
  }
  const Rows& rows = results[0];
  int first = 0;
  if (!rows.empty() && rows.Int(0, 0) == 0) {
    first = 1;
    if (rows.Int(0, 2) == kTrimMarker && seq < rows.Int(0, 1)) {
      return TrimmedLogError(signature, seq, rows.Int(0, 1));
    }
  }
  for (int i = first; i < rows.size(); ++i) {
    out.push_back({.seq = rows.Int(i, 1),
                   .label = rows.Int(i, 2),
                   .vector = rows.IsNull(i, 3) ? std::vector<float>() : rows.Floats(i, 3)});
  }
  return out;
}

Result<std::vector<KeywordHit>> PostgresEntryStore::FetchByLabels(
    std::span<const Label> labels, const EntryFilter& filter,
    const std::vector<std::string>& terms) {
  if (labels.empty()) return std::vector<KeywordHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  const pg::PgStatement st = FetchStatement(labels, filter, terms);
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->ExecPrepared(st.sql, st.params, "read entries by label"));
  return FetchedHits(labels, rows);
}

Result<FetchedCandidates> PostgresEntryStore::FetchWithVectors(
    std::span<const Label> labels, const EntryFilter& filter, const std::vector<std::string>& terms,
    std::string_view signature, std::span<const Label> vector_labels, bool with_watermark) {
  FetchedCandidates out;
  if (labels.empty() && vector_labels.empty() && !with_watermark) return out;
  // Every statement in one pipeline, so one round trip (a hybrid search's
  // vector-side rows, the vectors of its candidates and the change log's
  // watermark its index is checked against). The watermark goes first: the
  // rows read after it are at least as new.
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  const bool weighed =
      !labels.empty() && std::any_of(terms.begin(), terms.end(), pg::SearchableTerm);
  // The candidates weighed by the node's keyword index when it holds one:
  // a plain fetch by label, read with the entry log past the index, so the
  // server scores nothing (pg_node_search.h, WeighFetched).
  pg::NodeKeywords* node = weighed ? node_keywords() : nullptr;
  std::optional<pg::NodeKeywords::Fetch> node_fetch;
  if (node != nullptr) node_fetch = node->FetchStatements(labels, filter);
  // Otherwise with the node's statistics of the terms when it holds them
  // (as the keyword search of the same query just did): no entry_terms row
  // read, no weight computed on the server.
  pg::KeywordStatsCache& cache = keyword_stats();
  std::optional<pg::TermStats> stats;
  if (weighed && !node_fetch) {
    MNEMO_ASSIGN_OR_RETURN(stats, CachedStats(*conn, cache, filter, terms));
  }
  std::vector<pg::PgStatement> statements;
  if (with_watermark) statements.push_back(WatermarkStatement(signature));
  if (node_fetch) {
    statements.push_back(std::move(node_fetch->changes));
    statements.push_back(std::move(node_fetch->rows));
  } else if (!labels.empty()) {
    statements.push_back(FetchStatement(labels, filter, terms, stats ? &*stats : nullptr));
    if (weighed) {
      cache.CountStatement();
      if (!stats) cache.CountRead();
    }
  }
  if (!vector_labels.empty()) statements.push_back(VectorsStatement(signature, vector_labels));
  MNEMO_ASSIGN_OR_RETURN(std::vector<Rows> rows,
                         conn->ExecPipeline(statements, "read entries and vectors by label"));
  if (rows.size() != statements.size()) {
    return Internal("reading entries and vectors by label: " + std::to_string(rows.size()) +
                    " results for " + std::to_string(statements.size()) + " statements");
  }
  size_t at = 0;
  if (with_watermark) out.watermark = rows[at++].Int(0, 0);
  // The rows weighed with the statistics of their own snapshot, a second
  // round trip: when a write moved the store since the node's statistics or
  // index (another node's, between the keyword search and this fetch).
  auto weigh_on_server = [&]() -> Result<std::vector<KeywordHit>> {
    cache.CountStatement();
    cache.CountRead();
    const pg::PgStatement again = FetchStatement(labels, filter, terms);
    MNEMO_ASSIGN_OR_RETURN(Rows fetched,
                           conn->ExecPrepared(again.sql, again.params, "read entries by label"));
    return FetchedHits(labels, fetched);
  };
  if (node_fetch) {
    const Rows& changes = rows[at++];
    const Rows& fetched = rows[at++];
    MNEMO_ASSIGN_OR_RETURN(std::optional<std::vector<KeywordHit>> hits,
                           node->WeighFetched(*conn, *node_fetch, changes, fetched, labels,
                                              DistinctTerms(terms), filter.scope));
    if (hits) {
      out.hits = std::move(*hits);
    } else {
      MNEMO_ASSIGN_OR_RETURN(out.hits, weigh_on_server());
    }
  } else if (!labels.empty()) {
    const Rows& fetched = rows[at++];
    if (!stats || Fresh(fetched)) {
      out.hits = FetchedHits(labels, fetched);
    } else {
      MNEMO_ASSIGN_OR_RETURN(out.hits, weigh_on_server());
    }
  }
  if (!vector_labels.empty()) out.vectors = FetchedVectors(vector_labels, rows[at]);
  return out;
}

Result<std::vector<Label>> PostgresEntryStore::AcceptedLabels(std::span<const Label> labels,
                                                              const EntryFilter& filter) {
  std::vector<Label> out;
  if (labels.empty()) return out;
  // Labels only: the vector search asks this of every candidate it walks
  // past (4k and more a search), and reading their rows whole
  // (FetchByLabels) was most of a hybrid search's server time.
  Params p;
  p.AddIntArray(labels);
  const std::string where = pg::FilterSql(filter, p);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->ExecPrepared("SELECT e.label FROM entries e WHERE e.label = "
                                            "ANY($1::bigint[]) AND " +
                                                where,
                                            p, "filter entries by label"));
  std::unordered_set<Label> passed;
  for (int i = 0; i < rows.size(); ++i) passed.insert(rows.Int(i, 0));
  for (const Label label : labels) {
    if (passed.erase(label) > 0) out.push_back(label);  // each once, in the given order
  }
  return out;
}

Result<std::vector<Label>> PostgresEntryStore::MatchingLabels(const EntryFilter& filter,
                                                              int limit) {
  std::vector<Label> out;
  if (limit <= 0) return out;
  const pg::PgStatement st = pg::MatchingLabelsStatement(filter, limit);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows, conn->ExecPrepared(st.sql, st.params, "list matching labels"));
  for (int i = 0; i < rows.size(); ++i) out.push_back(rows.Int(i, 0));
  return out;
}

}  // namespace mnemo::storage::internal

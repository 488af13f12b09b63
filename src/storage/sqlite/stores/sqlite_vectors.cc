// The vector half of the SQLite backend (entry_store.h, "Vectors") and its reads
// by label: tables entry_vectors and vector_changes of schema v2
// (migrations.cc, docs/storage.md).
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "storage/rules/entry_rules.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/entry_writes.h"
#include "storage/sqlite/stores/sqlite_entry_store.h"

namespace mnemo::storage::internal {
namespace {

// Vectors read per reader lease: memory stays flat however many there are.
constexpr int kForEachVectorPage = 1024;

static_assert(sizeof(float) == 4 && std::numeric_limits<float>::is_iec559,
              "vectors are stored as IEEE-754 float32");

}  // namespace

Status SqliteEntryStore::PutVectors(std::string_view signature,
                                    std::span<const LabeledVector> vectors) {
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  MNEMO_RETURN_IF_ERROR(PutVectorsLocked(*db_, signature, vectors));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  return txn.Commit();
}

Status SqliteEntryStore::ForEachVector(std::string_view signature,
                                       const std::function<Status(const LabeledVector&)>& fn) {
  Label after = 0;
  while (true) {
    // Pages by keyset, and `fn` runs with no connection held, so it may call
    // back into the backend (even with a pool of one reader).
    std::vector<LabeledVector> page;
    {
      ReaderLease db = db_->AcquireReader();
      MNEMO_ASSIGN_OR_RETURN(
          Statement s,
          db->Prepare("SELECT label, vector FROM entry_vectors WHERE signature = ? AND label > ? "
                      "ORDER BY label LIMIT " +
                          std::to_string(kForEachVectorPage),
                      "read vectors"));
      s.Bind(1, signature);
      s.Bind(2, after);
      while (true) {
        MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read vectors"));
        if (!row) break;
        page.push_back({s.ColumnInt(0), DecodeVector(s.ColumnBlob(1))});
      }
    }
    for (const LabeledVector& v : page) MNEMO_RETURN_IF_ERROR(fn(v));
    if (page.size() < static_cast<size_t>(kForEachVectorPage)) return Status::Ok();
    after = page.back().label;
  }
}

Result<std::vector<LabeledVector>> SqliteEntryStore::VectorsFor(std::string_view signature,
                                                                std::span<const Label> labels) {
  if (labels.empty()) return std::vector<LabeledVector>();
  const std::string json = LabelsJson(labels);
  std::unordered_map<Label, LabeledVector> found;
  {
    ReaderLease db = db_->AcquireReader();
    MNEMO_ASSIGN_OR_RETURN(
        Statement s, db->Prepare("SELECT label, vector FROM entry_vectors WHERE signature = ? "
                                 "AND label IN (SELECT value FROM json_each(?))",
                                 "read vectors"));
    s.Bind(1, signature);
    s.Bind(2, json);
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read vectors"));
      if (!row) break;
      const Label label = s.ColumnInt(0);
      found[label] = {label, DecodeVector(s.ColumnBlob(1))};
    }
  }
  return InLabelOrder(labels, found);
}

Result<std::vector<MissingVector>> SqliteEntryStore::MissingVectors(std::string_view signature,
                                                                    Label after_label, int limit) {
  std::vector<MissingVector> out;
  if (limit <= 0) return out;
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare("SELECT e.rowid, e.key, e.content FROM entries e WHERE e.rowid > ? AND NOT "
                  "EXISTS (SELECT 1 FROM entry_vectors v WHERE v.signature = ? AND "
                  "v.label = e.rowid) ORDER BY e.rowid LIMIT ?",
                  "find entries without vectors"));
  s.Bind(1, after_label);
  s.Bind(2, signature);
  s.Bind(3, static_cast<int64_t>(limit));
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("find entries without vectors"));
    if (!row) break;
    out.push_back({s.ColumnInt(0), std::string(s.ColumnText(1)), std::string(s.ColumnText(2))});
  }
  return out;
}

Result<int64_t> SqliteEntryStore::CountMissingVectors(std::string_view signature) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare("SELECT COUNT(*) FROM entries e WHERE NOT EXISTS (SELECT 1 FROM "
                               "entry_vectors v WHERE v.signature = ? AND v.label = e.rowid)",
                               "count entries without vectors"));
  s.Bind(1, signature);
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("count entries without vectors"));
  return row ? s.ColumnInt(0) : int64_t{0};
}

Result<int64_t> SqliteEntryStore::VectorWatermark(std::string_view signature) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare("SELECT seq FROM vector_changes WHERE signature = ? "
                                     "ORDER BY seq DESC LIMIT 1",
                                     "read the vector watermark"));
  s.Bind(1, signature);
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the vector watermark"));
  return row ? s.ColumnInt(0) : int64_t{0};
}

Result<int64_t> SqliteEntryStore::CountVectors(std::string_view signature) {
  ReaderLease db = db_->AcquireReader();
  // Counted on the primary key index (signature, label), not the rows.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare("SELECT count(*) FROM entry_vectors WHERE signature = ?", "count the vectors"));
  s.Bind(1, signature);
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("count the vectors"));
  return row ? s.ColumnInt(0) : int64_t{0};
}

Result<std::vector<VectorChange>> SqliteEntryStore::VectorChangesSince(std::string_view signature,
                                                                       int64_t seq, int limit) {
  std::vector<VectorChange> out;
  ReaderLease db = db_->AcquireReader();
  // One snapshot: the trim check and the changes must agree.
  MNEMO_ASSIGN_OR_RETURN(Transaction snapshot, Transaction::BeginRead(*db));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement oldest,
                           db->Prepare("SELECT seq, present FROM vector_changes WHERE "
                                       "signature = ? ORDER BY seq LIMIT 1",
                                       "read the oldest vector change"));
    oldest.Bind(1, signature);
    MNEMO_ASSIGN_OR_RETURN(bool row, oldest.Step("read the oldest vector change"));
    if (row && oldest.ColumnInt(1) == kTrimMarker && seq < oldest.ColumnInt(0)) {
      return TrimmedLogError(signature, seq, oldest.ColumnInt(0));
    }
  }
  if (limit <= 0) return out;
  // A put carries the label's current vector (a later put's, or none when it
  // was removed since): what a reader catching up needs, in fewer bytes.
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare("SELECT c.seq, c.label, v.vector FROM vector_changes c "
                  "LEFT JOIN entry_vectors v ON c.present = 1 AND v.signature = c.signature "
                  "AND v.label = c.label WHERE c.signature = ? AND c.seq > ? AND c.present >= 0 "
                  "ORDER BY c.seq LIMIT ?",
                  "read vector changes"));
  s.Bind(1, signature);
  s.Bind(2, seq);
  s.Bind(3, static_cast<int64_t>(limit));
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read vector changes"));
    if (!row) break;
    out.push_back(
        {.seq = s.ColumnInt(0),
         .label = s.ColumnInt(1),
         .vector = s.ColumnIsNull(2) ? std::vector<float>() : DecodeVector(s.ColumnBlob(2))});
  }
  return out;
}

Result<std::vector<KeywordHit>> SqliteEntryStore::FetchByLabels(
    std::span<const Label> labels, const EntryFilter& filter,
    const std::vector<std::string>& terms) {
  if (labels.empty()) return std::vector<KeywordHit>();
  const SqlFilter f = BuildFilter(filter);
  std::unordered_map<Label, KeywordHit> hits;
  ReaderLease db = db_->AcquireReader();
  // One snapshot: the scores are those of the entries read.
  MNEMO_ASSIGN_OR_RETURN(Transaction snapshot, Transaction::BeginRead(*db));
  {
    const std::string json = LabelsJson(labels);
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db->Prepare(std::string("SELECT e.rowid, ") + kEntryColumns +
                        " FROM entries e WHERE e.rowid IN (SELECT value FROM json_each(?)) AND " +
                        f.where,
                    "read entries by label"));
    s.Bind(1, json);
    BindFilter(s, f, 2);
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read entries by label"));
      if (!row) break;
      const Label label = s.ColumnInt(0);
      hits[label] = {.entry = ReadEntry(s, 1), .keyword_score = 0, .label = label};
    }
  }
  const std::vector<std::string> distinct = DistinctTerms(terms);
  if (!hits.empty() && !distinct.empty()) {
    std::vector<Label> passed;
    passed.reserve(hits.size());
    for (const auto& [label, hit] : hits) passed.push_back(label);
    const std::string json = LabelsJson(passed);
    const std::string match = MatchExpression(distinct);
    MNEMO_ASSIGN_OR_RETURN(ScoreStatsMemo* const memo, db.ValidMemo());
    MNEMO_ASSIGN_OR_RETURN(const std::string stats,
                           ScopeStats(*db, EntryFtsScope(filter.scope), distinct, memo));
    // The MATCH and mnemo_score of KeywordSearch, so the scores are the same.
    // `+rowid` keeps the label list away from FTS5: given it as a rowid
    // constraint, SQLite would run one FTS5 query (and recount every term's
    // documents) per label.
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db->Prepare("SELECT entries_fts.rowid, mnemo_score(entries_fts, e.doc_length, ?) FROM "
                    "entries_fts CROSS JOIN entries_search e ON e.rowid = entries_fts.rowid "
                    "WHERE entries_fts MATCH ? AND "
                    "+entries_fts.rowid IN (SELECT value FROM json_each(?))",
                    "score entries by label"));
    BindScopeStats(s, 1, stats);
    s.Bind(2, match);
    s.Bind(3, json);
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("score entries by label"));
      if (!row) break;
      auto it = hits.find(s.ColumnInt(0));
      if (it != hits.end()) it->second.keyword_score = s.ColumnDouble(1);
    }
  }
  return InLabelOrder(labels, hits);
}

namespace {

// The table and filter of a statement over the entries passing `filter`:
// the narrow entries_search rows when they can answer it (schema v13), a
// scan of 1.7 MB instead of 35 MB at 100k entries.
std::pair<std::string, SqlFilter> MatchingRows(const EntryFilter& filter) {
  if (std::optional<SqlFilter> narrow = BuildSearchFilter(filter)) {
    return {"entries_search e", std::move(*narrow)};
  }
  return {"entries e", BuildFilter(filter)};
}

}  // namespace

Result<std::vector<Label>> SqliteEntryStore::AcceptedLabels(std::span<const Label> labels,
                                                            const EntryFilter& filter) {
  std::vector<Label> out;
  if (labels.empty()) return out;
  const auto [table, f] = MatchingRows(filter);
  const std::string json = LabelsJson(labels);
  std::unordered_set<Label> passed;
  {
    ReaderLease db = db_->AcquireReader();
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db->Prepare("SELECT e.rowid FROM " + table +
                        " WHERE e.rowid IN (SELECT value FROM json_each(?)) AND " + f.where,
                    "filter entries by label"));
    s.Bind(1, json);
    BindFilter(s, f, 2);
    while (true) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("filter entries by label"));
      if (!row) break;
      passed.insert(s.ColumnInt(0));
    }
  }
  out.reserve(passed.size());
  for (Label label : labels) {
    if (passed.erase(label) > 0) out.push_back(label);  // a repeated label once
  }
  return out;
}

Result<std::vector<Label>> SqliteEntryStore::MatchingLabels(const EntryFilter& filter, int limit) {
  std::vector<Label> out;
  if (limit <= 0) return out;
  const auto [table, f] = MatchingRows(filter);
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare("SELECT e.rowid FROM " + table + " WHERE " +
                                                      f.where + " ORDER BY e.rowid LIMIT ?",
                                                  "list matching labels"));
  const int next = BindFilter(s, f, 1);
  s.Bind(next, static_cast<int64_t>(limit));
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("list matching labels"));
    if (!row) break;
    out.push_back(s.ColumnInt(0));
  }
  return out;
}

}  // namespace mnemo::storage::internal

namespace mnemo::storage::internal {

Result<std::vector<std::string>> SqliteEntryStore::VectorSignatures() {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare("SELECT DISTINCT signature FROM entry_vectors "
                                                  "ORDER BY signature",
                                                  "list the vector signatures"));
  return ReadAll<std::string>(s, "list the vector signatures",
                              [](const Statement& row) { return std::string(row.ColumnText(0)); });
}

}  // namespace mnemo::storage::internal

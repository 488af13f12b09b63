#include "storage/postgres/stores/postgres_entry_store.h"

#include <map>

#include "storage/postgres/sql/pg_entry_search.h"
#include "storage/postgres/sql/pg_entry_sql.h"
#include "storage/postgres/sql/pg_text.h"
#include "storage/rules/entry_rules.h"

namespace mnemo::storage::internal {
namespace {

using pg::Params;
using pg::PgConn;
using pg::Rows;

constexpr int kForEachPage = 256;
// From this many writes a batch is staged by COPY and merged set-wise
// (postgres_bulk_write.cc): its five round trips cost no more than two rows'
// statements, and the conformance suite's small batches then cover it.
constexpr size_t kBulkFrom = 2;

}  // namespace

PostgresEntryStore::PostgresEntryStore(std::shared_ptr<PostgresDatabase> db)
    : PostgresStore(std::move(db)) {}

// The statements of a store are prepared (ExecPrepared): planned once per
// connection instead of on every store (PostgresDatabase::Write).
Result<UpsertResult> PostgresEntryStore::UpsertIn(PgConn& conn, const EntryWrite& write) {
  MNEMO_RETURN_IF_ERROR(ValidateWrite(write));
  std::optional<Entry> existing;
  Label label = 0;
  int64_t old_length = 0;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Rows found,
        conn.ExecPrepared(std::string("SELECT e.label, e.doc_length, ") + pg::kEntryColumns +
                              " FROM entries e WHERE e.owner = $1 AND e.namespace = $2 AND "
                              "e.key = $3",
                          Params().Add(write.owner).Add(write.ns).Add(write.key),
                          "look up the entry"));
    if (!found.empty()) {
      label = found.Int(0, 0);
      old_length = found.Int(0, 1);
      existing = pg::ReadEntry(found, 0, 2);
    }
  }
  Entry e = MergeWrite(write, existing);
  const bool text_changed = !existing || existing->content != e.content;
  Params p;
  p.Add(e.id)
      .Add(e.owner)
      .Add(e.ns)
      .Add(e.key)
      .Add(e.content)
      .Add(e.category)
      .AddTextArray(e.tags)
      .Add(VisibilityName(e.visibility))
      .Add(e.created_at)
      .Add(e.updated_at)
      .Add(e.access_count)
      .Add(e.useful_count)
      .Add(e.archived)
      .Add(write.fingerprint);
  if (!existing) {
    pg::IndexedText text = pg::IndexText({e.key, e.content});
    p.Add(text.length).Add(pg::TsvectorLiteral(text));
    MNEMO_ASSIGN_OR_RETURN(
        Rows inserted,
        conn.ExecPrepared(
            "INSERT INTO entries (label, id, owner, namespace, key, content, category, "
            "tags, visibility, created_at, updated_at, access_count, useful_count, "
            "archived, fingerprint, doc_length, tsv) VALUES (nextval('labels'), $1, $2, "
            "$3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16::tsvector) "
            "RETURNING label",
            p, "insert the entry"));
    label = inserted.Int(0, 0);
    MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "entries", 1, text.length));
  } else if (text_changed) {
    pg::IndexedText text = pg::IndexText({e.key, e.content});
    p.Add(text.length).Add(pg::TsvectorLiteral(text)).Add(label);
    MNEMO_RETURN_IF_ERROR(
        conn.ExecPrepared(
                "UPDATE entries SET id = $1, content = $5, category = $6, tags = $7, "
                "visibility = $8, created_at = $9, updated_at = $10, access_count = $11, "
                "useful_count = $12, archived = $13, fingerprint = $14, doc_length = $15, "
                "tsv = $16::tsvector WHERE label = $17 AND owner = $2 AND namespace = $3 AND "
                "key = $4",
                p, "update the entry")
            .status());
    MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "entries", 0, text.length - old_length));
    MNEMO_RETURN_IF_ERROR(db_->DropVectorsIn(conn, label));
  } else {
    p.Add(label);
    MNEMO_RETURN_IF_ERROR(
        conn.ExecPrepared(
                "UPDATE entries SET id = $1, content = $5, category = $6, tags = $7, "
                "visibility = $8, created_at = $9, updated_at = $10, access_count = $11, "
                "useful_count = $12, archived = $13, fingerprint = $14 WHERE label = $15 AND "
                "owner = $2 AND namespace = $3 AND key = $4",
                p, "update the entry")
            .status());
  }
  if (text_changed) MNEMO_RETURN_IF_ERROR(db_->PutWriteVectorsIn(conn, label, write.vectors));
  return UpsertResult{.entry = std::move(e),
                      .created = !existing.has_value(),
                      .label = label,
                      .text_changed = text_changed};
}

Result<UpsertResult> PostgresEntryStore::Upsert(const EntryWrite& write) {
  UpsertResult result;
  MNEMO_RETURN_IF_ERROR(Write("store the entry", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(result, UpsertIn(conn, write));
    return Status::Ok();
  }));
  return result;
}

Result<int64_t> PostgresEntryStore::UpsertBatch(std::span<const EntryWrite> writes,
                                                std::vector<Label>* labels) {
  int64_t created = 0;
  std::vector<Label> out;
  MNEMO_RETURN_IF_ERROR(Write("store the entries", [&](PgConn& conn) -> Status {
    created = 0;
    out.clear();
    if (writes.size() >= kBulkFrom) {
      MNEMO_ASSIGN_OR_RETURN(created, db_->UpsertManyIn(conn, writes, &out));
      return Status::Ok();
    }
    for (const EntryWrite& write : writes) {
      MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertIn(conn, write));
      if (result.created) ++created;
      out.push_back(result.label);
    }
    return Status::Ok();
  }));
  if (labels != nullptr) labels->insert(labels->end(), out.begin(), out.end());
  return created;
}

Result<std::vector<UpsertResult>> PostgresEntryStore::Mutate(const EntryGroup& group,
                                                             const MutateFn& decide) {
  std::vector<UpsertResult> results;
  MNEMO_RETURN_IF_ERROR(Write("change the entries", [&](PgConn& conn) -> Status {
    results.clear();
    Params p;
    p.Add(group.owner).Add(group.ns).Add(group.key).Add(group.fingerprint);
    MNEMO_ASSIGN_OR_RETURN(
        Rows rows, conn.Exec(std::string("SELECT ") + pg::kEntryColumns +
                                 " FROM entries e WHERE e.owner = $1 AND e.namespace = $2 AND "
                                 "($3::text IS NULL OR e.key = $3) AND ($4::text IS NULL OR "
                                 "e.fingerprint = $4 OR e.fingerprint IS NULL) ORDER BY e.key",
                             p, "read the group"));
    std::vector<Entry> current;
    current.reserve(static_cast<size_t>(rows.size()));
    for (int i = 0; i < rows.size(); ++i) current.push_back(pg::ReadEntry(rows, i));
    MNEMO_ASSIGN_OR_RETURN(std::vector<EntryWrite> writes, decide(current));
    for (const EntryWrite& write : writes) {
      MNEMO_RETURN_IF_ERROR(ValidateGroupWrite(group, write));
      MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertIn(conn, write));
      results.push_back(std::move(result));
    }
    return Status::Ok();
  }));
  return results;
}

Result<std::optional<Entry>> PostgresEntryStore::FindExact(std::string_view owner,
                                                           const Namespace& ns, const Key& key) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows, conn->Exec(std::string("SELECT ") + pg::kEntryColumns +
                                " FROM entries e WHERE e.owner = $1 AND e.namespace = $2 AND "
                                "e.key = $3",
                            Params().Add(owner).Add(ns.view()).Add(key.view()), "find the entry"));
  if (rows.empty()) return std::optional<Entry>();
  return std::optional<Entry>(pg::ReadEntry(rows, 0));
}

Result<std::optional<Entry>> PostgresEntryStore::Resolve(const Namespace& ns, const Key& key,
                                                         const ReadScope& scope) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + pg::kEntryColumns +
                     " FROM entries e WHERE e.namespace = $1 AND e.key = $2 AND "
                     "($3 OR e.owner = $4 OR e.visibility = 'public') "
                     "ORDER BY e.owner = $4 DESC, e.updated_at DESC, e.owner LIMIT 1",
                 Params().Add(ns.view()).Add(key.view()).Add(scope.all).Add(scope.principal),
                 "resolve the key"));
  if (rows.empty()) return std::optional<Entry>();
  return std::optional<Entry>(pg::ReadEntry(rows, 0));
}

Status PostgresEntryStore::DropEntryIn(PgConn& conn, Label label, int64_t doc_length) {
  MNEMO_RETURN_IF_ERROR(
      conn.Exec("DELETE FROM entries WHERE label = $1", Params().Add(label), "delete the entry")
          .status());
  MNEMO_RETURN_IF_ERROR(pg::AddTextStats(conn, "entries", -1, -doc_length));
  return db_->DropVectorsIn(conn, label);
}

Result<bool> PostgresEntryStore::Delete(std::string_view id) {
  bool deleted = false;
  MNEMO_RETURN_IF_ERROR(Write("delete the entry", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(Rows found,
                           conn.Exec("SELECT label, doc_length FROM entries WHERE id = $1",
                                     Params().Add(id), "find the entry"));
    deleted = !found.empty();
    if (!deleted) return Status::Ok();
    return DropEntryIn(conn, found.Int(0, 0), found.Int(0, 1));
  }));
  return deleted;
}

Result<HygieneCounts> PostgresEntryStore::ApplyHygiene(std::span<const std::string> ids,
                                                       const HygieneFn& decide) {
  HygieneCounts counts;
  MNEMO_RETURN_IF_ERROR(Write("apply hygiene", [&](PgConn& conn) -> Status {
    counts = {};
    for (const std::string& id : ids) {
      MNEMO_ASSIGN_OR_RETURN(
          Rows found, conn.Exec(std::string("SELECT e.label, e.doc_length, ") + pg::kEntryColumns +
                                    " FROM entries e WHERE e.id = $1",
                                Params().Add(id), "find the entry"));
      if (found.empty()) continue;
      const Label label = found.Int(0, 0);
      const Entry e = pg::ReadEntry(found, 0, 2);
      switch (decide(e)) {
        case HygieneAction::kKeep: break;
        case HygieneAction::kArchive:
          if (e.archived) break;
          MNEMO_RETURN_IF_ERROR(conn.Exec("UPDATE entries SET archived = true WHERE label = $1",
                                          Params().Add(label), "archive the entry")
                                    .status());
          ++counts.archived;
          break;
        case HygieneAction::kDelete:
          MNEMO_RETURN_IF_ERROR(DropEntryIn(conn, label, found.Int(0, 1)));
          ++counts.deleted;
          break;
      }
    }
    return Status::Ok();
  }));
  return counts;
}

Result<std::optional<TimeMs>> PostgresEntryStore::LastHygieneRun() {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows last,
                         conn->Exec("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                                    "read the last hygiene run"));
  if (last.empty()) return std::optional<TimeMs>();
  return std::optional<TimeMs>(last.Int(0, 0));
}

Result<bool> PostgresEntryStore::ClaimHygieneRun(TimeMs now, TimeMs interval) {
  {
    MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
    MNEMO_ASSIGN_OR_RETURN(
        Rows last, conn->Exec("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                              "read the last hygiene run"));
    if (!last.empty() && now - last.Int(0, 0) < interval) return false;
  }
  bool claimed = false;
  MNEMO_RETURN_IF_ERROR(Write("record the hygiene run", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Rows last, conn.Exec("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                             "read the last hygiene run"));
    claimed = last.empty() || now - last.Int(0, 0) >= interval;
    if (!claimed) return Status::Ok();
    return conn
        .Exec(
            "INSERT INTO generations (name, value) VALUES ('hygiene_last_run', $1) "
            "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
            Params().Add(now), "record the hygiene run")
        .status();
  }));
  return claimed;
}

Result<std::optional<Entry>> PostgresEntryStore::AddCounters(std::string_view id,
                                                             int64_t access_delta,
                                                             int64_t useful_delta) {
  std::optional<Entry> out;
  MNEMO_RETURN_IF_ERROR(Write("update the counters", [&](PgConn& conn) -> Status {
    MNEMO_ASSIGN_OR_RETURN(
        Rows rows,
        conn.Exec(std::string("UPDATE entries e SET access_count = access_count + $1, "
                              "useful_count = useful_count + $2 WHERE id = $3 RETURNING ") +
                      pg::kEntryColumns,
                  Params().Add(access_delta).Add(useful_delta).Add(id), "update the counters"));
    out = rows.empty() ? std::nullopt : std::optional<Entry>(pg::ReadEntry(rows, 0));
    return Status::Ok();
  }));
  return out;
}

Result<std::vector<Entry>> PostgresEntryStore::List(const EntryFilter& filter, int limit,
                                                    int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (limit <= 0) return std::vector<Entry>();
  Params p;
  const std::string where = pg::FilterSql(filter, p);
  p.Add(static_cast<int64_t>(limit)).Add(offset);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec(std::string("SELECT ") + pg::kEntryColumns + " FROM entries e WHERE " + where +
                     " ORDER BY e.updated_at DESC, e.key, e.owner, e.namespace LIMIT $" +
                     std::to_string(p.size() - 1) + " OFFSET $" + std::to_string(p.size()),
                 p, "list entries"));
  std::vector<Entry> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.push_back(pg::ReadEntry(rows, i));
  return out;
}

Result<std::vector<KeywordHit>> PostgresEntryStore::KeywordSearch(const KeywordQuery& query) {
  KeywordQuery distinct = query;
  distinct.terms = DistinctTerms(query.terms);
  if (distinct.terms.empty() || query.limit <= 0) return std::vector<KeywordHit>();
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  if (pg::NodeKeywords* node = db_->node_keywords()) {
    MNEMO_ASSIGN_OR_RETURN(std::optional<std::vector<KeywordHit>> hits,
                           node->Search(*conn, distinct));
    if (hits) return std::move(*hits);
  }
  bool pruned = false;
  MNEMO_ASSIGN_OR_RETURN(std::vector<KeywordHit> hits,
                         pg::SearchEntries(*conn, distinct, &db_->keyword_stats(), &pruned));
  if (pruned) ++pruned_searches_;
  return hits;
}

Result<Stats> PostgresEntryStore::GetStats(const ReadScope& scope) {
  Params p;
  const std::string where = "true" + pg::ScopeSql(scope, p);
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec("SELECT e.category, e.namespace, count(*), "
                                    "count(*) FILTER (WHERE e.archived) FROM entries e WHERE " +
                                        where + " GROUP BY e.category, e.namespace",
                                    p, "count entries"));
  Stats stats;
  std::map<std::string, int64_t> by_category;
  std::map<std::string, int64_t> by_namespace;
  for (int i = 0; i < rows.size(); ++i) {
    const int64_t count = rows.Int(i, 2);
    stats.entries += count;
    stats.archived += rows.Int(i, 3);
    by_category[std::string(rows.Text(i, 0))] += count;
    by_namespace[std::string(rows.Text(i, 1))] += count;
  }
  stats.by_category.assign(by_category.begin(), by_category.end());
  stats.by_namespace.assign(by_namespace.begin(), by_namespace.end());
  stats.backend = "postgres";
  stats.schema_version = db_->schema_version();
  return stats;
}

Result<int64_t> PostgresEntryStore::Generation(Counter which) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(
      Rows rows,
      conn->Exec("SELECT value FROM generations WHERE name = $1",
                 Params().Add(which == Counter::kToolRules ? "tool_rules" : "tool_registry"),
                 "read a generation counter"));
  return rows.empty() ? 0 : rows.Int(0, 0);
}

Status PostgresEntryStore::ForEach(const ReadScope& scope, std::string_view ns_prefix,
                                   const std::function<Status(const Entry&)>& fn) {
  std::optional<Entry> last;
  while (true) {
    // Pages by keyset; `fn` runs with no connection held, so it may call
    // back into the backend.
    std::vector<Entry> page;
    {
      Params p;
      std::string where = "true" + pg::ScopeSql(scope, p);
      if (!ns_prefix.empty()) {
        p.Add(ns_prefix);
        where += " AND left(e.namespace, length(" + pg::Last(p) + ")) = " + pg::Last(p);
      }
      if (last) {
        p.Add(last->ns);
        const std::string ns = pg::Last(p);
        p.Add(last->key);
        const std::string key = pg::Last(p);
        p.Add(last->owner);
        where +=
            " AND (e.namespace, e.key, e.owner) > (" + ns + ", " + key + ", " + pg::Last(p) + ")";
      }
      MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
      MNEMO_ASSIGN_OR_RETURN(
          Rows rows,
          conn->Exec(std::string("SELECT ") + pg::kEntryColumns + " FROM entries e WHERE " + where +
                         " ORDER BY e.namespace, e.key, e.owner LIMIT " +
                         std::to_string(kForEachPage),
                     p, "read entries"));
      for (int i = 0; i < rows.size(); ++i) page.push_back(pg::ReadEntry(rows, i));
    }
    for (const Entry& e : page) MNEMO_RETURN_IF_ERROR(fn(e));
    if (page.size() < static_cast<size_t>(kForEachPage)) return Status::Ok();
    last = page.back();
  }
}

Result<std::vector<std::string>> PostgresEntryStore::VectorSignatures() {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec("SELECT DISTINCT signature FROM entry_vectors ORDER BY "
                                    "signature",
                                    "list the vector signatures"));
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) out.emplace_back(rows.Text(i, 0));
  return out;
}

}  // namespace mnemo::storage::internal

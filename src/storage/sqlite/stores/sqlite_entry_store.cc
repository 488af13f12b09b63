// The SQLite entry store: the entries table with its keyword index
// entries_fts, and the hygiene and generation counters (table
// generations). Keyword search: sqlite_keyword_search.cc; vectors and reads
// by label: sqlite_vectors.cc.
#include "storage/sqlite/stores/sqlite_entry_store.h"

#include <algorithm>
#include <map>

#include "storage/rules/entry_rules.h"
#include "storage/sqlite/fts/entry_tokens.h"
#include "storage/sqlite/fts/fts_rows.h"
#include "storage/sqlite/rows/entry_sql.h"
#include "storage/sqlite/rows/entry_writes.h"

namespace mnemo::storage::internal {
namespace {

constexpr int kForEachPage = 256;

}  // namespace

SqliteEntryStore::SqliteEntryStore(std::shared_ptr<SqliteDatabase> db) : db_(std::move(db)) {}

Result<UpsertResult> SqliteEntryStore::Upsert(const EntryWrite& write) {
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertEntryLocked(*db_, write));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return result;
}

Result<int64_t> SqliteEntryStore::UpsertBatch(std::span<const EntryWrite> writes,
                                              std::vector<Label>* labels) {
  EntryTokenPipeline tokens(writes);  // before the lock: see entry_tokens.h
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  MNEMO_ASSIGN_OR_RETURN(const int64_t created, WriteEntriesLocked(*db_, writes, tokens, labels));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return created;
}

Result<std::vector<UpsertResult>> SqliteEntryStore::Mutate(const EntryGroup& group,
                                                           const MutateFn& decide) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  std::vector<Entry> current;
  {
    // A fingerprint (without a key) is two seeks of entries_by_fingerprint:
    // that fingerprint, then none. Left to itself the planner walks the
    // whole group in the (owner, namespace, key) index.
    const std::string cols = std::string("SELECT ") + kEntryColumns +
                             " FROM entries e INDEXED BY entries_by_fingerprint WHERE "
                             "e.owner = ?1 AND e.namespace = ?2 AND ";
    const std::string sql =
        group.fingerprint && !group.key
            ? cols + "e.fingerprint = ?4 UNION ALL " + cols +
                  "e.fingerprint IS NULL AND ?3 IS NULL ORDER BY key"
            : std::string("SELECT ") + kEntryColumns +
                  " FROM entries e WHERE e.owner = ?1 AND e.namespace = ?2 AND "
                  "(?3 IS NULL OR e.key = ?3) AND (?4 IS NULL OR e.fingerprint = ?4 OR "
                  "e.fingerprint IS NULL) ORDER BY e.key";
    MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, "read the group"));
    s.Bind(1, group.owner);
    s.Bind(2, group.ns);
    if (group.key) {
      s.Bind(3, *group.key);
    } else {
      s.BindNull(3);
    }
    if (group.fingerprint) {
      s.Bind(4, *group.fingerprint);
    } else {
      s.BindNull(4);
    }
    for (;;) {
      MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read the group"));
      if (!row) break;
      current.push_back(ReadEntry(s));
    }
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<EntryWrite> writes, decide(current));
  std::vector<UpsertResult> results;
  for (const EntryWrite& write : writes) {
    MNEMO_RETURN_IF_ERROR(ValidateGroupWrite(group, write));
    MNEMO_ASSIGN_OR_RETURN(UpsertResult result, UpsertEntryLocked(*db_, write));
    results.push_back(std::move(result));
  }
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return results;
}

Result<std::optional<Entry>> SqliteEntryStore::FindExact(std::string_view owner,
                                                         const Namespace& ns, const Key& key) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kEntryColumns +
                      " FROM entries e WHERE e.owner = ? AND e.namespace = ? AND e.key = ?",
                  "find the entry"));
  s.Bind(1, owner);
  s.Bind(2, ns.view());
  s.Bind(3, key.view());
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("find the entry"));
  if (!found) return std::optional<Entry>();
  return std::optional<Entry>(ReadEntry(s));
}

Result<std::optional<Entry>> SqliteEntryStore::Resolve(const Namespace& ns, const Key& key,
                                                       const ReadScope& scope) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s, db->Prepare(std::string("SELECT ") + kEntryColumns +
                                   " FROM entries e WHERE e.namespace = ?1 AND e.key = ?2 AND "
                                   "(?3 OR e.owner = ?4 OR e.visibility = 'public') "
                                   "ORDER BY e.owner = ?4 DESC, e.updated_at DESC, e.owner LIMIT 1",
                               "resolve the key"));
  s.Bind(1, ns.view());
  s.Bind(2, key.view());
  s.Bind(3, static_cast<int64_t>(scope.all ? 1 : 0));
  s.Bind(4, scope.principal);
  MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("resolve the key"));
  if (!found) return std::optional<Entry>();
  return std::optional<Entry>(ReadEntry(s));
}

Result<bool> SqliteEntryStore::Delete(std::string_view id) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  int64_t rowid = 0;
  std::string key;
  std::string content;
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement find,
        db.Prepare("SELECT rowid, key, content FROM entries WHERE id = ?", "find the entry"));
    find.Bind(1, id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the entry"));
    if (!found) return false;
    rowid = find.ColumnInt(0);
    key = find.ColumnText(1);
    content = find.ColumnText(2);
  }
  MNEMO_RETURN_IF_ERROR(DropEntryLocked(*db_, rowid, key, content));
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Status SqliteEntryStore::CompactEntryIndex() {
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db_->writer()));
  MNEMO_RETURN_IF_ERROR(OptimizeFtsTable(db_->writer(), "entries_fts"));
  return txn.Commit();
}

Result<HygieneCounts> SqliteEntryStore::ApplyHygiene(std::span<const std::string> ids,
                                                     const HygieneFn& decide) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  HygieneCounts counts;
  for (const std::string& id : ids) {
    int64_t rowid = 0;
    Entry e;
    {
      MNEMO_ASSIGN_OR_RETURN(Statement find,
                             db.Prepare(std::string("SELECT e.rowid, ") + kEntryColumns +
                                            " FROM entries e WHERE e.id = ?",
                                        "find the entry"));
      find.Bind(1, id);
      MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the entry"));
      if (!found) continue;
      rowid = find.ColumnInt(0);
      e = ReadEntry(find, 1);
    }
    switch (decide(e)) {
      case HygieneAction::kKeep: break;
      case HygieneAction::kArchive: {
        if (e.archived) break;
        MNEMO_ASSIGN_OR_RETURN(
            Statement archive,
            db.Prepare("UPDATE entries SET archived = 1 WHERE rowid = ?", "archive the entry"));
        archive.Bind(1, rowid);
        MNEMO_RETURN_IF_ERROR(archive.Run("archive the entry"));
        ++counts.archived;
        break;
      }
      case HygieneAction::kDelete:
        MNEMO_RETURN_IF_ERROR(DropEntryLocked(*db_, rowid, e.key, e.content));
        ++counts.deleted;
        break;
    }
  }
  MNEMO_RETURN_IF_ERROR(TrimVectorLogLocked(*db_));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return counts;
}

Result<std::optional<TimeMs>> SqliteEntryStore::LastHygieneRun() {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement last, db->Prepare("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                                  "read the last hygiene run"));
  MNEMO_ASSIGN_OR_RETURN(bool found, last.Step("read the last hygiene run"));
  return found ? std::optional<TimeMs>(last.ColumnInt(0)) : std::nullopt;
}

Result<bool> SqliteEntryStore::ClaimHygieneRun(TimeMs now, TimeMs interval) {
  // Every engine open asks; a reader answers "not due" without taking the
  // write lock, and the claim itself is re-checked inside the write.
  MNEMO_ASSIGN_OR_RETURN(std::optional<TimeMs> last, LastHygieneRun());
  if (last && now - *last < interval) return false;
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement last, db.Prepare("SELECT value FROM generations WHERE name = 'hygiene_last_run'",
                                   "read the last hygiene run"));
    MNEMO_ASSIGN_OR_RETURN(bool found, last.Step("read the last hygiene run"));
    if (found && now - last.ColumnInt(0) < interval) return false;
  }
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db.Prepare("INSERT INTO generations (name, value) VALUES ('hygiene_last_run', ?1) "
                 "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
                 "record the hygiene run"));
  put.Bind(1, now);
  MNEMO_RETURN_IF_ERROR(put.Run("record the hygiene run"));
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return true;
}

Result<std::optional<Entry>> SqliteEntryStore::AddCounters(std::string_view id,
                                                           int64_t access_delta,
                                                           int64_t useful_delta) {
  std::lock_guard lock(db_->writer_mu());
  Connection& db = db_->writer();
  MNEMO_ASSIGN_OR_RETURN(Transaction txn, Transaction::Begin(db));
  {
    MNEMO_ASSIGN_OR_RETURN(Statement add,
                           db.Prepare("UPDATE entries SET access_count = access_count + ?, "
                                      "useful_count = useful_count + ? WHERE id = ?",
                                      "update the counters"));
    add.Bind(1, access_delta);
    add.Bind(2, useful_delta);
    add.Bind(3, id);
    MNEMO_RETURN_IF_ERROR(add.Run("update the counters"));
  }
  if (sqlite3_changes(db.handle()) == 0) return std::optional<Entry>();
  MNEMO_ASSIGN_OR_RETURN(Statement read, db.Prepare(std::string("SELECT ") + kEntryColumns +
                                                        " FROM entries e WHERE e.id = ?",
                                                    "read the entry"));
  read.Bind(1, id);
  MNEMO_ASSIGN_OR_RETURN(bool found, read.Step("read the entry"));
  if (!found) return Internal("an entry vanished while its counters were updated");
  Entry e = ReadEntry(read);
  MNEMO_RETURN_IF_ERROR(txn.Commit());
  return std::optional<Entry>(std::move(e));
}

Result<std::vector<Entry>> SqliteEntryStore::List(const EntryFilter& filter, int limit,
                                                  int64_t offset) {
  if (offset < 0) return InvalidArgument("offset must be >= 0", "offset");
  if (limit <= 0) return std::vector<Entry>();
  const SqlFilter f = BuildFilter(filter);
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare(std::string("SELECT ") + kEntryColumns + " FROM entries e WHERE " + f.where +
                      " ORDER BY e.updated_at DESC, e.key, e.owner, e.namespace LIMIT ? OFFSET ?",
                  "list entries"));
  const int next = BindFilter(s, f, 1);
  s.Bind(next, static_cast<int64_t>(limit));
  s.Bind(next + 1, offset);
  std::vector<Entry> out;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("list entries"));
    if (!row) break;
    out.push_back(ReadEntry(s));
  }
  return out;
}

Result<Stats> SqliteEntryStore::GetStats(const ReadScope& scope) {
  SqlFilter f{"1", {}};
  AddScope(scope, f);
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(
      Statement s,
      db->Prepare("SELECT e.category, e.namespace, COUNT(*), SUM(e.archived) FROM entries e "
                  "WHERE " +
                      f.where + " GROUP BY e.category, e.namespace",
                  "count entries"));
  BindFilter(s, f, 1);
  Stats stats;
  std::map<std::string, int64_t> by_category;
  std::map<std::string, int64_t> by_namespace;
  while (true) {
    MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("count entries"));
    if (!row) break;
    const int64_t count = s.ColumnInt(2);
    stats.entries += count;
    stats.archived += s.ColumnInt(3);
    by_category[std::string(s.ColumnText(0))] += count;
    by_namespace[std::string(s.ColumnText(1))] += count;
  }
  stats.by_category.assign(by_category.begin(), by_category.end());
  stats.by_namespace.assign(by_namespace.begin(), by_namespace.end());
  stats.backend = "sqlite";
  stats.schema_version = db_->schema_version();
  return stats;
}

Result<int64_t> SqliteEntryStore::Generation(Counter which) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare("SELECT value FROM generations WHERE name = ?",
                                                  "read a generation counter"));
  s.Bind(1, std::string_view(which == Counter::kToolRules ? "tool_rules" : "tool_registry"));
  MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read a generation counter"));
  return row ? s.ColumnInt(0) : 0;
}

Status SqliteEntryStore::ForEach(const ReadScope& scope, std::string_view ns_prefix,
                                 const std::function<Status(const Entry&)>& fn) {
  SqlFilter f{"1", {}};
  AddScope(scope, f);
  // A prefix is the range [prefix, prefix+1) of the (namespace, key, owner)
  // index. Later pages start after the last row by row value alone, which
  // SQLite also seeks in that index (a second lower bound would make it
  // scan from the prefix again on every page).
  std::optional<std::string> lower;
  if (!ns_prefix.empty()) {
    std::string upper(ns_prefix);
    while (!upper.empty() && static_cast<unsigned char>(upper.back()) == 0xFF) upper.pop_back();
    if (!upper.empty()) {
      upper.back() = static_cast<char>(static_cast<unsigned char>(upper.back()) + 1);
      f.where += " AND e.namespace < ?";
      f.params.push_back(upper);
    }
    lower = std::string(ns_prefix);
  }
  const std::string order =
      " ORDER BY e.namespace, e.key, e.owner LIMIT " + std::to_string(kForEachPage);
  const std::string select = std::string("SELECT ") + kEntryColumns + " FROM entries e WHERE ";
  const std::string first_sql = select + f.where + (lower ? " AND e.namespace >= ?" : "") + order;
  const std::string next_sql =
      select + f.where + " AND (e.namespace, e.key, e.owner) > (?, ?, ?)" + order;
  std::optional<Entry> last;
  while (true) {
    // Pages by keyset, and `fn` runs with no connection held, so it may call
    // back into the backend (even with a pool of one reader).
    std::vector<Entry> page;
    {
      ReaderLease db = db_->AcquireReader();
      MNEMO_ASSIGN_OR_RETURN(Statement s, db->Prepare(last ? next_sql : first_sql, "read entries"));
      const int next = BindFilter(s, f, 1);
      if (last) {
        s.Bind(next, last->ns);
        s.Bind(next + 1, last->key);
        s.Bind(next + 2, last->owner);
      } else if (lower) {
        s.Bind(next, *lower);
      }
      while (true) {
        MNEMO_ASSIGN_OR_RETURN(bool row, s.Step("read entries"));
        if (!row) break;
        page.push_back(ReadEntry(s));
      }
    }
    for (const Entry& e : page) MNEMO_RETURN_IF_ERROR(fn(e));
    if (page.size() < static_cast<size_t>(kForEachPage)) return Status::Ok();
    last = page.back();
  }
}

}  // namespace mnemo::storage::internal

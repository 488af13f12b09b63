#include "storage/sqlite/rows/entry_bulk.h"

#include <array>

#include "storage/sqlite/fts/fts_rows.h"

namespace mnemo::storage::internal {
namespace {

// The triggers run on each new row: entries_search_insert (v13) with the
// entry_owners_add it fires in turn, and the tool generations (v3, v9).
constexpr std::array<const char*, 4> kInsertTriggers = {"entries_search_insert", "entry_owners_add",
                                                        "entries_tool_rules_insert",
                                                        "entries_tool_registry_insert"};

// What those triggers do, set-wise over the rows at or above ?1 in row id
// order (the order they were inserted in, so new owners take the ids the
// triggers would have given them).
constexpr const char* kCatchUp[] = {
    "INSERT OR IGNORE INTO entry_owners (owner) SELECT owner FROM entries WHERE rowid >= ?1 "
    "ORDER BY rowid",
    "INSERT INTO entries_search (rowid, doc_length, updated_at, owner_id, flags) "
    "SELECT e.rowid, e.doc_length, e.updated_at, o.id, "
    "e.archived | (CASE WHEN e.visibility = 'public' THEN 2 ELSE 0 END) "
    "| (CASE WHEN mnemo_system_namespace(e.namespace) THEN 4 ELSE 0 END) "
    "FROM entries e JOIN entry_owners o ON o.owner = e.owner WHERE e.rowid >= ?1 "
    "ORDER BY e.rowid",
    "UPDATE entry_owners SET entries = entries + a.n, tokens = tokens + a.t, "
    "public_entries = public_entries + a.pn, public_tokens = public_tokens + a.pt "
    "FROM (SELECT owner_id, count(*) AS n, sum(doc_length) AS t, sum(flags & 2 <> 0) AS pn, "
    "sum(CASE WHEN flags & 2 <> 0 THEN doc_length ELSE 0 END) AS pt "
    "FROM entries_search WHERE rowid >= ?1 GROUP BY owner_id) a "
    "WHERE entry_owners.id = a.owner_id",
    "UPDATE generations SET value = value + (SELECT count(*) FROM entries WHERE rowid >= ?1 "
    "AND substr(namespace, 1, 5) = 'tool-') WHERE name = 'tool_rules'",
    "UPDATE generations SET value = value + (SELECT count(*) FROM entries WHERE rowid >= ?1 "
    "AND namespace = 'tool_registry') WHERE name = 'tool_registry'",
};

}  // namespace

Result<SuspendedInsertTriggers> SuspendedInsertTriggers::Begin(Connection& db) {
  std::vector<std::string> create;
  for (const char* name : kInsertTriggers) {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s, db.Prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?",
                                "read a trigger's definition"));
    s.Bind(1, std::string_view(name));
    MNEMO_ASSIGN_OR_RETURN(bool found, s.Step("read a trigger's definition"));
    if (!found) {
      return Internal(std::string("the database has no trigger ") + name +
                      " (a schema older than its migrations?)");
    }
    create.emplace_back(s.ColumnText(0));
  }
  for (const char* name : kInsertTriggers) {
    const std::string drop = std::string("DROP TRIGGER ") + name;
    MNEMO_RETURN_IF_ERROR(db.Exec(drop.c_str(), "suspend the insert triggers"));
  }
  MNEMO_ASSIGN_OR_RETURN(const Label first_new, NextRowid(db, "entries"));
  return SuspendedInsertTriggers(std::move(create), first_new);
}

Status SuspendedInsertTriggers::Finish(Connection& db) {
  for (const char* sql : kCatchUp) {
    MNEMO_ASSIGN_OR_RETURN(Statement s, db.Prepare(sql, "index the batch's new rows"));
    s.Bind(1, first_new_);
    MNEMO_RETURN_IF_ERROR(s.Run("index the batch's new rows"));
  }
  for (const std::string& sql : create_) {
    MNEMO_RETURN_IF_ERROR(db.Exec(sql.c_str(), "restore the insert triggers"));
  }
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

#include "storage/postgres/sql/pg_entry_sql.h"

namespace mnemo::storage::internal::pg {

Entry ReadEntry(const Rows& rows, int row, int first) {
  Entry e;
  e.id = rows.Text(row, first + 0);
  e.owner = rows.Text(row, first + 1);
  e.ns = rows.Text(row, first + 2);
  e.key = rows.Text(row, first + 3);
  e.content = rows.Text(row, first + 4);
  e.category = rows.Text(row, first + 5);
  e.tags = rows.TextArray(row, first + 6);
  e.visibility = rows.Text(row, first + 7) == "public" ? Visibility::kPublic : Visibility::kPrivate;
  e.created_at = rows.Int(row, first + 8);
  e.updated_at = rows.Int(row, first + 9);
  e.access_count = rows.Int(row, first + 10);
  e.useful_count = rows.Int(row, first + 11);
  e.archived = rows.Bool(row, first + 12);
  return e;
}

std::string Last(const Params& params) { return "$" + std::to_string(params.size()); }

std::string ScopeSql(const ReadScope& scope, Params& params) {
  if (scope.all) return "";
  params.Add(scope.principal);
  return " AND (e.owner = " + Last(params) + " OR e.visibility = 'public')";
}

std::string FilterSql(const EntryFilter& filter, Params& params) {
  std::string where = "true" + ScopeSql(filter.scope, params);
  if (!filter.include_archived) where += " AND NOT e.archived";
  if (filter.category) {
    params.Add(*filter.category);
    where += " AND e.category = " + Last(params);
  }
  if (filter.ns) {
    params.Add(*filter.ns);
    where += " AND e.namespace = " + Last(params);
  } else {
    // left(), not LIKE: no pattern characters to escape, and case-sensitive.
    where +=
        " AND left(e.namespace, 5) <> 'tool-' AND e.namespace NOT IN ('tool_effectiveness', "
        "'tool_registry')";
  }
  if (filter.ns_prefix) {
    params.Add(*filter.ns_prefix);
    where += " AND starts_with(e.namespace, " + Last(params) + ")";
  }
  if (!filter.tags.empty()) {
    params.AddTextArray(filter.tags);
    where += " AND e.tags @> " + Last(params) + "::text[]";
  }
  if (filter.since) {
    params.Add(static_cast<int64_t>(*filter.since));
    where += " AND e.updated_at >= " + Last(params) + "::bigint";
  }
  if (filter.until) {
    params.Add(static_cast<int64_t>(*filter.until));
    where += " AND e.updated_at < " + Last(params) + "::bigint";
  }
  return where;
}

}  // namespace mnemo::storage::internal::pg

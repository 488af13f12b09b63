#include "storage/sqlite/fts/fts_rows.h"

#include <string>

#include "storage/sqlite/fts/fts_tokenizer.h"

namespace mnemo::storage::internal {
namespace {

// "INSERT INTO t (<prefix>rowid, c1, c2) VALUES (<value>?, ?, ?)".
std::string InsertSql(std::string_view table, std::string_view command,
                      std::initializer_list<FtsColumn> columns) {
  std::string names;
  std::string values;
  if (!command.empty()) {
    names.append(table).append(", ");
    values.append("'").append(command).append("', ");
  }
  names += "rowid";
  values += "?";
  for (const FtsColumn& c : columns) {
    names.append(", ").append(c.name);
    values += ", ?";
  }
  return "INSERT INTO " + std::string(table) + " (" + names + ") VALUES (" + values + ")";
}

void BindColumns(Statement& s, int64_t rowid, std::initializer_list<FtsColumn> columns) {
  s.Bind(1, rowid);
  int i = 2;
  for (const FtsColumn& c : columns) s.Bind(i++, c.text);
}

}  // namespace

Result<int64_t> IndexFtsRow(Connection& db, std::string_view table, int64_t rowid,
                            std::initializer_list<FtsColumn> columns) {
  MNEMO_ASSIGN_OR_RETURN(
      Statement index, db.Prepare(InsertSql(table, "", columns), "add the row to the text index"));
  BindColumns(index, rowid, columns);
  IndexedLengthCapture capture;
  MNEMO_RETURN_IF_ERROR(index.Run("add the row to the text index"));
  return capture.tokens();
}

Status UnindexFtsRow(Connection& db, std::string_view table, int64_t rowid,
                     std::initializer_list<FtsColumn> columns) {
  MNEMO_ASSIGN_OR_RETURN(Statement unindex, db.Prepare(InsertSql(table, "delete", columns),
                                                       "remove the row from the text index"));
  BindColumns(unindex, rowid, columns);
  return unindex.Run("remove the row from the text index");
}

Status OptimizeFtsTable(Connection& db, std::string_view table) {
  const std::string t(table);
  const std::string sql = "INSERT INTO " + t + " (" + t + ") VALUES ('optimize')";
  return db.Exec(sql.c_str(), "rewrite the text index " + t);
}

Result<int64_t> NextRowid(Connection& db, std::string_view table) {
  MNEMO_ASSIGN_OR_RETURN(Statement next,
                         db.Prepare("SELECT COALESCE(MAX(rowid), 0) + 1 FROM " + std::string(table),
                                    "allocate a row"));
  MNEMO_ASSIGN_OR_RETURN(bool found, next.Step("allocate a row"));
  if (!found) return Internal("allocate a row: no result");
  return next.ColumnInt(0);
}

}  // namespace mnemo::storage::internal

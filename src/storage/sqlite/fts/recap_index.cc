#include "storage/sqlite/fts/recap_index.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/sqlite/fts/fts_rows.h"

namespace mnemo::storage::internal {

Status SyncRecapIndex(Connection& db, std::string_view segment_id, std::string_view recap) {
  std::optional<std::pair<int64_t, std::string>> stored;  // rowid, indexed recap
  {
    MNEMO_ASSIGN_OR_RETURN(Statement find,
                           db.Prepare("SELECT rowid, body FROM segment_recaps WHERE segment_id = ?",
                                      "find the indexed recap"));
    find.Bind(1, segment_id);
    MNEMO_ASSIGN_OR_RETURN(bool found, find.Step("find the indexed recap"));
    if (found) stored.emplace(find.ColumnInt(0), std::string(find.ColumnText(1)));
  }
  if (stored && stored->second == recap) return Status::Ok();
  if (!stored && recap.empty()) return Status::Ok();
  if (stored) {
    MNEMO_RETURN_IF_ERROR(
        UnindexFtsRow(db, "segment_recaps_fts", stored->first, {{"body", stored->second}}));
    MNEMO_ASSIGN_OR_RETURN(Statement drop, db.Prepare("DELETE FROM segment_recaps WHERE rowid = ?",
                                                      "remove the indexed recap"));
    drop.Bind(1, stored->first);
    MNEMO_RETURN_IF_ERROR(drop.Run("remove the indexed recap"));
  }
  if (recap.empty()) return Status::Ok();
  int64_t rowid = 0;
  if (stored) {
    rowid = stored->first;
  } else {
    MNEMO_ASSIGN_OR_RETURN(rowid, NextRowid(db, "segment_recaps"));
  }
  MNEMO_ASSIGN_OR_RETURN(int64_t length,
                         IndexFtsRow(db, "segment_recaps_fts", rowid, {{"body", recap}}));
  MNEMO_ASSIGN_OR_RETURN(Statement put,
                         db.Prepare("INSERT INTO segment_recaps (rowid, segment_id, body, "
                                    "doc_length) VALUES (?, ?, ?, ?)",
                                    "index the recap"));
  put.Bind(1, rowid);
  put.Bind(2, segment_id);
  put.Bind(3, recap);
  put.Bind(4, length);
  return put.Run("index the recap");
}

Status IndexExistingRecaps(Connection& db) {
  std::vector<std::pair<std::string, std::string>> recaps;  // segment id, recap
  {
    MNEMO_ASSIGN_OR_RETURN(
        Statement s,
        db.Prepare("SELECT id, recap FROM segments WHERE recap != '' ORDER BY started_at, id",
                   "read the stored recaps"));
    MNEMO_ASSIGN_OR_RETURN(recaps, (ReadAll<std::pair<std::string, std::string>>(
                                       s, "read the stored recaps", [](const Statement& row) {
                                         return std::make_pair(std::string(row.ColumnText(0)),
                                                               std::string(row.ColumnText(1)));
                                       })));
  }
  for (const auto& [id, recap] : recaps) MNEMO_RETURN_IF_ERROR(SyncRecapIndex(db, id, recap));
  return Status::Ok();
}

}  // namespace mnemo::storage::internal

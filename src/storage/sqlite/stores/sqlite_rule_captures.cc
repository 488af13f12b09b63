// Rules captured from a session on SQLite (schema v16, docs/storage.md):
// `rule_captures` keyed by (owner, session_id, tool_name, rule_id).
#include <mutex>
#include <string>
#include <vector>

#include "storage/rules/episodic_rules.h"
#include "storage/sqlite/stores/sqlite_episodic_store.h"

namespace mnemo::storage::internal {

Status SqliteEpisodicStore::AddRuleCapture(const RuleCaptureWrite& capture) {
  MNEMO_RETURN_IF_ERROR(ValidateRuleCapture(capture));
  std::lock_guard lock(db_->writer_mu());
  MNEMO_ASSIGN_OR_RETURN(
      Statement put,
      db_->writer().Prepare("INSERT OR IGNORE INTO rule_captures (owner, session_id, "
                            "tool_name, rule_id) VALUES (?, ?, ?, ?)",
                            "record the rule's session"));
  put.Bind(1, capture.owner);
  put.Bind(2, capture.session_id.view());
  put.Bind(3, capture.tool_name);
  put.Bind(4, capture.rule_id);
  return put.Run("record the rule's session");
}

Result<std::vector<RuleCapture>> SqliteEpisodicStore::RuleCaptures(std::string_view owner) {
  ReaderLease db = db_->AcquireReader();
  MNEMO_ASSIGN_OR_RETURN(Statement s,
                         db->Prepare("SELECT owner, session_id, tool_name, rule_id FROM "
                                     "rule_captures WHERE owner = ? ORDER BY session_id, "
                                     "tool_name, rule_id",
                                     "read the rules' sessions"));
  s.Bind(1, owner);
  return ReadAll<RuleCapture>(s, "read the rules' sessions", [](const Statement& row) {
    return RuleCapture{.owner = std::string(row.ColumnText(0)),
                       .session_id = std::string(row.ColumnText(1)),
                       .tool_name = std::string(row.ColumnText(2)),
                       .rule_id = std::string(row.ColumnText(3))};
  });
}

}  // namespace mnemo::storage::internal

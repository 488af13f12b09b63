// Rules captured from a session on PostgreSQL (schema v5, docs/storage.md):
// `rule_captures` keyed by (owner, session_id, tool_name, rule_id).
#include <string>
#include <vector>

#include "storage/postgres/stores/postgres_episodic_store.h"
#include "storage/rules/episodic_rules.h"

namespace mnemo::storage::internal {

using pg::Params;
using pg::PgConn;
using pg::Rows;

Status PostgresEpisodicStore::AddRuleCapture(const RuleCaptureWrite& capture) {
  MNEMO_RETURN_IF_ERROR(ValidateRuleCapture(capture));
  return Write("record the rule's session", [&](PgConn& conn) -> Status {
    return conn
        .ExecPrepared(
            "INSERT INTO rule_captures (owner, session_id, tool_name, rule_id) "
            "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
            Params()
                .Add(capture.owner)
                .Add(capture.session_id.view())
                .Add(capture.tool_name)
                .Add(capture.rule_id),
            "record the rule's session")
        .status();
  });
}

Result<std::vector<RuleCapture>> PostgresEpisodicStore::RuleCaptures(std::string_view owner) {
  MNEMO_ASSIGN_OR_RETURN(pg::Pool::Lease conn, Read());
  MNEMO_ASSIGN_OR_RETURN(Rows rows,
                         conn->Exec("SELECT owner, session_id, tool_name, rule_id FROM "
                                    "rule_captures WHERE owner = $1 ORDER BY session_id, "
                                    "tool_name, rule_id",
                                    Params().Add(owner), "read the rules' sessions"));
  std::vector<RuleCapture> out;
  out.reserve(static_cast<size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i) {
    out.push_back({.owner = std::string(rows.Text(i, 0)),
                   .session_id = std::string(rows.Text(i, 1)),
                   .tool_name = std::string(rows.Text(i, 2)),
                   .rule_id = std::string(rows.Text(i, 3))});
  }
  return out;
}

}  // namespace mnemo::storage::internal

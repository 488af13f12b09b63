// memory.turn_complete (specs 30 and 40): one turn through the Archivist
// (episodic rows, segments, archive) and the rules service (edicts, repeated
// failures, tool statistics), idempotent under a turn id.

#include <set>

#include "base/json_limits.h"
#include "core/engine_impl.h"
#include "core/validation.h"
#include "rules/tool_rule.h"
#include "rules/tool_stats.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {

Result<TurnResult> Engine::Impl::TurnComplete(const Principal& who, const Turn& turn) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateTurn(turn));
  TurnResult result;
  const TimeMs now = clock->NowMs();
  // With a turn_id the rows are stored under a claim of (principal, session,
  // turn id) in the same transaction: of any number of calls with it,
  // threads or processes, one stores the turn and the others replay its
  // result.
  std::optional<storage::TurnClaim> claim;
  if (turn.turn_id) {
    claim = storage::TurnClaim{
        .key = {.owner = who.name, .session_id = turn.session_id, .turn_id = *turn.turn_id},
        .claimed_at = now};
  }
  std::optional<storage::TurnClaim> earlier;
  // Episodic rows first: the turn is kept even if rule capture fails later.
  std::vector<size_t> cleaner_failed;
  Status done = archivist->IndexTurn(who, turn, turn.timestamp.value_or(now),
                                     claim ? &*claim : nullptr, earlier, result, cleaner_failed);
  if (earlier) {
    Result<TurnResult> replayed = archivist->ReplayTurn(std::move(*earlier));
    if (turn.sync) archivist->Flush();
    return replayed;
  }
  if (done.ok()) {
    done = rules->Capture(
        who, turn, now, cleaner_failed,
        [&]() -> Result<std::vector<std::string>> { return KnownTools(who); }, result);
  }
  if (claim) {
    // Stored even after a failure part way, so a retry answers with what
    // was done instead of waiting; kNotFound: the failure came before the
    // claim.
    Result<bool> finished = archivist->FinishTurn(claim->key, result);
    if (!finished.ok() && finished.status().code() != StatusCode::kNotFound) {
      logger->Log(LogLevel::kWarn, "cannot store the result of turn " + claim->key.turn_id + ": " +
                                       finished.status().message());
    }
  }
  MNEMO_RETURN_IF_ERROR(done);
  return result;
}

Result<std::vector<std::string>> Engine::Impl::KnownTools(const Principal& who) {
  std::set<std::string> names;
  MNEMO_ASSIGN_OR_RETURN(const context::ToolRegistry* registry, tools->Current());
  for (const context::ToolRegistry::Listed& l : registry->All()) names.insert(l.spec->name);
  const storage::ReadScope scope = rules->Scope(who);
  const std::string stats_prefix = rules::StatsKey("");
  MNEMO_RETURN_IF_ERROR(
      stores.entries->ForEach(scope, rules::kStatsNamespace, [&](const Entry& e) -> Status {
        if (e.ns == rules::kStatsNamespace && e.key.starts_with(stats_prefix)) {
          names.insert(e.key.substr(stats_prefix.size()));
        }
        return Status::Ok();
      }));
  MNEMO_RETURN_IF_ERROR(
      stores.entries->ForEach(scope, rules::RuleNamespace(""), [&](const Entry& e) -> Status {
        if (std::optional<std::string> tool = rules::ToolOfNamespace(e.ns)) names.insert(*tool);
        return Status::Ok();
      }));
  names.erase("");
  names.erase(std::string(rules::kAnyTool));
  return std::vector<std::string>(names.begin(), names.end());
}

Status Engine::Impl::ValidateTurn(const Turn& turn) const {
  if (text::IsBlank(turn.session_id)) {
    return InvalidArgument("session_id must not be blank", "session_id");
  }
  MNEMO_RETURN_IF_ERROR(ValidateKey(turn.session_id, "session_id"));
  if (turn.turn_id && (turn.turn_id->empty() || turn.turn_id->size() > kMaxTurnIdBytes ||
                       !text::IsValidUtf8(*turn.turn_id))) {
    return InvalidArgument("turn_id must be 1 to 128 bytes of UTF-8 (it is " +
                               std::to_string(turn.turn_id->size()) + " bytes long)",
                           "turn_id");
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const std::string field = "tool_calls[" + std::to_string(i) + "].name";
    MNEMO_ASSIGN_OR_RETURN(std::string tool,
                           RulesService::CheckToolName(turn.tool_calls[i].name, field));
    // "*" names the unscoped rules, never a tool that ran.
    if (tool == rules::kAnyTool) {
      return InvalidArgument(field + " \"*\" is reserved for unscoped rules: use the tool's name",
                             field);
    }
    MNEMO_RETURN_IF_ERROR(internal::CheckJsonLimits(
        turn.tool_calls[i].arguments_json, "tool_calls[" + std::to_string(i) + "].arguments",
        config.server.max_body_bytes));
    if (turn.tool_calls[i].duration_ms < 0) {
      return InvalidArgument(
          "tool_calls[" + std::to_string(i) + "].duration_ms must not be negative",
          "tool_calls[" + std::to_string(i) + "].duration_ms");
    }
  }
  for (const auto& [text, field] : {std::pair{&turn.user_message, "user_message"},
                                    std::pair{&turn.assistant_response, "assistant_response"}}) {
    if (!text::IsValidUtf8(*text)) {
      return InvalidArgument(std::string(field) + " is not valid UTF-8", field);
    }
  }
  return Status::Ok();
}

}  // namespace mnemo

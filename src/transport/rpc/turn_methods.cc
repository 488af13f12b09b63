// memory.turn_complete: the per-turn entry point (spec 30 capture and tool
// statistics; the Archivist of spec 40 extends it).
#include <optional>

#include "base/time.h"
#include "core/validation.h"
#include "transport/rpc/method_table.h"
#include "transport/rpc/rule_wire.h"

namespace mnemo::transport {
namespace {

// The text of field `name`, moved out of the params (they hold the only
// copy of a turn's large texts), or "" when absent.
std::string TakeText(json& p, const char* name) {
  auto it = p.find(name);
  if (it == p.end() || !it->is_string()) return {};
  return std::move(it->get_ref<std::string&>());
}

Result<json> HandleTurnComplete(const MethodContext& ctx, json& p) {
  Turn turn{.session_id = p.at("session_id"),
            .user_message = TakeText(p, "user_message"),
            .assistant_response = TakeText(p, "assistant_response"),
            .agent_id = TakeText(p, "agent_id"),
            .cost_microdollars = p.at("cost_microdollars").get<int64_t>(),
            .sync = p.at("sync").get<bool>()};
  if (p.contains("turn_id")) turn.turn_id = p.at("turn_id").get<std::string>();
  if (p.contains("timestamp")) {
    const std::string text = p.at("timestamp").get<std::string>();
    std::optional<TimeMs> ts = internal::ParseRfc3339(text);
    if (!ts) {
      return InvalidArgument(
          "parameter \"timestamp\" must be an RFC3339 time such as 2026-11-29T10:00:00Z",
          "timestamp");
    }
    turn.timestamp = *ts;
  }
  for (json& c : p.at("tool_calls")) {
    ToolCall call{.name = c.at("name"),
                  .arguments_json = c.at("arguments").dump(),
                  .success = c.at("success").get<bool>(),
                  .output = TakeText(c, "output"),
                  .duration_ms = c.at("duration_ms").get<int64_t>()};
    if (c.contains("clean_output")) call.clean_output = TakeText(c, "clean_output");
    turn.tool_calls.push_back(std::move(call));
  }
  MNEMO_ASSIGN_OR_RETURN(TurnResult result,
                         ctx.engine.archivist().TurnComplete(ctx.principal, std::move(turn)));
  json out = TurnResultToJson(result);
  out["session_id"] = p.at("session_id");
  return out;
}

std::string RenderTurn(const json& params, const json& result) {
  const size_t n = result.at("new_rules").size();
  if (n == 0) return "Turn recorded.";
  std::string out = "Turn recorded; new rules:";
  for (const json& r : result.at("new_rules")) {
    out += "\n- [" + r.at("priority").get<std::string>() + "] " +
           r.at("tool_name").get<std::string>() + ": " + r.at("rule").get<std::string>();
  }
  return out;
}

std::vector<ParamSpec> ToolCallFields() {
  return {
      {.name = "name", .description = "The tool's name.", .required = true, .max_bytes = 256},
      {.name = "arguments",
       .type = ParamType::kObjectOrText,
       .description = "The call's arguments (an object, or JSON text).",
       .default_value = json::object()},
      {.name = "success",
       .type = ParamType::kBoolean,
       .description = "Whether the call succeeded (default true).",
       .default_value = true},
      {.name = "output",
       .description = "The tool's output, stored as is.",
       .max_bytes = kMaxContentBytes},
      {.name = "clean_output",
       .description = "A cleaned form of the output for search (spec 50).",
       .max_bytes = kMaxContentBytes},
      {.name = "duration_ms",
       .type = ParamType::kInteger,
       .description = "How long the call took, in milliseconds (default 0).",
       .default_value = 0,
       .minimum = 0},
      {.name = "id", .description = "The harness's id of the call (optional).", .max_bytes = 256}};
}

MethodSpec TurnCompleteSpec() {
  return {
      .name = "memory.turn_complete",
      .description =
          "Report a finished agent turn: captures user edicts (\"never email "
          "Sarah\") as critical tool rules and repeated tool failures as normal "
          "rules, and counts every tool call. Returns the rules it created.",
      .params =
          {{.name = "session_id",
            .description = "The conversation's id.",
            .required = true,
            .max_bytes = kMaxKeyBytes},
           {.name = "user_message",
            .description = "What the user said this turn.",
            .max_bytes = kMaxContentBytes},
           {.name = "assistant_response",
            .description = "What the assistant answered.",
            .max_bytes = kMaxContentBytes},
           {.name = "tool_calls",
            .type = ParamType::kObjectArray,
            .description = "The tool calls of the turn, in the order they ran.",
            .default_value = json::array(),
            .fields = ToolCallFields()},
           TimeParam("timestamp", "When the turn happened, RFC3339 (default: now)."),
           {.name = "agent_id", .description = "The agent's id (optional).", .max_bytes = 256},
           {.name = "cost_microdollars",
            .type = ParamType::kInteger,
            .description = "What the turn cost, in millionths of a dollar (default 0).",
            .default_value = 0,
            .minimum = 0},
           {.name = "sync",
            .type = ParamType::kBoolean,
            .description = "Wait for background work of this turn (default false).",
            .default_value = false},
           {.name = "turn_id",
            .description = "The harness's id of this turn (1-" + std::to_string(kMaxTurnIdBytes) +
                           " bytes), for safe retries: a repeat with the same session_id "
                           "and turn_id stores nothing and returns the first call's result "
                           "with \"replayed\": true.",
            .non_blank = true,
            .max_bytes = kMaxTurnIdBytes}},
      .result_schema = {{"type", "object"},
                        {"properties",
                         {{"session_id", {{"type", "string"}}},
                          {"new_rules", {{"type", "array"}, {"items", ToolRuleSchema()}}},
                          {"refreshed_rules", {{"type", "array"}, {"items", ToolRuleSchema()}}},
                          {"rules_captured", {{"type", "boolean"}}},
                          {"replayed", {{"type", "boolean"}}}}}},
      .handler = HandleTurnComplete,
      .render = RenderTurn};
}

}  // namespace

void AddTurnMethods(MethodTable& table) { table.Add(TurnCompleteSpec()); }

}  // namespace mnemo::transport

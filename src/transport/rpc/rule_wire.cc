#include "transport/rpc/rule_wire.h"

#include "base/time.h"
#include "mnemo/names.h"
#include "text/strip.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

std::string Str(const json& j, const char* name) {
  auto it = j.find(name);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

json ToolRuleToJson(const ToolRule& r) {
  return {{"id", r.id},
          {"tool_name", r.tool_name},
          {"rule", r.rule},
          {"priority", PriorityName(r.priority)},
          {"source", SourceName(r.source)},
          {"tags", r.tags},
          {"owner", r.owner},
          {"created_at", internal::FormatRfc3339(r.created_at)},
          {"updated_at", internal::FormatRfc3339(r.updated_at)}};
}

json ToolRulesToJson(const std::vector<ToolRule>& rules) {
  json out = json::array();
  for (const ToolRule& r : rules) out.push_back(ToolRuleToJson(r));
  return out;
}

json ToolRuleSchema() {
  json str = {{"type", "string"}};
  return {
      {"type", "object"},
      {"properties",
       {{"id", str},
        {"tool_name", str},
        {"rule", str},
        {"priority", {{"type", "string"}, {"enum", {"critical", "high", "normal"}}}},
        {"source", {{"type", "string"}, {"enum", {"user_explicit", "post_turn", "programmatic"}}}},
        {"tags", {{"type", "array"}, {"items", str}}},
        {"owner", str},
        {"created_at", {{"type", "string"}, {"format", "date-time"}}},
        {"updated_at", {{"type", "string"}, {"format", "date-time"}}}}},
      {"required",
       {"id", "tool_name", "rule", "priority", "source", "tags", "created_at", "updated_at"}}};
}

json TurnResultToJson(const TurnResult& r) {
  auto ref = [](const std::optional<EpisodicTurn>& t) -> json {
    if (!t) return nullptr;
    return {{"id", t->id}, {"seq", t->seq}};
  };
  return {{"new_rules", ToolRulesToJson(r.new_rules)},
          {"refreshed_rules", ToolRulesToJson(r.refreshed_rules)},
          {"rules_captured", r.rules_captured},
          {"episodic", {{"user", ref(r.user_row)}, {"assistant", ref(r.assistant_row)}}},
          {"redactions", r.redactions},
          {"segment_id", r.segment_id},
          {"segment_closed", !r.closed_segment_id.empty()},
          {"closed_segment_id", r.closed_segment_id},
          {"replayed", r.replayed}};
}

json EpisodicTurnToJson(const EpisodicTurn& t) {
  return {{"id", t.id},
          {"session_id", t.session_id},
          {"seq", t.seq},
          {"role", t.role},
          {"content", t.content},
          {"lesson", t.lesson},
          {"tool_calls_json", t.tool_calls_json},
          {"timestamp", internal::FormatRfc3339(t.timestamp)},
          {"cost_microdollars", t.cost_microdollars},
          {"agent_id", t.agent_id},
          {"owner", t.owner}};
}

json EpisodicTurnSchema() {
  json str = {{"type", "string"}};
  json integer = {{"type", "integer"}};
  return {{"type", "object"},
          {"properties",
           {{"id",
             {{"type", "integer"},
              {"description",
               "The turn's id: derived from owner, session_id and seq (53 bits), the same on "
               "every backend and after a restore; it reveals nothing of other callers' turns."}}},
            {"session_id", str},
            {"seq", integer},
            {"role", {{"type", "string"}, {"enum", {"user", "assistant"}}}},
            {"content", str},
            {"lesson", str},
            {"tool_calls_json", str},
            {"timestamp", {{"type", "string"}, {"format", "date-time"}}},
            {"cost_microdollars", integer},
            {"agent_id", str},
            {"owner", str}}}};
}

std::string RenderRulePut(const json& params, const json& r) {
  return "Stored rule for " + Str(r, "tool_name") + " [" + Str(r, "priority") +
         "]: " + Str(r, "rule");
}

std::string RenderRuleGet(const json& params, const json& r) {
  if (r.is_null()) return "No rule found.";
  return "[" + Str(r, "priority") + "] " + Str(r, "tool_name") + ": " + Str(r, "rule");
}

std::string RenderRuleList(const json& params, const json& result) {
  if (result.empty()) return "No rules for " + Str(params, "tool_name") + ".";
  std::string out;
  for (const json& r : result) {
    if (!out.empty()) out += "\n";
    out += "- [" + Str(r, "priority") + "] " + text::CollapseToLine(Str(r, "rule")) + " (id " +
           Str(r, "id") + ")";
  }
  return out;
}

std::string RenderRuleDelete(const json& params, const json& result) {
  if (result.is_boolean() && result.get<bool>()) return "Deleted rule " + Str(params, "id") + ".";
  return "No rule " + Str(params, "id") + " for " + Str(params, "tool_name") + ".";
}

std::string RenderRulesForPrompt(const json& params, const json& result) {
  std::string rendered = Str(result, "rendered");
  return rendered.empty() ? "No pinned tool rules." : rendered;
}

}  // namespace mnemo::transport

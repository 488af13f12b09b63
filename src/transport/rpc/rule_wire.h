// JSON shapes (spec 30, snake_case) and model-facing texts of the tool-rule
// and turn methods.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mnemo/types.h"

namespace mnemo::transport {

// {"id","tool_name","rule","priority","source","tags","owner","created_at",
//  "updated_at"}; times in RFC3339.
nlohmann::json ToolRuleToJson(const ToolRule& rule);
nlohmann::json ToolRulesToJson(const std::vector<ToolRule>& rules);
nlohmann::json ToolRuleSchema();
nlohmann::json TurnResultToJson(const TurnResult& result);
// {"id","session_id","seq","role","content","lesson","tool_calls_json",
//  "timestamp","cost_microdollars","agent_id","owner"}.
nlohmann::json EpisodicTurnToJson(const EpisodicTurn& turn);
nlohmann::json EpisodicTurnSchema();

// put:    "Stored rule for <tool> [<priority>]: <rule>"
// get:    "[<priority>] <tool>: <rule>" | "No rule found."
// list:   one "- [<priority>] <rule> (id <id>)" line per rule | "No rules for <tool>."
// delete: "Deleted rule <id>." | "No rule <id> for <tool>."
// prompt: the rendered block | "No pinned tool rules."
std::string RenderRulePut(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderRuleGet(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderRuleList(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderRuleDelete(const nlohmann::json& params, const nlohmann::json& result);
std::string RenderRulesForPrompt(const nlohmann::json& params, const nlohmann::json& result);

}  // namespace mnemo::transport

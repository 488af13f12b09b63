#include "core/formats/turn_result_json.h"

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rules/tool_rule.h"

namespace mnemo {
namespace {

using nlohmann::json;

constexpr int kFormatVersion = 1;

json RulesToJson(const std::vector<ToolRule>& rules) {
  json out = json::array();
  for (const ToolRule& r : rules) {
    out.push_back({{"id", r.id},
                   {"tool_name", r.tool_name},
                   {"rule", r.rule},
                   {"priority", std::string(PriorityName(r.priority))},
                   {"source", std::string(SourceName(r.source))},
                   {"tags", r.tags},
                   {"owner", r.owner},
                   {"created_at", r.created_at},
                   {"updated_at", r.updated_at}});
  }
  return out;
}

Result<std::vector<ToolRule>> RulesFromJson(const json& rules) {
  std::vector<ToolRule> out;
  for (const json& j : rules) {
    ToolRule r{.id = j.at("id").get<std::string>(),
               .tool_name = j.at("tool_name").get<std::string>(),
               .rule = j.at("rule").get<std::string>(),
               .tags = j.at("tags").get<std::vector<std::string>>(),
               .owner = j.at("owner").get<std::string>(),
               .created_at = j.at("created_at").get<TimeMs>(),
               .updated_at = j.at("updated_at").get<TimeMs>()};
    MNEMO_ASSIGN_OR_RETURN(r.priority, ParsePriority(j.at("priority").get<std::string>()));
    MNEMO_ASSIGN_OR_RETURN(r.source, ParseSource(j.at("source").get<std::string>()));
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace

std::string EncodeTurnResult(const TurnResult& result) {
  const json j = {{"v", kFormatVersion},
                  {"segment_id", result.segment_id},
                  {"closed_segment_id", result.closed_segment_id},
                  {"redactions", result.redactions},
                  {"rules_captured", result.rules_captured},
                  {"new_rules", RulesToJson(result.new_rules)},
                  {"refreshed_rules", RulesToJson(result.refreshed_rules)}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<TurnResult> DecodeTurnResult(std::string_view stored) {
  const json j = json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("v", 0) != kFormatVersion) {
    return Corruption("a stored turn result is not a version 1 JSON object");
  }
  try {
    TurnResult out{.redactions = j.at("redactions").get<int>(),
                   .segment_id = j.at("segment_id").get<std::string>(),
                   .closed_segment_id = j.at("closed_segment_id").get<std::string>(),
                   .rules_captured = j.at("rules_captured").get<bool>()};
    MNEMO_ASSIGN_OR_RETURN(out.new_rules, RulesFromJson(j.at("new_rules")));
    MNEMO_ASSIGN_OR_RETURN(out.refreshed_rules, RulesFromJson(j.at("refreshed_rules")));
    return out;
  } catch (const json::exception& e) {
    return Internal(std::string("a stored turn result is malformed: ") + e.what());
  }
}

}  // namespace mnemo

// mnemo::Rules (mnemo/rules.h): the enabled check, then the rules service,
// which validates the request.
#include "core/services.h"
#include "mnemo/rules.h"

namespace mnemo {

Result<ToolRule> Rules::Put(const Principal& who, const ToolRulePut& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.rules.Put(who, req);
}
Result<std::optional<ToolRule>> Rules::Get(const Principal& who, std::string_view tool,
                                           std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.rules.Get(who, tool, id);
}
Result<std::vector<ToolRule>> Rules::List(const Principal& who,
                                          std::optional<std::string_view> tool) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.rules.List(who, tool);
}
Result<bool> Rules::Delete(const Principal& who, std::string_view tool, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.rules.Delete(who, tool, id);
}
Result<PromptRules> Rules::ForPrompt(const Principal& who, const std::vector<std::string>& tools) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.rules.ForPrompt(who, tools);
}

}  // namespace mnemo

// The tool-rule methods of spec 30: put, get, list, delete, count, the pinned
// prompt block and the raw JSON list. One MethodSpec each.
#include <optional>

#include "base/time.h"
#include "mnemo/names.h"
#include "transport/rpc/method_table.h"
#include "transport/rpc/rule_wire.h"

namespace mnemo::transport {
namespace {

ParamSpec ToolNameParam(bool required) {
  ParamSpec p{.name = "tool_name",
              .description =
                  "The tool the rule is about, e.g. \"send_email\" (trimmed and "
                  "lower-cased; \"*\" = any tool).",
              .required = required,
              .non_blank = true,
              .max_bytes = kMaxToolNameBytes + 64};
  return p;
}

ParamSpec IdParam(bool required) {
  return {.name = "id",
          .description = required ? "The rule's id." : "Upsert this rule id (absent: a new rule).",
          .required = required,
          .max_bytes = kMaxRuleIdBytes};
}

Result<json> HandlePut(const MethodContext& ctx, const json& p) {
  ToolRulePut req{.tool_name = p.at("tool_name"), .rule = p.at("rule")};
  if (p.contains("priority")) {
    MNEMO_ASSIGN_OR_RETURN(req.priority, ParsePriority(p.at("priority").get<std::string>()));
  }
  if (p.contains("source")) {
    MNEMO_ASSIGN_OR_RETURN(req.source, ParseSource(p.at("source").get<std::string>()));
  }
  if (p.contains("tags")) req.tags = p.at("tags").get<std::vector<std::string>>();
  if (p.contains("id")) req.id = p.at("id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(ToolRule rule, ctx.engine.rules().Put(ctx.principal, req));
  return ToolRuleToJson(rule);
}

Result<json> HandleGet(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(std::optional<ToolRule> rule,
                         ctx.engine.rules().Get(ctx.principal, p.at("tool_name").get<std::string>(),
                                                p.at("id").get<std::string>()));
  if (!rule) return json(nullptr);
  return ToolRuleToJson(*rule);
}

Result<json> HandleList(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<ToolRule> rules,
      ctx.engine.rules().List(ctx.principal, p.at("tool_name").get<std::string>()));
  return ToolRulesToJson(rules);
}

Result<json> HandleDelete(const MethodContext& ctx, const json& p) {
  MNEMO_ASSIGN_OR_RETURN(
      bool deleted, ctx.engine.rules().Delete(ctx.principal, p.at("tool_name").get<std::string>(),
                                              p.at("id").get<std::string>()));
  return json(deleted);
}

Result<json> HandleForPrompt(const MethodContext& ctx, const json& p) {
  std::vector<std::string> tools;
  if (p.contains("tools")) tools = p.at("tools").get<std::vector<std::string>>();
  MNEMO_ASSIGN_OR_RETURN(PromptRules prompt, ctx.engine.rules().ForPrompt(ctx.principal, tools));
  return json{{"rendered", prompt.rendered}, {"rules", ToolRulesToJson(prompt.rules)}};
}

Result<json> HandleCount(const MethodContext& ctx, const json& p) {
  std::optional<std::string> tool;
  if (p.contains("tool_name")) tool = p.at("tool_name").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(int64_t count, ctx.engine.rules().Count(ctx.principal, tool));
  return json{{"count", count}};
}

Result<json> HandleJson(const MethodContext& ctx, const json& p) {
  std::optional<std::string> tool;
  if (p.contains("tool_name")) tool = p.at("tool_name").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(std::vector<ToolRule> rules, ctx.engine.rules().List(ctx.principal, tool));
  return ToolRulesToJson(rules);
}

json RulesArraySchema() { return {{"type", "array"}, {"items", ToolRuleSchema()}}; }

MethodSpec PutSpec() {
  return {.name = "memory.tool_rule_put",
          .description =
              "Pin a rule about a tool (\"never email Sarah\"). critical and high "
              "rules go into every later system prompt; normal ones are found by "
              "memory_recall in namespace tool-<name>. Upserts by id; an equal rule "
              "is refreshed, never duplicated.",
          .params = {ToolNameParam(true),
                     {.name = "rule",
                      .description = "The guidance, in natural language.",
                      .required = true,
                      .max_bytes = kMaxRuleBytes},
                     {.name = "priority",
                      .description = "critical, high or normal (default normal).",
                      .allowed = {"critical", "high", "normal"}},
                     {.name = "source",
                      .description = "user_explicit, post_turn or programmatic (default "
                                     "programmatic).",
                      .allowed = {"user_explicit", "post_turn", "programmatic"}},
                     {.name = "tags",
                      .type = ParamType::kStringArray,
                      .description = "Free-form tags (safety, permission, ...)."},
                     IdParam(false)},
          .result_schema = ToolRuleSchema(),
          .handler = HandlePut,
          .render = RenderRulePut,
          .tool_name = "tool_rule_put"};
}

MethodSpec GetSpec() {
  return {.name = "memory.tool_rule_get",
          .read_only = true,
          .description = "One tool rule by tool and id (null when there is none).",
          .params = {ToolNameParam(true), IdParam(true)},
          .result_schema = {{"oneOf", {ToolRuleSchema(), {{"type", "null"}}}}},
          .handler = HandleGet,
          .render = RenderRuleGet};
}

MethodSpec ListSpec() {
  return {.name = "memory.tool_rule_list",
          .read_only = true,
          .description = "Every rule of one tool, highest priority and most recent first.",
          .params = {ToolNameParam(true)},
          .result_schema = RulesArraySchema(),
          .handler = HandleList,
          .render = RenderRuleList,
          .tool_name = "tool_rule_list",
          .tool_mcp_only = true};
}

MethodSpec DeleteSpec() {
  return {.name = "memory.tool_rule_delete",
          .description = "Delete one tool rule; true when it existed.",
          .params = {ToolNameParam(true), IdParam(true)},
          .result_schema = {{"type", "boolean"}},
          .handler = HandleDelete,
          .render = RenderRuleDelete};
}

MethodSpec ForPromptSpec() {
  return {.name = "memory.tool_rules_for_prompt",
          .read_only = true,
          .description =
              "The pinned markdown block of critical and high tool rules for the "
              "system prompt, and the rules in it.",
          .params = {{.name = "tools",
                      .type = ParamType::kStringArray,
                      .description = "Only these tools (default: every tool); unscoped rules "
                                     "are always included."}},
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"rendered", {{"type", "string"}}}, {"rules", RulesArraySchema()}}}},
          .handler = HandleForPrompt,
          .render = RenderRulesForPrompt};
}

MethodSpec CountSpec() {
  return {.name = "memory.tool_rule_count",
          .read_only = true,
          .description =
              "How many rules memory.tool_rule_list gives for one tool (of every tool "
              "when tool_name is absent).",
          .params = {ToolNameParam(false)},
          .result_schema = ResultObject({{"count", {{"type", "integer"}, {"minimum", 0}}}}),
          .handler = HandleCount};
}

MethodSpec JsonSpec() {
  return {.name = "memory.tool_rules_json",
          .read_only = true,
          .description = "Every rule as a raw JSON array (of one tool when tool_name is given).",
          .params = {ToolNameParam(false)},
          .result_schema = RulesArraySchema(),
          .handler = HandleJson};
}

}  // namespace

void AddRuleMethods(MethodTable& table) {
  table.Add(PutSpec());
  table.Add(GetSpec());
  table.Add(ListSpec());
  table.Add(DeleteSpec());
  table.Add(CountSpec());
  table.Add(ForPromptSpec());
  table.Add(JsonSpec());
}

}  // namespace mnemo::transport

// memory.context_build (spec 50, "Context block").
#include "core/validation.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

Result<json> HandleContextBuild(const MethodContext& ctx, const json& p) {
  ContextBuildRequest req{.query = p.at("query"), .preset = p.at("preset")};
  if (p.contains("session_id")) req.session_id = p.at("session_id").get<std::string>();
  if (p.contains("budget_chars")) req.budget_chars = p.at("budget_chars").get<int64_t>();
  if (p.contains("agent_id")) req.agent_id = p.at("agent_id").get<std::string>();
  MNEMO_ASSIGN_OR_RETURN(req.window, TimeWindowOf(p));
  MNEMO_ASSIGN_OR_RETURN(ContextBlock block, ctx.engine.context().Build(ctx.principal, req));
  json sections = json::array();
  for (const ContextBlockSection& s : block.sections) {
    sections.push_back({{"name", s.name}, {"items", s.items}, {"chars", s.chars}});
  }
  return json{{"text", block.text},
              {"preset", block.preset},
              {"budget_chars", block.budget_chars},
              {"used_chars", block.used_chars},
              {"sections", std::move(sections)}};
}

std::string RenderContextBuild(const json&, const json& result) {
  const std::string text = result.at("text").get<std::string>();
  return text.empty() ? "Nothing in memory is relevant to this turn yet." : text;
}

json ResultSchema() {
  const json section = {{"type", "object"},
                        {"properties",
                         {{"name", {{"type", "string"}}},
                          {"items", {{"type", "integer"}}},
                          {"chars", {{"type", "integer"}}}}}};
  return {{"type", "object"},
          {"properties",
           {{"text", {{"type", "string"}}},
            {"preset", {{"type", "string"}}},
            {"budget_chars", {{"type", "integer"}}},
            {"used_chars", {{"type", "integer"}}},
            {"sections", {{"type", "array"}, {"items", section}}}}}};
}

MethodSpec ContextBuildSpec() {
  return {.name = "memory.context_build",
          .read_only = true,
          .description =
              "The memory context to inject for this turn: relevant memories, the user's "
              "profile, recaps of earlier conversation, relevant turns and documents, "
              "within a character budget. Same memory and request, same text.",
          .params = {{.name = "query",
                      .description = "What this turn is about, in plain words.",
                      .required = true,
                      .non_blank = true,
                      .max_bytes = kMaxContentBytes},
                     {.name = "session_id",
                      .description = "The conversation: its earlier segments' recaps are used.",
                      .non_blank = true,
                      .max_bytes = kMaxKeyBytes},
                     {.name = "preset",
                      .description = "minimal (2000 characters), balanced (8000, default), "
                                     "extended (16000) or maximum (32000).",
                      .default_value = "balanced",
                      .allowed = {"minimal", "balanced", "extended", "maximum"}},
                     {.name = "budget_chars",
                      .type = ParamType::kInteger,
                      .description = "Characters (Unicode code points) at most; default: the "
                                     "preset's.",
                      .minimum = 1,
                      .maximum = kMaxContextBuildChars},
                     SinceParam(),
                     UntilParam(),
                     AgentIdFilterParam()},
          .result_schema = ResultSchema(),
          .handler = HandleContextBuild,
          .render = RenderContextBuild};
}

}  // namespace

void AddContextBuildMethods(MethodTable& table) { table.Add(ContextBuildSpec()); }

}  // namespace mnemo::transport

// The tool registry methods of spec 50: memory.tool_register and
// memory.tool_list. One MethodSpec each.
#include "transport/rpc/method_table.h"

namespace mnemo::transport {
namespace {

json ToolInfoToJson(const ToolInfo& t) {
  json cleaner = t.cleaner.empty() ? json::array() : json::parse(t.cleaner, nullptr, false);
  if (cleaner.is_discarded()) cleaner = json::array();
  return {{"name", t.name},
          {"plugin", t.plugin},
          {"description", t.description},
          {"no_memory", t.no_memory},
          {"cleaner", std::move(cleaner)},
          {"cleaner_fn", t.cleaner_fn},
          {"source", t.source}};
}

json ToolInfoSchema() {
  return {{"type", "object"},
          {"properties",
           {{"name", {{"type", "string"}}},
            {"plugin", {{"type", "string"}}},
            {"description", {{"type", "string"}}},
            {"no_memory", {{"type", "boolean"}}},
            {"cleaner", {{"type", "array"}, {"items", {{"type", "object"}}}}},
            {"cleaner_fn", {{"type", "boolean"}}},
            {"source", {{"type", "string"}, {"enum", {"config", "registered", "code"}}}}}}};
}

std::string Text(const json& p, const char* name) {
  auto it = p.find(name);
  return it != p.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<json> HandleRegister(const MethodContext& ctx, const json& p) {
  ToolSpec spec{.name = p.at("name").get<std::string>(),
                .plugin = Text(p, "plugin"),
                .description = Text(p, "description"),
                .no_memory = p.at("no_memory").get<bool>()};
  if (auto it = p.find("cleaner"); it != p.end() && !it->empty()) spec.cleaner = DumpJson(*it);
  MNEMO_ASSIGN_OR_RETURN(ToolInfo info, ctx.engine.tools().Register(ctx.principal, spec));
  return ToolInfoToJson(info);
}

Result<json> HandleList(const MethodContext& ctx, const json&) {
  MNEMO_ASSIGN_OR_RETURN(std::vector<ToolInfo> tools, ctx.engine.tools().List(ctx.principal));
  json out = json::array();
  for (const ToolInfo& t : tools) out.push_back(ToolInfoToJson(t));
  return json{{"tools", std::move(out)}};
}

std::string RenderRegister(const json&, const json& result) {
  std::string out = "Tool " + result.at("name").get<std::string>() + " registered";
  if (result.at("no_memory").get<bool>()) return out + ": its output takes no part in memory.";
  if (!result.at("cleaner").empty())
    return out + " with a cleaner of " + std::to_string(result.at("cleaner").size()) + " step(s).";
  return out + ".";
}

std::vector<ParamSpec> CleanerStepFields() {
  auto text = [](std::string name, std::string description) {
    return ParamSpec{
        .name = std::move(name), .description = std::move(description), .max_bytes = 4096};
  };
  auto flag = [](std::string name, std::string description) {
    return ParamSpec{.name = std::move(name),
                     .type = ParamType::kBoolean,
                     .description = std::move(description)};
  };
  return {text("json_field", "The output is a JSON object: keep this member."),
          text("json_pointer", "The output is JSON: keep this RFC 6901 pointee."),
          flag("strip_html", "Remove HTML tags, decode entities."),
          flag("strip_ansi", "Remove terminal escape sequences and control characters."),
          text("regex_remove", "Remove every match of this ICU regular expression."),
          text("regex_extract", "Keep the first match of this ICU regular expression."),
          {.name = "group",
           .type = ParamType::kInteger,
           .description = "regex_extract only: the capture group kept (default 0)."},
          flag("collapse_whitespace", "Collapse runs of whitespace; trim."),
          {.name = "truncate",
           .type = ParamType::kInteger,
           .description = "Keep at most this many characters (code points)."}};
}

MethodSpec RegisterSpec() {
  return {
      .name = "memory.tool_register",
      .description =
          "Declare how a tool's output takes part in memory (spec 50): no_memory leaves it "
          "out of every index; a cleaner filters it first. The output is always stored as "
          "received. Persisted for every process of the workspace; replaces an earlier "
          "declaration of the same tool. Run `mnemo reindex` to apply a change to what "
          "is already stored.",
      .params = {{.name = "name",
                  .description = "The tool's name (trimmed and lower-cased).",
                  .required = true,
                  .max_bytes = kMaxToolNameBytes + 64},
                 {.name = "plugin", .description = "The plugin it belongs to.", .max_bytes = 256},
                 {.name = "description", .description = "What the tool does.", .max_bytes = 4096},
                 {.name = "no_memory",
                  .type = ParamType::kBoolean,
                  .description = "true: the output takes no part in any computation "
                                 "(the turn still does). Default false.",
                  .default_value = false},
                 {.name = "cleaner",
                  .type = ParamType::kObjectArray,
                  .description =
                      "Steps applied in order to the output before it is indexed, each an "
                      "object with one key, e.g. [{\"json_field\": \"content\"}, "
                      "{\"truncate\": 2000}]. A failing step falls back to the raw output "
                      "(counted in the tool's statistics). Absent or []: none.",
                  .fields = CleanerStepFields()}},
      .result_schema = ToolInfoSchema(),
      .handler = HandleRegister,
      .render = RenderRegister};
}

MethodSpec ListSpec() {
  return {.name = "memory.tool_list",
          .read_only = true,
          .description =
              "Every declared tool (mnemo.toml, memory.tool_register, C++), by name, "
              "with the source in force.",
          .result_schema = {{"type", "object"},
                            {"properties",
                             {{"tools", {{"type", "array"}, {"items", ToolInfoSchema()}}}}}},
          .handler = HandleList};
}

}  // namespace

void AddToolMethods(MethodTable& table) {
  table.Add(RegisterSpec());
  table.Add(ListSpec());
}

}  // namespace mnemo::transport

// Methods about the table itself: memory.methods, memory.tools_schema and
// memory.tool_call (which runs an LLM tool and wraps its text rendering).
#include <cstdio>

#include "core/access.h"
#include "transport/rpc/method_reference.h"
#include "transport/rpc/method_table.h"
#include "transport/rpc/param_schema.h"

namespace mnemo::transport {
namespace {

Result<json> HandleMethods(const MethodContext& ctx, const json&) {
  return json{{"methods", MethodListJson(ctx.table)}};
}

Result<json> HandleToolsSchema(const MethodContext& ctx, const json&) {
  json tools = json::array();
  for (const MethodSpec& m : ctx.table.All()) {
    if (!IsListedToolFor(m, ToolAudience::kLlm, ctx.engine.config(), ctx.principal)) continue;
    tools.push_back({{"type", "function"},
                     {"function",
                      {{"name", m.tool_name},
                       {"description", m.description},
                       {"parameters", ParamsSchema(m)}}}});
  }
  return tools;
}

// The tool's arguments as the model must send them: an object, or JSON text
// holding one (OpenAI's form).
const ParamSpec& ToolArguments() {
  static const ParamSpec kSpec{.name = "arguments", .type = ParamType::kObjectOrText};
  return kSpec;
}

// A failing tool is a result with is_error (the model reads the message), not
// a JSON-RPC error; only tool_call's own params are protocol errors.
// Malformed arguments (not an object, JSON text that does not parse) are the
// model's mistake: a failed tool it can retry.
Result<json> HandleToolCall(const MethodContext& ctx, const json& p) {
  const std::string& name = p.at("name").get_ref<const std::string&>();
  json arguments = p.at("arguments");
  std::optional<ToolOutcome> out;
  if (Status s = CheckParamValue(ToolArguments(), arguments); !s.ok()) {
    const MethodSpec* tool = ctx.table.FindTool(name);
    if (tool != nullptr && IsToolFor(*tool, ToolAudience::kLlm, ctx.engine.config())) {
      out = ToolOutcome{.text = "Tool " + name + " was not run: " + s.message() +
                                "; send the arguments again as a JSON object",
                        .data = nullptr,
                        .is_error = true};
    }
  } else {
    out = RunTool(ctx, ToolAudience::kLlm, name, arguments);
  }
  if (!out) {
    out = ToolOutcome{
        .text = "Unknown tool \"" + name + "\"; available tools: " +
                ToolNameList(ctx.table, ToolAudience::kLlm, ctx.engine.config(), ctx.principal),
        .data = nullptr,
        .is_error = true};
  }
  return json{{"content", std::move(out->text)},
              {"data", std::move(out->data)},
              {"is_error", out->is_error}};
}

}  // namespace

bool IsToolFor(const MethodSpec& m, ToolAudience audience, const Config& config) {
  if (m.tool_name.empty()) return false;
  if (m.tool_hidden_under_acl && config.memory.acl_enabled) return false;
  return audience == ToolAudience::kMcp || !m.tool_mcp_only;
}

bool MayCallTool(const MethodSpec& m, const Config& config, const Principal& who) {
  if (m.needs_memory && !config.memory.enabled) return false;
  if (m.tool_hidden_under_acl && config.memory.acl_enabled) return false;
  return !(m.tool_admin_under_acl && !IsAdmin(who, config.memory.acl_enabled));
}

bool IsListedToolFor(const MethodSpec& m, ToolAudience audience, const Config& config,
                     const Principal& who) {
  return IsToolFor(m, audience, config) && MayCallTool(m, config, who);
}

std::string ToolNameList(const MethodTable& table, ToolAudience audience, const Config& config,
                         const Principal& who) {
  std::string out;
  for (const MethodSpec& m : table.All()) {
    if (IsListedToolFor(m, audience, config, who)) out += (out.empty() ? "" : ", ") + m.tool_name;
  }
  return out;
}

std::optional<ToolOutcome> RunTool(const MethodContext& ctx, ToolAudience audience,
                                   std::string_view name, const json& arguments) {
  const MethodSpec* spec = ctx.table.FindTool(name);
  if (spec == nullptr || !IsToolFor(*spec, audience, ctx.engine.config())) return std::nullopt;
  json validated;
  Result<json> r = CallMethod(*spec, ctx, arguments, &validated);
  if (!r.ok()) {
    if (IsServerFault(r.status().code())) {
      ctx.engine.logger().Log(LogLevel::kError,
                              "tool " + spec->tool_name + " failed: " + r.status().message());
      const bool damaged = r.status().code() == StatusCode::kCorruption;
      return ToolOutcome{.text = "Tool " + spec->tool_name + " failed with " +
                                 (damaged ? "damaged stored data" : "an internal error") +
                                 "; see the server log.",
                         .data = nullptr,
                         .is_error = true};
    }
    return ToolOutcome{.text = r.status().message(), .data = nullptr, .is_error = true};
  }
  return ToolOutcome{.text = RenderText(*spec, validated, *r), .data = std::move(*r)};
}

void AddMetaMethods(MethodTable& table) {
  table.Add(
      {.name = "memory.methods",
       .read_only = true,
       .description = "Every JSON-RPC method with its parameter and result schemas.",
       .result_schema = {{"type", "object"}, {"properties", {{"methods", {{"type", "array"}}}}}},
       .handler = HandleMethods,
       .needs_memory = false});
  table.Add({.name = "memory.tools_schema",
             .read_only = true,
             .description = "The LLM tools in OpenAI function-calling form.",
             .result_schema = {{"type", "array"},
                               {"items",
                                {{"type", "object"},
                                 {"properties",
                                  {{"type", {{"const", "function"}}},
                                   {"function", {{"type", "object"}}}}}}}},
             .handler = HandleToolsSchema,
             .needs_memory = false});
  table.Add({.name = "memory.tool_call",
             .description = "Run an LLM tool by name; returns the text for the model, the "
                            "structured result and whether the tool failed.",
             .params = {{.name = "name",
                         .description = "Tool name as listed by memory.tools_schema.",
                         .required = true,
                         .max_bytes = 128},
                        {.name = "arguments",
                         .type = ParamType::kJson,
                         .description = "The tool's arguments (an object, or JSON text "
                                        "holding one); malformed ones fail the tool, not "
                                        "the call.",
                         .default_value = json::object()}},
             .result_schema = ResultObject({{"content", {{"type", "string"}}},
                                            {"data", json::object()},
                                            {"is_error", {{"type", "boolean"}}}}),
             .handler = HandleToolCall,
             // The tool it runs is refused as a failed tool, not as a failed call.
             .needs_memory = false});
}

}  // namespace mnemo::transport

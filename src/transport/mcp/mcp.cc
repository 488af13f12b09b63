#include "transport/mcp/mcp.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <utility>

#include "transport/rpc/jsonrpc.h"
#include "transport/rpc/param_schema.h"

namespace mnemo::transport {
namespace {

constexpr std::string_view kPinnedRulesUri = "mnemo://rules/pinned";
constexpr std::string_view kProfileUri = "mnemo://profile";
// Output schemas and structuredContent exist from this version on.
constexpr std::string_view kStructuredSince = "2025-06-18";
// MCP's code for an unknown resource.
constexpr int kResourceNotFound = -32002;

constexpr const char* kInstructions =
    "mnemo is this user's long-term memory. Search it (memory_search, episodic_search) before "
    "answering questions about the user, their projects or past conversations; store durable "
    "facts and preferences with memory_store; put rules about a tool with tool_rule_put. The "
    "resource mnemo://rules/pinned holds the rules every system prompt must carry.";

// The answer parts: {"result": ...} or {"error": {...}}.
json Answer(json result) { return {{"result", std::move(result)}}; }

json Failure(int code, std::string message) {
  return {{"error", {{"code", code}, {"message", std::move(message)}}}};
}

json ErrorFor(const Status& status, std::string_view method, Logger& logger) {
  return {{"error", ErrorObject(status, method, logger)}};
}

json Envelope(const json& id, json parts) {
  json out = {{"jsonrpc", "2.0"}, {"id", id}};
  for (auto& [k, v] : parts.items()) out[k] = std::move(v);
  return out;
}

const std::string& Version(const McpSession& s) {
  static const std::string kNewest(kMcpProtocolVersions.front());
  return s.protocol_version.empty() ? kNewest : s.protocol_version;
}

bool Structured(const McpSession& s) { return Version(s) >= kStructuredSince; }

bool IsObjectSchema(const json& schema) {
  return schema.is_object() && schema.value("type", json()) == "object";
}

// MCP wants an object for output schemas and structured content.
json OutputSchema(const MethodSpec& m) {
  if (IsObjectSchema(m.result_schema)) return m.result_schema;
  return {
      {"type", "object"}, {"properties", {{"result", m.result_schema}}}, {"required", {"result"}}};
}

json StructuredContent(const MethodSpec& m, json data) {
  if (IsObjectSchema(m.result_schema)) return data;
  return {{"result", std::move(data)}};
}

json ResourceList() {
  return json::array(
      {{{"uri", kPinnedRulesUri},
        {"name", "pinned-rules"},
        {"title", "Pinned tool rules"},
        {"description",
         "The critical and high tool rules (\"never email Sarah\") as the markdown block every "
         "system prompt must carry."},
        {"mimeType", "text/markdown"}},
       {{"uri", kProfileUri},
        {"name", "profile"},
        {"title", "User profile"},
        {"description", "What mnemo knows about the user (preferences, context), as markdown."},
        {"mimeType", "text/markdown"}}});
}

}  // namespace

bool IsMcpProtocolVersion(std::string_view version) {
  return std::find(kMcpProtocolVersions.begin(), kMcpProtocolVersions.end(), version) !=
         kMcpProtocolVersions.end();
}

McpServer::McpServer(Engine& engine, const MethodTable& table) : engine_(engine), table_(table) {}

json McpServer::Parse(std::string_view text, json& error_answer) {
  return ParseRequest(text, error_answer);
}

std::optional<std::string> McpServer::HandleText(std::string_view text, const Principal& who,
                                                 McpSession& session) const {
  json error;
  const json message = Parse(text, error);
  if (message.is_discarded()) return DumpJson(error);
  json answer = HandleJson(message, who, session);
  if (answer.is_null()) return std::nullopt;
  return DumpJson(answer);
}

json McpServer::HandleJson(const json& message, const Principal& who, McpSession& session) const {
  if (!message.is_array()) return HandleOne(message, who, session);
  if (message.empty()) {
    return Envelope(nullptr, Failure(kInvalidRequest, "invalid request: an empty batch"));
  }
  json answers = json::array();
  for (const json& one : message) {
    json a = HandleOne(one, who, session);
    if (!a.is_null()) answers.push_back(std::move(a));
  }
  return answers.empty() ? json() : answers;
}

json McpServer::HandleOne(const json& message, const Principal& who, McpSession& session) const {
  if (!message.is_object()) {
    return Envelope(nullptr,
                    Failure(kInvalidRequest, "invalid request: a message must be a JSON object"));
  }
  const auto id_it = message.find("id");
  const bool has_id = id_it != message.end();
  const json id = has_id ? *id_it : json();
  if (has_id && !(id.is_string() || id.is_number_integer())) {
    return Envelope(nullptr, Failure(kInvalidRequest,
                                     "invalid request: id must be a string or an "
                                     "integer"));
  }
  if (message.value("jsonrpc", json()) != "2.0") {
    return Envelope(id, Failure(kInvalidRequest, "invalid request: \"jsonrpc\" must be \"2.0\""));
  }
  const auto method_it = message.find("method");
  if (method_it == message.end()) {
    // A response to a request of ours: we send none, so there is nothing to do.
    if (message.contains("result") || message.contains("error")) return nullptr;
    return Envelope(id, Failure(kInvalidRequest, "invalid request: no \"method\""));
  }
  if (!method_it->is_string()) {
    return Envelope(id, Failure(kInvalidRequest, "invalid request: \"method\" must be a string"));
  }
  const std::string& method = method_it->get_ref<const std::string&>();
  json params = message.value("params", json::object());
  if (!params.is_object()) {
    if (!has_id) return nullptr;
    return Envelope(id, Failure(kInvalidParams, "invalid params: \"params\" must be an object"));
  }
  if (!has_id) {  // a notification: never answered
    if (method == "notifications/initialized") session.initialized = true;
    return nullptr;
  }
  json parts;
  try {
    parts = Call(method, params, who, session);
  } catch (const std::exception& e) {
    parts = ErrorFor(Internal(e.what()), method, engine_.logger());
  }
  return Envelope(id, std::move(parts));
}

json McpServer::Call(std::string_view method, const json& params, const Principal& who,
                     McpSession& session) const {
  if (method == "initialize") return Initialize(params, session);
  if (method == "ping") return Answer(json::object());
  // The MCP lifecycle: nothing but initialize and ping before initialize
  // has been answered (over HTTP a session exists only after it).
  if (!session.initialize_answered) {
    return Failure(kInvalidRequest, "invalid request: " + std::string(method) +
                                        " before initialize; send initialize first (only "
                                        "initialize and ping are answered until then)");
  }
  if (method == "tools/list") return Answer(ToolsList(who, session));
  if (method == "tools/call") return ToolsCall(params, who, session);
  if (method == "resources/list") return Answer({{"resources", ResourceList()}});
  if (method == "resources/templates/list") {
    return Answer({{"resourceTemplates", json::array()}});
  }
  if (method == "resources/read") return ReadResource(params, who);
  return Failure(kMethodNotFound,
                 "method not found: " + std::string(method) +
                     " (this server offers initialize, ping, tools/list, tools/call, "
                     "resources/list, resources/templates/list, resources/read)");
}

json McpServer::Initialize(const json& params, McpSession& session) const {
  const auto v = params.find("protocolVersion");
  if (v == params.end() || !v->is_string()) {
    return Failure(kInvalidParams, "invalid params: protocolVersion must be a string such as \"" +
                                       std::string(kMcpProtocolVersions.front()) + "\"");
  }
  const std::string& asked = v->get_ref<const std::string&>();
  session.protocol_version =
      IsMcpProtocolVersion(asked) ? asked : std::string(kMcpProtocolVersions.front());
  session.initialize_answered = true;
  return Answer(
      {{"protocolVersion", session.protocol_version},
       {"capabilities",
        {{"tools", {{"listChanged", false}}},
         {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
       {"serverInfo", {{"name", "mnemo"}, {"title", "mnemo"}, {"version", MNEMO_VERSION}}},
       {"instructions", kInstructions}});
}

json McpServer::ToolsList(const Principal& who, const McpSession& session) const {
  json tools = json::array();
  for (const MethodSpec& m : table_.All()) {
    if (!IsListedToolFor(m, ToolAudience::kMcp, engine_.config(), who)) continue;
    json tool = {
        {"name", m.tool_name}, {"description", m.description}, {"inputSchema", ParamsSchema(m)}};
    if (Structured(session)) tool["outputSchema"] = OutputSchema(m);
    tools.push_back(std::move(tool));
  }
  return {{"tools", std::move(tools)}};
}

json McpServer::ToolsCall(const json& params, const Principal& who,
                          const McpSession& session) const {
  const auto name = params.find("name");
  if (name == params.end() || !name->is_string()) {
    return Failure(kInvalidParams, "invalid params: name must be a string (a tool of tools/list)");
  }
  json arguments = params.value("arguments", json::object());
  if (!arguments.is_object()) {
    return Failure(kInvalidParams, "invalid params: arguments must be an object");
  }
  const MethodContext ctx{.engine = engine_, .principal = who, .table = table_};
  std::optional<ToolOutcome> out =
      RunTool(ctx, ToolAudience::kMcp, name->get_ref<const std::string&>(), arguments);
  if (!out) {
    return Failure(kInvalidParams,
                   "unknown tool: " + name->get<std::string>() + " (available: " +
                       ToolNameList(table_, ToolAudience::kMcp, engine_.config(), who) + ")");
  }
  json result = {{"content", json::array({{{"type", "text"}, {"text", out->text}}})},
                 {"isError", out->is_error}};
  if (!out->is_error && Structured(session)) {
    const MethodSpec* spec = table_.FindTool(name->get_ref<const std::string&>());
    result["structuredContent"] = StructuredContent(*spec, std::move(out->data));
  }
  return Answer(std::move(result));
}

json McpServer::ReadResource(const json& params, const Principal& who) const {
  const auto uri_it = params.find("uri");
  if (uri_it == params.end() || !uri_it->is_string()) {
    return Failure(kInvalidParams, "invalid params: uri must be a string");
  }
  const std::string& uri = uri_it->get_ref<const std::string&>();
  const char* method = uri == kPinnedRulesUri ? "memory.tool_rules_for_prompt"
                       : uri == kProfileUri   ? "memory.profile_render"
                                              : nullptr;
  if (method == nullptr) {
    return Failure(kResourceNotFound, "resource not found: " + uri +
                                          " (available: " + std::string(kPinnedRulesUri) + ", " +
                                          std::string(kProfileUri) + ")");
  }
  const MethodSpec* spec = table_.Find(method);
  const MethodContext ctx{.engine = engine_, .principal = who, .table = table_};
  Result<json> r = CallMethod(*spec, ctx, json::object());
  if (!r.ok()) return ErrorFor(r.status(), method, engine_.logger());
  return Answer({{"contents", json::array({{{"uri", uri},
                                            {"mimeType", "text/markdown"},
                                            {"text", r->value("rendered", "")}}})}});
}

}  // namespace mnemo::transport

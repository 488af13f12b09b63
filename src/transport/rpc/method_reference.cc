#include "transport/rpc/method_reference.h"

#include "transport/rpc/param_schema.h"

namespace mnemo::transport {

std::string MethodReferenceMarkdown(const MethodTable& table) {
  std::string out =
      "# JSON-RPC methods and LLM tools\n\n"
      "Generated from the method table (`src/transport/*_methods.cc`) by `mnemo docs methods`; "
      "a test fails when this file drifts. Every method is `POST /rpc` (JSON-RPC 2.0), "
      "`mnemo rpc --stdio`, and `mnemo rpc METHOD JSON`. Tools are listed by "
      "`memory.tools_schema` (OpenAI function-calling form) and run by `memory.tool_call`; MCP "
      "clients (`mnemo mcp`, `/mcp`) get the same tools plus the MCP-only ones from `tools/list` "
      "and run them with `tools/call`.\n\n"
      "Errors: -32700 parse error, -32600 invalid request, -32601 method not found, -32602 "
      "invalid params (`data.field` names the field), -32001 not found, -32002 denied, -32003 "
      "disabled by configuration, -32004 conflict, -32005 unavailable, -32000 internal (with "
      "`data.request_id`).\n\n"
      "| method | tool |\n|---|---|\n";
  for (const MethodSpec& m : table.All()) {
    out += "| `" + m.name + "` | " + (m.tool_name.empty() ? "—" : "`" + m.tool_name + "`") +
           (m.tool_hidden_under_acl ? " (not under ACL)" : "") +
           (m.tool_admin_under_acl ? " (listed for admins only under ACL)" : "") +
           (m.tool_mcp_only ? " (MCP only)" : "") + " |\n";
  }
  for (const MethodSpec& m : table.All()) {
    out += "\n## `" + m.name + "`\n\n" + m.description + "\n\nParams:\n\n```json\n" +
           ParamsSchema(m).dump(2) + "\n```\n\nResult:\n\n```json\n" + m.result_schema.dump(2) +
           "\n```\n";
  }
  return out;
}

namespace {

json AliasesOf(const MethodSpec& m) {
  json aliases = json::object();
  for (const ParamSpec& p : m.params) {
    for (const std::string& a : p.aliases) aliases[a] = p.name;
  }
  return aliases;
}

json ToolAudiences(const MethodSpec& m) {
  json out = json::array();
  if (m.tool_name.empty()) return out;
  if (!m.tool_mcp_only) out.push_back("llm");
  out.push_back("mcp");
  return out;
}

}  // namespace

json MethodListJson(const MethodTable& table) {
  json methods = json::array();
  for (const MethodSpec& m : table.All()) {
    methods.push_back({{"name", m.name},
                       {"description", m.description},
                       {"params", ParamsSchema(m)},
                       {"result", m.result_schema},
                       {"aliases", AliasesOf(m)},
                       {"tool", m.tool_name.empty() ? json(nullptr) : json(m.tool_name)},
                       {"tool_for", ToolAudiences(m)},
                       {"tool_hidden_under_acl", m.tool_hidden_under_acl},
                       {"read_only", m.read_only}});
  }
  return methods;
}

std::string MethodSchemaDocument(const MethodTable& table) {
  json doc = {{"$comment",
               "Generated from the method table by `mnemo docs schema`; a test fails when this "
               "file drifts. The clients in clients/ are generated from it."},
              {"version", MNEMO_VERSION},
              {"methods", MethodListJson(table)}};
  return DumpJson(doc, 2) + "\n";
}

}  // namespace mnemo::transport

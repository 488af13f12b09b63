// The one method table (spec 60): every JSON-RPC method's name, description,
// parameter and result schemas, handler, LLM-tool name and text rendering.
// JSON-RPC dispatch, `memory.methods`, `memory.tools_schema`,
// `memory.tool_call` and the CLI all read this table, so they cannot drift.
//
// Adding a method is one `MethodSpec` in the group file of its concern
// (memory_methods.cc, meta_methods.cc, ...) appended by that file's
// `Add...Methods` function; DefaultMethodTable() calls every group.
//
// Parameters are declared as `ParamSpec`s; the JSON Schema published for them
// is generated from the same declaration that validation uses (param_schema.h).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "mnemo/engine.h"
#include "mnemo/limits.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo::transport {

using nlohmann::json;

// kObjectOrText: an object, or a string holding a JSON object (OpenAI hands
// tool arguments over as JSON text).
enum class ParamType {
  kString,
  kInteger,
  kNumber,
  kBoolean,
  kStringArray,
  kNumberArray,
  kObject,
  kObjectOrText,
  kObjectArray,  // an array of objects, each validated against `fields`
  kJson          // any JSON value; the handler checks it (memory.tool_call's arguments)
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::kString;
  std::string description;
  bool required = false;
  // Strings: must contain a non-whitespace character. Required strings are
  // always non-blank.
  bool non_blank = false;
  size_t max_bytes = 0;               // strings: 0 = no limit; counted in UTF-8 bytes
  std::optional<json> default_value;  // applied before the handler runs
  std::optional<double> minimum;      // integers and numbers
  std::optional<double> maximum;
  std::vector<std::string> allowed;  // strings: an enum
  std::vector<std::string> aliases;  // other accepted names ("content" for "value")
  std::vector<ParamSpec> fields;     // kObjectArray: the fields of each item
};

class MethodTable;

// What a handler may use: the engine's services (engine.memory(), ...),
// which check the request and whether memory is enabled. The principal
// comes from the transport.
struct MethodContext {
  Engine& engine;
  const Principal& principal;
  const MethodTable& table;
};

// `params` are already validated: aliases resolved to canonical names,
// defaults applied, types checked. The call owns them: a handler may move a
// large text out (memory.turn_complete's messages) instead of copying it,
// but not a field its renderer or the audit reads (namespace, key, category).
using MethodHandler = std::function<Result<json>(const MethodContext&, json& params)>;
// The short text for the model (and the CLI's human output) from the
// validated params and the result.
using TextRenderer = std::function<std::string(const json& params, const json& result)>;

struct MethodSpec {
  std::string name;  // "memory.store"
  // Changes nothing but statistics (access counts): a client may send it
  // again when no answer came (docs/schema.json's `read_only`; the clients
  // retry these and nothing else).
  bool read_only = false;
  std::string description;
  std::vector<ParamSpec> params;
  json result_schema = json::object();
  MethodHandler handler;
  TextRenderer render;                 // null: the result JSON is the text
  std::string tool_name;               // non-empty: a tool under this name
  bool tool_hidden_under_acl = false;  // memory_recall (spec 10)
  // Its service refuses a user under ACL (kPermissionDenied): the tool lists
  // leave it out for users. MayCallTool's contract; a test calls every tool
  // as a user and as an admin to keep this flag and the services agreeing.
  bool tool_admin_under_acl = false;
  bool tool_mcp_only = false;  // an MCP tool, not in the LLM list (spec 60)
  // Refused with kDisabled while memory.enabled = false (by the service its
  // handler calls), so the tool lists leave it out then; false for the
  // methods about the table itself and for the path guard.
  bool needs_memory = true;
};

// Who lists and calls tools: the LLM tool list (memory.tools_schema,
// memory.tool_call) or MCP (tools/list, tools/call). Spec 60's table.
enum class ToolAudience { kLlm, kMcp };

// Whether `m` is a tool for `audience` under `config` (RunTool runs it).
bool IsToolFor(const MethodSpec& m, ToolAudience audience, const Config& config);

// Whether `who` may call tool `m` under `config`: the tool lists
// (memory.tools_schema, MCP tools/list, "unknown tool" messages) offer `who`
// exactly the tools of IsToolFor for which this holds, so no listed tool is
// refused for who the caller is (-32002) or what is switched off (-32003).
bool MayCallTool(const MethodSpec& m, const Config& config, const Principal& who);

// IsToolFor and MayCallTool: a tool the list offers `who`.
bool IsListedToolFor(const MethodSpec& m, ToolAudience audience, const Config& config,
                     const Principal& who);

// A tool call's outcome: the text for the model, the method's result (null
// on failure) and whether the tool failed.
struct ToolOutcome {
  std::string text;
  json data;
  bool is_error = false;
};

// Runs tool `name` with `arguments` (validated like the method's params). A
// failing tool (bad arguments, not found, denied, ...) is an outcome with
// is_error and a readable message, never an error of the call; an internal
// error is logged and reported without details. nullopt when `name` is not
// a tool for `audience` under the engine's config.
std::optional<ToolOutcome> RunTool(const MethodContext& ctx, ToolAudience audience,
                                   std::string_view name, const json& arguments);

// The tool names listed for `who` and `audience`, comma-separated (for
// "unknown tool").
std::string ToolNameList(const MethodTable& table, ToolAudience audience, const Config& config,
                         const Principal& who);

class MethodTable {
 public:
  // Adds a method; names and tool names must be unique (checked by assert).
  void Add(MethodSpec spec);
  const MethodSpec* Find(std::string_view name) const;
  const MethodSpec* FindTool(std::string_view tool_name) const;
  const std::vector<MethodSpec>& All() const { return methods_; }
  // Comma-separated method names, for "unknown method" messages.
  std::string NameList() const;

 private:
  std::vector<MethodSpec> methods_;
};

// Every method group of mnemo, built once; thread-safe to read.
const MethodTable& DefaultMethodTable();

// Method groups (one file each).
// `context_turns` (0..kMaxContextTurns, default 0) of memory.episodic_search
// and memory.recall: one definition for both.
ParamSpec ContextTurnsParam();
// Any RFC 3339 date-time parameter: non-blank, at most kMaxTimeBytes.
inline constexpr size_t kMaxTimeBytes = 64;
ParamSpec TimeParam(std::string name, std::string description);
// `since` and `until` (RFC 3339; [since, until)) of memory.search,
// memory.episodic_search, memory.recall and memory.context_build, and the
// TimeWindow they give (kInvalidArgument naming the field when one is not
// an RFC 3339 date-time).
ParamSpec SinceParam();
ParamSpec UntilParam();
Result<TimeWindow> TimeWindowOf(const json& params);
// `as_of` (RFC 3339) of memory.profile and memory.graph_query: what was true
// then. TimeOf reads any one such field (nullopt when absent).
ParamSpec AsOfParam();
Result<std::optional<TimeMs>> TimeOf(const json& params, const char* field);
// `recency_weight` (0-1, default 0) of memory.search, memory.episodic_search
// and memory.recall: one definition for all.
ParamSpec RecencyWeightParam();
// `agent_id` as a filter: only the turns of that agent.
ParamSpec AgentIdFilterParam();

void AddMemoryMethods(MethodTable& table);
void AddMetaMethods(MethodTable& table);
void AddRuleMethods(MethodTable& table);
void AddTurnMethods(MethodTable& table);
void AddEpisodicMethods(MethodTable& table);
void AddErasureMethods(MethodTable& table);
void AddGraphMethods(MethodTable& table);
void AddToolMethods(MethodTable& table);
void AddDocumentMethods(MethodTable& table);
void AddContextMethods(MethodTable& table);
void AddContextBuildMethods(MethodTable& table);

// The schema of a result object: its properties, each always present
// ("required", so the generated clients type them as present) but those
// named in `optional`.
json ResultObject(json properties, const std::vector<std::string>& optional = {});

// Validates `params` against the spec and then runs the handler. Invalid
// params are kInvalidArgument with the field set. Handler exceptions become
// kInternal. When `validated` is given it receives the validated params (for
// RenderText), as the handler left them. `params` is taken by value: a
// caller that moves it in hands its texts down without a copy. The service
// a handler calls audits the operation; a call during which no service wrote
// an audit line (refused params, the methods about the table) is audited
// here, by the method's name and the params' address.
Result<json> CallMethod(const MethodSpec& spec, const MethodContext& ctx, json params,
                        json* validated = nullptr);

// The text rendering of a result (spec.render, else the compact JSON).
std::string RenderText(const MethodSpec& spec, const json& params, const json& result);

// The JSON limits of a request body and of JSON inside one (base/json_limits.h).
using internal::JsonDepthWithin;
using internal::kMaxJsonDepth;

// Compact JSON that never throws on invalid UTF-8 (replaced by U+FFFD).
std::string DumpJson(const json& j, int indent = -1);

}  // namespace mnemo::transport

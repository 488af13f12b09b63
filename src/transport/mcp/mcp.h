// The MCP server (spec 60, "MCP"): Model Context Protocol messages over the
// one method table, so MCP clients get the same tools, schemas, principals,
// ACL and audit as JSON-RPC. Transport-neutral: `mnemo mcp` (stdio, one
// message per line) and POST /mcp on `mnemo serve` (streamable HTTP) use it.
//
// - initialize negotiates the protocol version: the client's when it is one
//   of kMcpProtocolVersions, else the newest; capabilities are tools and
//   resources (no list-change notifications, no subscriptions).
// - tools/list and tools/call come from the method table (IsToolFor with
//   ToolAudience::kMcp; tools/list only what the caller may call,
//   IsListedToolFor): input schemas always; from 2025-06-18 on, output
//   schemas and structuredContent too (a method whose result is not an
//   object is wrapped as {"result": ...}). A failing tool is a result with
//   isError; an unknown tool is a protocol error (-32602).
// - resources/list, resources/read: mnemo://rules/pinned (the pinned rules
//   block of spec 30, every tool) and mnemo://profile, as markdown, for the
//   caller; resources/templates/list is empty.
// - The lifecycle: until initialize has been answered, every request but
//   initialize and ping is refused (-32600).
// - ping; notifications (initialized, cancelled, ...) are accepted and need
//   no answer. Requests run to completion as they arrive, so a cancellation
//   can only name a request that has already been answered and is ignored.
// - Unknown methods answer -32601; malformed messages -32700/-32600/-32602.
//   A JSON-RPC batch (2025-03-26) is answered as a batch.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "mnemo/types.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {

// Newest first: the versions the official TypeScript SDK (1.32) negotiates.
inline constexpr std::array<std::string_view, 5> kMcpProtocolVersions = {
    "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"};

bool IsMcpProtocolVersion(std::string_view version);

// What one client connection negotiated.
struct McpSession {
  std::string protocol_version;      // empty until initialize: the newest applies
  bool initialize_answered = false;  // every method is refused until then but ping
  bool initialized = false;          // notifications/initialized arrived
};

// Thread-safe: one server serves many sessions at once (each session is
// used by one thread at a time).
class McpServer {
 public:
  explicit McpServer(Engine& engine, const MethodTable& table = DefaultMethodTable());

  // A message (or batch) as text to the answer's text; nullopt when nothing
  // is answered (notifications, responses). Never throws.
  std::optional<std::string> HandleText(std::string_view text, const Principal& who,
                                        McpSession& session) const;

  // The message of `text`; on failure a discarded value, with the error
  // answer (parse error, too deep) in `error_answer`.
  static nlohmann::json Parse(std::string_view text, nlohmann::json& error_answer);

  // Same as HandleText for a parsed message; null when nothing is answered.
  nlohmann::json HandleJson(const nlohmann::json& message, const Principal& who,
                            McpSession& session) const;

 private:
  nlohmann::json HandleOne(const nlohmann::json& message, const Principal& who,
                           McpSession& session) const;
  nlohmann::json Call(std::string_view method, const nlohmann::json& params, const Principal& who,
                      McpSession& session) const;
  nlohmann::json Initialize(const nlohmann::json& params, McpSession& session) const;
  nlohmann::json ToolsList(const Principal& who, const McpSession& session) const;
  nlohmann::json ToolsCall(const nlohmann::json& params, const Principal& who,
                           const McpSession& session) const;
  nlohmann::json ReadResource(const nlohmann::json& params, const Principal& who) const;

  Engine& engine_;
  const MethodTable& table_;
};

}  // namespace mnemo::transport

// JSON-RPC 2.0 over the method table (spec 60): single requests, batches and
// notifications. Transport-neutral: HTTP, stdio and the CLI use it alike.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "mnemo/status.h"
#include "transport/rpc/method_table.h"

namespace mnemo::transport {

inline constexpr int kParseError = -32700;
inline constexpr int kInvalidRequest = -32600;
inline constexpr int kMethodNotFound = -32601;
inline constexpr int kInvalidParams = -32602;

// The one mapping of StatusCode to JSON-RPC error codes:
// invalid_argument -32602, not_found -32001, permission_denied -32002,
// disabled -32003, conflict -32004, unavailable -32005, internal and
// corruption -32000.
int JsonRpcErrorCode(StatusCode code);

// Called once per executed call: method ("" when unknown), outcome ("ok",
// a StatusCodeName, "parse_error", "invalid_request", "method_not_found") and
// the time it took. Must be thread-safe.
using CallObserver =
    std::function<void(std::string_view method, std::string_view outcome, double seconds)>;

struct DispatcherOptions {
  CallObserver observer;
  // > 0: calls of a batch that would start past this budget answer -32005
  // instead of running (the engine has no cancellation point inside a call).
  std::chrono::milliseconds request_timeout{0};
};

// Thread-safe: one dispatcher serves many threads.
class Dispatcher {
 public:
  explicit Dispatcher(Engine& engine, const MethodTable& table = DefaultMethodTable(),
                      DispatcherOptions options = {});

  // A request body (one message or a batch) to a response body; nullopt when
  // there is nothing to answer (only notifications). Never throws: bad JSON
  // (including invalid UTF-8) is a -32700 response.
  std::optional<std::string> HandleText(std::string_view body, const Principal& who) const;

  // Same for a parsed message; null when there is nothing to answer. The
  // message is taken by value: its params are handed down by move.
  nlohmann::json HandleJson(nlohmann::json message, const Principal& who) const;

  // One call without the envelope (CLI, `mnemo rpc METHOD`). An unknown
  // method is kInvalidArgument naming it. `validated` receives the checked
  // params (for RenderText).
  Result<nlohmann::json> Call(std::string_view method, nlohmann::json params, const Principal& who,
                              nlohmann::json* validated = nullptr) const;

  const MethodTable& Table() const { return table_; }

 private:
  using Clock = std::chrono::steady_clock;
  // Moves the params out of `message`.
  nlohmann::json HandleOne(nlohmann::json& message, const Principal& who,
                           Clock::time_point deadline) const;
  void Observe(std::string_view method, std::string_view outcome, Clock::time_point start) const;

  Engine& engine_;
  const MethodTable& table_;
  DispatcherOptions options_;
};

// {"code", "message", "data": {"field"?, "request_id"}} for a failed Status.
// Server faults (IsServerFault: internal errors, damaged data) are logged to
// `logger` with the request id and answered with a generic message (no SQL,
// no stack traces, no paths).
nlohmann::json ErrorObject(const Status& status, std::string_view method = {},
                           Logger& logger = *StderrLogger());

// The error response envelope for a protocol error.
nlohmann::json ErrorResponse(const nlohmann::json& id, int code, std::string message);

// The one parse of a request body on every JSON-RPC entry (HTTP /rpc, stdio,
// MCP over HTTP and stdio): internal::ParseStrictJson. On success the
// message; else a discarded value and, in `error_response`, the answer:
// -32700 for text that is not JSON, -32600 for JSON nested too deep or an
// object holding one key twice (naming the key).
nlohmann::json ParseRequest(std::string_view body, nlohmann::json& error_response);

}  // namespace mnemo::transport

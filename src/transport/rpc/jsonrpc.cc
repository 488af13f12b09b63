#include "transport/rpc/jsonrpc.h"

#include <cstdio>
#include <exception>

#include "base/request_trace.h"
#include "base/uuid.h"

namespace mnemo::transport {
namespace {

// The body parse of the request HandleText parsed last on this thread, for
// the "parse" stage of the next HandleOne (its first request of a batch).
thread_local double body_parse_ms = 0;

bool ValidId(const json& id) { return id.is_string() || id.is_number() || id.is_null(); }

json Envelope(const json& id) { return {{"jsonrpc", "2.0"}, {"id", id}}; }

std::string NewRequestId() { return internal::NewUuidV4().substr(0, 8); }

}  // namespace

int JsonRpcErrorCode(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument: return kInvalidParams;
    case StatusCode::kNotFound: return -32001;
    case StatusCode::kPermissionDenied: return -32002;
    case StatusCode::kDisabled: return -32003;
    case StatusCode::kConflict: return -32004;
    case StatusCode::kUnavailable: return -32005;
    case StatusCode::kOk:
    case StatusCode::kCorruption:
    case StatusCode::kInternal: return -32000;
  }
  return -32000;
}

json ErrorObject(const Status& status, std::string_view method, Logger& logger) {
  std::string request_id = NewRequestId();
  json data = {{"request_id", request_id}};
  if (!status.field().empty()) data["field"] = status.field();
  std::string message = status.message();
  if (IsServerFault(status.code()) || status.code() == StatusCode::kOk) {
    logger.Log(LogLevel::kError, "request " + request_id + " (" + std::string(method) +
                                     ") failed: " + status.message());
    message = std::string(status.code() == StatusCode::kCorruption ? "stored data is damaged"
                                                                   : "internal error") +
              "; the server log has the details under request id " + request_id;
  }
  return {{"code", JsonRpcErrorCode(status.code())},
          {"message", std::move(message)},
          {"data", std::move(data)}};
}

json ParseRequest(std::string_view body, json& error_response) {
  internal::JsonTextError error;
  json message = internal::ParseStrictJson(body, error);
  switch (error.problem) {
    case internal::JsonTextProblem::kNone: return message;
    case internal::JsonTextProblem::kSyntax:
      error_response = ErrorResponse(nullptr, kParseError, "parse error: " + error.message);
      break;
    case internal::JsonTextProblem::kTooDeep:
    case internal::JsonTextProblem::kDuplicateKey:
      error_response = ErrorResponse(nullptr, kInvalidRequest, "invalid request: " + error.message);
      break;
  }
  return json::value_t::discarded;
}

json ErrorResponse(const json& id, int code, std::string message) {
  json r = Envelope(id);
  r["error"] = {
      {"code", code}, {"message", std::move(message)}, {"data", {{"request_id", NewRequestId()}}}};
  return r;
}

Dispatcher::Dispatcher(Engine& engine, const MethodTable& table, DispatcherOptions options)
    : engine_(engine), table_(table), options_(std::move(options)) {}

void Dispatcher::Observe(std::string_view method, std::string_view outcome,
                         Clock::time_point start) const {
  if (!options_.observer) return;
  options_.observer(method, outcome, std::chrono::duration<double>(Clock::now() - start).count());
}

std::optional<std::string> Dispatcher::HandleText(std::string_view body,
                                                  const Principal& who) const {
  json error;
  const auto parse_start = Clock::now();
  json message = ParseRequest(body, error);
  body_parse_ms = std::chrono::duration<double, std::milli>(Clock::now() - parse_start).count();
  if (message.is_discarded()) {
    Observe("", error["error"]["code"] == kParseError ? "parse_error" : "invalid_request",
            Clock::now());
    return DumpJson(error);
  }
  json response = HandleJson(std::move(message), who);
  if (response.is_null()) return std::nullopt;
  return DumpJson(response);
}

json Dispatcher::HandleJson(json message, const Principal& who) const {
  Clock::time_point deadline = Clock::time_point::max();
  if (options_.request_timeout.count() > 0) deadline = Clock::now() + options_.request_timeout;
  if (!message.is_array()) return HandleOne(message, who, deadline);
  if (message.empty()) {
    Observe("", "invalid_request", Clock::now());
    return ErrorResponse(nullptr, kInvalidRequest,
                         "invalid request: a batch must contain at least one request");
  }
  json responses = json::array();
  for (json& m : message) {
    json r = HandleOne(m, who, deadline);
    if (!r.is_null()) responses.push_back(std::move(r));
  }
  if (responses.empty()) return nullptr;
  return responses;
}

json Dispatcher::HandleOne(json& m, const Principal& who, Clock::time_point deadline) const {
  const auto start = Clock::now();
  internal::RequestTrace trace;
  trace.Add("parse", std::exchange(body_parse_ms, 0.0));
  auto invalid = [&](const json& id, const std::string& why) {
    Observe("", "invalid_request", start);
    return ErrorResponse(id, kInvalidRequest, "invalid request: " + why);
  };
  if (!m.is_object()) return invalid(nullptr, "each request must be a JSON object");
  auto id_it = m.find("id");
  const bool notification = id_it == m.end();
  json id = notification ? json(nullptr) : *id_it;
  if (!ValidId(id)) return invalid(nullptr, "\"id\" must be a string, a number or null");
  auto version = m.find("jsonrpc");
  if (version == m.end() || *version != "2.0") {
    return invalid(id, "\"jsonrpc\" must be \"2.0\"");
  }
  auto method_it = m.find("method");
  if (method_it == m.end() || !method_it->is_string()) {
    return invalid(id, "\"method\" must be a string such as \"memory.store\"");
  }
  const std::string& method = method_it->get_ref<const std::string&>();
  auto params_it = m.find("params");
  // Moved, not copied: the params hold the request's large texts (a turn's
  // user_message), which go down to the handler without a copy.
  json params = params_it == m.end() ? json() : std::move(*params_it);
  if (!params.is_null() && !params.is_object() && !params.is_array()) {
    return invalid(id, "\"params\" must be an object");
  }
  const MethodSpec* spec = table_.Find(method);
  if (spec == nullptr) {
    Observe("", "method_not_found", start);
    if (notification) return nullptr;
    return ErrorResponse(
        id, kMethodNotFound,
        "method not found: \"" + method + "\"; memory.methods lists the available methods");
  }
  Result<json> result = Clock::now() > deadline
                            ? Result<json>(Unavailable("request deadline exceeded before " +
                                                       method + " ran; send fewer calls"))
                            : Call(method, std::move(params), who);
  const std::string_view outcome = result.ok() ? "ok" : StatusCodeName(result.status().code());
  Observe(method, outcome, start);
  // One debug line per request: method, principal, outcome, time by stage;
  // never params or results (MNEMO_LOG=debug, docs/architecture.md).
  engine_.logger().Log(LogLevel::kDebug, "request " + method + " by " + who.name + ": " +
                                             std::string(outcome) + " in " +
                                             internal::FormatMs(trace.ElapsedMs()) + " (" +
                                             trace.Summary() + ")");
  if (notification) return nullptr;
  json response = Envelope(id);
  if (result.ok()) {
    response["result"] = std::move(result).value();
  } else {
    response["error"] = ErrorObject(result.status(), method, engine_.logger());
  }
  return response;
}

Result<json> Dispatcher::Call(std::string_view method, json params, const Principal& who,
                              json* validated) const {
  const MethodSpec* spec = table_.Find(method);
  if (spec == nullptr) {
    return InvalidArgument(
        "unknown method \"" + std::string(method) + "\"; available: " + table_.NameList(),
        "method");
  }
  MethodContext ctx{engine_, who, table_};
  return CallMethod(*spec, ctx, std::move(params), validated);
}

}  // namespace mnemo::transport

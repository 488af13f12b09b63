#include "transport/http/http_server.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

#include "base/sha256.h"
#include "base/uuid.h"
#include "transport/http/http_event_loop.h"
#include "transport/http/http_message.h"
#include "transport/http/inspector.h"
#include "transport/http/metrics.h"
#include "transport/http/request_guard.h"
#include "transport/http/tls.h"
#include "transport/mcp/mcp.h"
#include "transport/rpc/jsonrpc.h"

namespace mnemo::transport {
namespace {

constexpr const char* kJson = "application/json";

std::string ProtocolError(int code, std::string message) {
  return DumpJson(ErrorResponse(nullptr, code, std::move(message)));
}

bool HasBody(const HttpRequest& req) {
  const std::string length = req.Header("Content-Length");
  return req.HasHeader("Transfer-Encoding") ||
         (!length.empty() && length.find_first_not_of('0') != std::string::npos);
}

bool IsJsonContentType(const std::string& type) {
  std::string_view t = type;
  return t.substr(0, t.find(';')) == kJson;
}

// MCP sessions of streamable HTTP: the id handed out by initialize (header
// Mcp-Session-Id) to what the session negotiated and whose it is. Bounded
// per principal (kMaxMcpSessionsPerPrincipal): a principal's initialize past
// it evicts that principal's least recently used session (its client gets
// 404 and initializes again, as the protocol asks), never another's, so one
// principal's flood cannot end another's session. Principals come from the
// configuration (tokens, --principal), so the table is bounded in all.
class McpSessions {
 public:
  // Session ids grant the session: from a cryptographic generator.
  Result<std::string> Create(const std::string& owner, const McpSession& state) {
    MNEMO_ASSIGN_OR_RETURN(std::string id, internal::NewSecureUuidV4());
    std::lock_guard lock(mu_);
    std::list<std::string>& order = order_[owner];
    if (order.size() >= kMaxMcpSessionsPerPrincipal) {
      map_.erase(order.back());
      order.pop_back();
    }
    order.push_front(id);
    map_.emplace(id, Entry{owner, state, order.begin()});
    return id;
  }

  // The session's state when `id` exists and is `owner`'s.
  std::optional<McpSession> Find(const std::string& id, const std::string& owner) {
    std::lock_guard lock(mu_);
    auto it = map_.find(id);
    if (it == map_.end() || it->second.owner != owner) return std::nullopt;
    std::list<std::string>& order = order_[owner];
    order.splice(order.begin(), order, it->second.position);
    return it->second.state;
  }

  void Update(const std::string& id, const McpSession& state) {
    std::lock_guard lock(mu_);
    auto it = map_.find(id);
    if (it != map_.end()) it->second.state = state;
  }

  bool Erase(const std::string& id, const std::string& owner) {
    std::lock_guard lock(mu_);
    auto it = map_.find(id);
    if (it == map_.end() || it->second.owner != owner) return false;
    order_[owner].erase(it->second.position);
    map_.erase(it);
    return true;
  }

 private:
  struct Entry {
    std::string owner;
    McpSession state;
    std::list<std::string>::iterator position;  // in order_[owner]
  };
  std::mutex mu_;
  // Each principal's session ids, most recently used first.
  std::unordered_map<std::string, std::list<std::string>> order_;
  std::unordered_map<std::string, Entry> map_;
};

bool IsInitialize(const json& message) {
  return message.is_object() && message.value("method", json()) == "initialize";
}

// The metrics label of an MCP message: "mcp/<method>" for the methods the
// server offers, "" (reported as unknown) otherwise, so clients cannot grow
// the label set.
std::string McpMetricsLabel(const json& message) {
  static constexpr std::string_view kKnown[] = {"initialize",
                                                "ping",
                                                "tools/list",
                                                "tools/call",
                                                "resources/list",
                                                "resources/read",
                                                "resources/templates/list"};
  if (!message.is_object()) return "";
  const auto it = message.find("method");
  if (it == message.end() || !it->is_string()) return "";
  const std::string& method = it->get_ref<const std::string&>();
  for (const std::string_view known : kKnown) {
    if (method == known) return "mcp/" + method;
  }
  return "";
}

// The versions of kMcpProtocolVersions, comma-separated.
std::string McpVersionList() {
  std::string out;
  for (const std::string_view v : kMcpProtocolVersions) {
    if (!out.empty()) out += ", ";
    out += v;
  }
  return out;
}

// "ok", "tool_error" (a tools/call result with isError) or "error".
std::string_view McpOutcome(const json& answer) {
  if (!answer.is_object() || answer.contains("error")) return "error";
  const json& result = answer["result"];
  return result.is_object() && result.value("isError", false) ? "tool_error" : "ok";
}

}  // namespace

Result<ListenAddress> ParseListen(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument("listen address \"" + std::string(text) + "\" is invalid: " + why +
                               "; use host:port such as 127.0.0.1:8765 or [::1]:8765",
                           "listen");
  };
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad("no port");
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  } else if (host.find(':') != std::string_view::npos) {
    return bad("put IPv6 addresses in brackets");
  }
  if (host.empty()) return bad("no host");
  int port = -1;
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || ptr != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return bad("the port must be 0-65535");
  }
  return ListenAddress{std::string(host), port};
}

bool IsLoopback(std::string_view host) {
  return host == "localhost" || host == "::1" || host.substr(0, 4) == "127.";
}

Result<HttpServerOptions> HttpServerOptionsFromConfig(const Config& config,
                                                      std::string_view listen_override) {
  std::string_view listen = listen_override.empty() ? config.server.listen : listen_override;
  MNEMO_ASSIGN_OR_RETURN(ListenAddress address, ParseListen(listen));
  if (!IsLoopback(address.host) && config.security.tokens.empty()) {
    return PermissionDenied("refusing to listen on " + std::string(listen) +
                            ": a non-loopback address needs bearer tokens in "
                            "[[security.tokens]] so that callers are authenticated; add tokens "
                            "or listen on 127.0.0.1");
  }
  HttpServerOptions o;
  MNEMO_ASSIGN_OR_RETURN(o.tls, TlsFromConfig(config));
  if (!IsLoopback(address.host) && !o.tls && !config.server.allow_plaintext) {
    return PermissionDenied("refusing to listen on " + std::string(listen) +
                            " without TLS: bearer tokens would cross the network in clear text; "
                            "set server.tls_cert and server.tls_key (PEM files), or set "
                            "server.allow_plaintext = true to accept that on purpose");
  }
  o.listen = address;
  o.max_body_bytes = config.server.max_body_bytes;
  o.workers = config.server.workers;
  o.queue = config.server.queue;
  o.request_timeout_ms = config.server.request_timeout_ms;
  o.idle_timeout_ms = config.server.idle_timeout_ms;
  o.max_connections = config.server.max_connections;
  o.max_connections_per_client = config.server.max_connections_per_client;
  o.principal = ProcessPrincipal(config, "");
  o.tokens = config.security.tokens;
  MNEMO_RETURN_IF_ERROR(
      CheckGuardLists(config.server.allowed_hosts, config.server.allowed_origins));
  o.allowed_hosts = config.server.allowed_hosts;
  o.allowed_origins = config.server.allowed_origins;
  return o;
}

struct HttpServer::Impl final : HttpHandler {
  Impl(Engine& e, HttpServerOptions o)
      : engine(e),
        options(std::move(o)),
        dispatcher(e, DefaultMethodTable(),
                   DispatcherOptions{
                       .observer = [this](std::string_view m, std::string_view outcome,
                                          double s) { metrics.RecordCall(m, outcome, s); },
                       .request_timeout = std::chrono::milliseconds(options.request_timeout_ms)}),
        mcp(e),
        loop(EventLoopOptions{.request_timeout_ms = options.request_timeout_ms,
                              .idle_timeout_ms = options.idle_timeout_ms,
                              .max_connections = options.max_connections,
                              .max_connections_per_client = options.max_connections_per_client,
                              .workers = options.workers,
                              .queue = options.queue,
                              .limits = {.max_body_bytes =
                                             static_cast<size_t>(options.max_body_bytes)},
                              .tls = options.tls},
             *this) {}

  std::optional<HttpResponse> CheckHead(const HttpRequest& head) override;
  HttpResponse Handle(const HttpRequest& req) override;
  HttpResponse Refusal(int status, const std::string& message) override;
  void Responded(int status) override { metrics.RecordHttp(status); }

  // The caller of `req`, or nullopt (and a 401 in `res`) when tokens are
  // configured and the request carries none that matches.
  std::optional<Principal> Authenticate(const HttpRequest& req, HttpResponse& res) const;
  HttpResponse Route(const HttpRequest& req);
  void HandleRpc(const HttpRequest& req, HttpResponse& res);
  void HandleMcp(const HttpRequest& req, HttpResponse& res);
  void HandleMcpDelete(const HttpRequest& req, HttpResponse& res);
  void HandleMetrics(const HttpRequest& req, HttpResponse& res);

  Engine& engine;
  HttpServerOptions options;
  Metrics metrics;
  Dispatcher dispatcher;
  McpServer mcp;
  McpSessions mcp_sessions;
  // Set by Bind (it needs the bound port), read by the loop thread only after.
  std::optional<RequestGuard> guard;
  HttpEventLoop loop;  // last: its workers use everything above
};

HttpResponse HttpServer::Impl::Refusal(int status, const std::string& message) {
  HttpResponse res;
  res.close = true;
  if (status == 503) res.AddHeader("Retry-After", "1");
  res.Set(status, ProtocolError(status == 503 ? -32005 : kInvalidRequest, message), kJson);
  return res;
}

// Before the body is read: a caller without a valid token, a body where
// none is taken and a POST that is not JSON are refused here, so none of
// them makes the server buffer a body.
std::optional<HttpResponse> HttpServer::Impl::CheckHead(const HttpRequest& head) {
  if (std::optional<RequestGuard::Refusal> refused = guard->Check(head)) {
    return Refusal(refused->status, refused->message);
  }
  const bool takes_body = head.method == "POST" && (head.path == "/rpc" || head.path == "/mcp");
  HttpResponse res;
  if (HasBody(head) && !takes_body) {
    res.Set(400, "only POST /rpc and POST /mcp take a request body\n", "text/plain");
    return res;
  }
  if (!takes_body) return std::nullopt;
  if (!Authenticate(head, res)) return res;
  if (!IsJsonContentType(head.Header("Content-Type"))) {
    res.Set(415,
            ProtocolError(kInvalidRequest,
                          "POST " + head.path + " needs Content-Type: application/json"),
            kJson);
    return res;
  }
  return std::nullopt;
}

HttpResponse HttpServer::Impl::Handle(const HttpRequest& req) {
  try {
    return Route(req);
  } catch (const std::exception&) {  // a last line: nothing below should throw
    HttpResponse res;
    res.Set(500, ProtocolError(-32000, "internal error"), kJson);
    return res;
  }
}

HttpResponse HttpServer::Impl::Route(const HttpRequest& req) {
  HttpResponse res;
  const std::string& m = req.method;
  if (req.path == "/rpc" && m == "POST") {
    HandleRpc(req, res);
  } else if (req.path == "/mcp" && m == "POST") {
    HandleMcp(req, res);
  } else if (req.path == "/mcp" && m == "DELETE") {
    HandleMcpDelete(req, res);
  } else if (req.path == "/mcp" && m == "GET") {
    res.AddHeader("Allow", "POST, DELETE");
    res.Set(405, "this server offers no server-initiated stream: POST MCP messages\n",
            "text/plain");
  } else if (req.path == "/healthz" && m == "GET") {
    json body = {
        {"status", "ok"}, {"version", MNEMO_VERSION}, {"backend", engine.config().memory.backend}};
    res.Set(200, DumpJson(body), kJson);
  } else if (req.path == "/metrics" && m == "GET") {
    HandleMetrics(req, res);
  } else if (std::optional<HttpResponse> page =
                 m == "GET" ? InspectorResponse(req.path) : std::nullopt) {
    res = std::move(*page);  // the memory inspector (transport/http/inspector.h)
  } else {
    res.Set(404,
            "no such endpoint: the daemon serves POST /rpc, /mcp, GET /healthz, /metrics and "
            "the inspector at /\n",
            "text/plain");
  }
  return res;
}

std::optional<Principal> HttpServer::Impl::Authenticate(const HttpRequest& req,
                                                        HttpResponse& res) const {
  if (options.tokens.empty()) return options.principal;
  const std::string header = req.Header("Authorization");
  // "Bearer" 1*SP token (RFC 9110 11.4, RFC 6750 2.1); the scheme is
  // case-insensitive.
  const size_t space = header.find(' ');
  const size_t token_at =
      space == std::string::npos ? std::string::npos : header.find_first_not_of(' ', space);
  if (token_at != std::string::npos && space == 6 &&
      std::equal(header.begin(), header.begin() + 6, "bearer",
                 [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })) {
    // Compare digests, each in constant time, and never log the token.
    const std::string digest = internal::Sha256Hex(std::string_view(header).substr(token_at));
    const TokenConfig* match = nullptr;
    for (const TokenConfig& t : options.tokens) {
      std::string want = t.sha256;
      std::transform(want.begin(), want.end(), want.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (internal::ConstantTimeEquals(digest, want) && match == nullptr) match = &t;
    }
    if (match != nullptr) {
      return Principal{match->principal, ConfiguredRole(engine.config(), match->principal)};
    }
  }
  // An audit line per refused caller (spec 10 "Audit"): the endpoint and
  // whether a token was sent, never the token.
  engine.admin().Audit(Principal{.name = "", .role = Role::kUser},
                       AuditEvent{.method = "http.authenticate",
                                  .ns = req.method + " " + req.path,
                                  .key = header.empty() ? "no_token" : "invalid_token",
                                  .outcome = "denied"});
  res.AddHeader("WWW-Authenticate", "Bearer");
  res.close = true;
  res.Set(401,
          ProtocolError(-32002,
                        "missing or invalid bearer token: send Authorization: Bearer "
                        "<token> with a token listed in [[security.tokens]]"),
          kJson);
  return std::nullopt;
}

void HttpServer::Impl::HandleRpc(const HttpRequest& req, HttpResponse& res) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  std::optional<std::string> out = dispatcher.HandleText(req.body, *caller);
  if (!out) {
    res.status = 204;
    return;
  }
  res.Set(200, std::move(*out), kJson);
}

// Streamable HTTP (spec 60): every POST is answered with a JSON body (or 202
// for notifications and responses); no server-initiated stream, so GET is
// 405. initialize creates the session; every later request names it.
void HttpServer::Impl::HandleMcp(const HttpRequest& req, HttpResponse& res) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  const std::string version = req.Header("MCP-Protocol-Version");
  if (!version.empty() && !IsMcpProtocolVersion(version)) {
    res.Set(400,
            ProtocolError(kInvalidRequest, "unsupported MCP-Protocol-Version \"" + version +
                                               "\"; this server speaks " + McpVersionList()),
            kJson);
    return;
  }
  json parse_error;
  const json message = McpServer::Parse(req.body, parse_error);
  if (message.is_discarded()) {
    res.Set(400, DumpJson(parse_error), kJson);
    return;
  }
  const bool initialize = IsInitialize(message);
  std::string session_id;
  McpSession state;
  if (!initialize) {
    session_id = req.Header("Mcp-Session-Id");
    if (session_id.empty()) {
      res.Set(400,
              ProtocolError(kInvalidRequest,
                            "missing Mcp-Session-Id header: send initialize first, then "
                            "the session id it returned with every request"),
              kJson);
      return;
    }
    std::optional<McpSession> found = mcp_sessions.Find(session_id, caller->name);
    if (!found) {
      res.Set(404,
              ProtocolError(kInvalidRequest, "unknown or expired MCP session; initialize again"),
              kJson);
      return;
    }
    state = *found;
  }
  const auto start = std::chrono::steady_clock::now();
  const json answer = mcp.HandleJson(message, *caller, state);
  if (message.is_object() && message.contains("id")) {  // requests, not notifications
    metrics.RecordCall(
        McpMetricsLabel(message), McpOutcome(answer),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  if (initialize && answer.is_object() && answer.contains("result")) {
    Result<std::string> id = mcp_sessions.Create(caller->name, state);
    if (!id.ok()) {
      res.Set(503, ProtocolError(-32005, id.status().message()), kJson);
      return;
    }
    res.AddHeader("Mcp-Session-Id", *id);
  } else if (!initialize) {
    mcp_sessions.Update(session_id, state);
  }
  if (answer.is_null()) {
    res.status = 202;
    return;
  }
  res.Set(200, DumpJson(answer), kJson);
}

void HttpServer::Impl::HandleMcpDelete(const HttpRequest& req, HttpResponse& res) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  if (!mcp_sessions.Erase(req.Header("Mcp-Session-Id"), caller->name)) {
    res.Set(404, ProtocolError(kInvalidRequest, "unknown or expired MCP session"), kJson);
    return;
  }
  res.status = 204;
}

void HttpServer::Impl::HandleMetrics(const HttpRequest& req, HttpResponse& res) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  // The counters are process-wide (every principal's calls, the whole
  // store's entries): with tokens naming the callers, an admin's view only.
  if (!options.tokens.empty() && caller->role != Role::kAdmin) {
    res.Set(403,
            ProtocolError(-32002,
                          "GET /metrics needs the admin role: its counters cover every "
                          "principal; use an admin's token from [[security.tokens]]"),
            kJson);
    return;
  }
  Result<Stats> stats = engine.memory().GetStats(*caller);
  res.Set(200,
          metrics.Render(stats.ok() ? stats->entries : -1, loop.QueueDepth(),
                         engine.archivist().ArchiveQueue()),
          "text/plain; version=0.0.4");
}

HttpServer::HttpServer(Engine& engine, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {}

HttpServer::~HttpServer() = default;

Result<int> HttpServer::Bind() {
  MNEMO_ASSIGN_OR_RETURN(int port,
                         impl_->loop.Bind(impl_->options.listen.host, impl_->options.listen.port));
  impl_->guard.emplace(RequestGuardOptions{.listen_host = impl_->options.listen.host,
                                           .port = port,
                                           .allowed_hosts = impl_->options.allowed_hosts,
                                           .allowed_origins = impl_->options.allowed_origins});
  return port;
}

Status HttpServer::Serve() { return impl_->loop.Run(); }

void HttpServer::Stop() { impl_->loop.Stop(); }

}  // namespace mnemo::transport

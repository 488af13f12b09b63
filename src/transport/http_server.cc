#include "transport/http_server.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <list>
#include <mutex>
#include <unordered_map>

#include <httplib.h>

#include "base/sha256.h"
#include "base/uuid.h"
#include "transport/bounded_task_queue.h"
#include "transport/jsonrpc.h"
#include "transport/mcp.h"
#include "transport/metrics.h"

namespace mnemo::transport {
namespace {

constexpr const char* kJson = "application/json";

std::string ProtocolError(int code, std::string message) {
  return DumpJson(ErrorResponse(nullptr, code, std::move(message)));
}

uint64_t ContentLength(const httplib::Request& req) {
  std::string v = req.get_header_value("Content-Length");
  uint64_t n = 0;
  auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec == std::errc::result_out_of_range) return UINT64_MAX;
  return n;
}

bool HasBody(const httplib::Request& req) {
  return req.has_header("Transfer-Encoding") || ContentLength(req) > 0;
}

bool IsJsonContentType(const std::string& type) {
  std::string_view t = type;
  return t.substr(0, t.find(';')) == kJson;
}

// MCP sessions of streamable HTTP: the id handed out by initialize (header
// Mcp-Session-Id) to what the session negotiated and whose it is. Bounded: the
// least recently used session goes first (its client gets 404 and
// initializes again, as the protocol asks).
class McpSessions {
 public:
  static constexpr size_t kMaxSessions = 4096;

  std::string Create(const std::string& owner, const McpSession& state) {
    std::string id = internal::NewUuidV4();
    std::lock_guard lock(mu_);
    if (map_.size() >= kMaxSessions) {
      map_.erase(order_.back());
      order_.pop_back();
    }
    order_.push_front(id);
    map_.emplace(id, Entry{owner, state, order_.begin()});
    return id;
  }

  // The session's state when `id` exists and is `owner`'s.
  std::optional<McpSession> Find(const std::string& id, const std::string& owner) {
    std::lock_guard lock(mu_);
    auto it = map_.find(id);
    if (it == map_.end() || it->second.owner != owner) return std::nullopt;
    order_.splice(order_.begin(), order_, it->second.position);
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
    order_.erase(it->second.position);
    map_.erase(it);
    return true;
  }

 private:
  struct Entry {
    std::string owner;
    McpSession state;
    std::list<std::string>::iterator position;
  };
  std::mutex mu_;
  std::list<std::string> order_;  // most recently used first
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

time_t TimeoutSeconds(int64_t ms) {
  return static_cast<time_t>(std::max<int64_t>(1, (ms + 999) / 1000));
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
  o.listen = address;
  o.max_body_bytes = config.server.max_body_bytes;
  o.workers = config.server.workers;
  o.queue = config.server.queue;
  o.request_timeout_ms = config.server.request_timeout_ms;
  o.principal = Principal{config.security.default_principal, Role::kAdmin};
  o.tokens = config.security.tokens;
  return o;
}

struct HttpServer::Impl {
  Impl(Engine& e, HttpServerOptions o)
      : engine(e),
        options(std::move(o)),
        dispatcher(e, DefaultMethodTable(),
                   DispatcherOptions{
                       .observer = [this](std::string_view m, std::string_view outcome,
                                          double s) { metrics.RecordCall(m, outcome, s); },
                       .request_timeout = std::chrono::milliseconds(options.request_timeout_ms)}),
        mcp(e) {}

  void Install();
  // The caller of `req`, or nullopt (and a 401 in `res`) when tokens are
  // configured and the request carries none that matches.
  std::optional<Principal> Authenticate(const httplib::Request& req, httplib::Response& res);
  // The JSON body of a POST, read within the size limit; nullopt (and the
  // error in `res`) when it is not JSON, too large or unreadable.
  std::optional<std::string> ReadBody(const httplib::Request& req, httplib::Response& res,
                                      const httplib::ContentReader& reader);
  void HandleRpc(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader& reader);
  void HandleMcp(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader& reader);
  void HandleMcpDelete(const httplib::Request& req, httplib::Response& res);
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res);

  Engine& engine;
  HttpServerOptions options;
  Metrics metrics;
  std::atomic<int64_t> queue_depth{0};
  Dispatcher dispatcher;
  McpServer mcp;
  McpSessions mcp_sessions;
  httplib::Server server;
};

httplib::Server::HandlerResponse HttpServer::Impl::PreRoute(const httplib::Request& req,
                                                            httplib::Response& res) {
  using R = httplib::Server::HandlerResponse;
  if (BoundedTaskQueue::IsOverflowTask()) {
    res.status = 503;
    res.set_header("Connection", "close");
    res.set_header("Retry-After", "1");
    res.set_content(
        ProtocolError(-32005, "server busy: all " + std::to_string(options.workers) +
                                  " workers and the queue of " + std::to_string(options.queue) +
                                  " are taken; retry later"),
        kJson);
    return R::Handled;
  }
  // Only POST /rpc and /mcp read a body, through the counting reader;
  // anything else with a body is refused before httplib would buffer it
  // without bound.
  if (HasBody(req) && !(req.method == "POST" && (req.path == "/rpc" || req.path == "/mcp"))) {
    res.status = 400;
    res.set_header("Connection", "close");
    res.set_content("only POST /rpc and POST /mcp take a request body\n", "text/plain");
    return R::Handled;
  }
  return R::Unhandled;
}

std::optional<Principal> HttpServer::Impl::Authenticate(const httplib::Request& req,
                                                        httplib::Response& res) {
  if (options.tokens.empty()) return options.principal;
  const std::string header = req.get_header_value("Authorization");
  constexpr std::string_view kScheme = "Bearer ";
  if (header.size() > kScheme.size() && header.compare(0, kScheme.size(), kScheme) == 0) {
    // Compare digests, each in constant time, and never log the token.
    const std::string digest = internal::Sha256Hex(std::string_view(header).substr(kScheme.size()));
    const TokenConfig* match = nullptr;
    for (const TokenConfig& t : options.tokens) {
      std::string want = t.sha256;
      std::transform(want.begin(), want.end(), want.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (internal::ConstantTimeEquals(digest, want) && match == nullptr) match = &t;
    }
    if (match != nullptr) {
      return Principal{match->principal, match->role == "admin" ? Role::kAdmin : Role::kUser};
    }
  }
  res.status = 401;
  res.set_header("WWW-Authenticate", "Bearer");
  res.set_header("Connection", "close");
  res.set_content(ProtocolError(-32002,
                                "missing or invalid bearer token: send Authorization: Bearer "
                                "<token> with a token listed in [[security.tokens]]"),
                  kJson);
  return std::nullopt;
}

std::optional<std::string> HttpServer::Impl::ReadBody(const httplib::Request& req,
                                                      httplib::Response& res,
                                                      const httplib::ContentReader& reader) {
  if (!IsJsonContentType(req.get_header_value("Content-Type"))) {
    res.status = 415;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest,
                                  "POST " + req.path + " needs Content-Type: application/json"),
                    kJson);
    return std::nullopt;
  }
  const auto limit = static_cast<size_t>(options.max_body_bytes);
  const std::string too_large =
      "request body exceeds server.max_body_bytes (" + std::to_string(limit) + " bytes)";
  if (ContentLength(req) > 2 * limit) {
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest, too_large), kJson);
    return std::nullopt;
  }
  std::string body;
  size_t total = 0;
  // Counted while reading, so chunked bodies are bounded too. Past the limit
  // the reader drains up to one more limit's worth so an ordinary client can
  // still read the 413, then gives up.
  bool read_ok = reader([&](const char* data, size_t n) {
    total += n;
    if (total > limit) return total <= 2 * limit;
    body.append(data, n);
    return true;
  });
  // httplib itself refuses a declared Content-Length above the limit (set as
  // its payload maximum) after discarding the body, without calling us.
  if (total > limit || ContentLength(req) > limit) {
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest, too_large), kJson);
    return std::nullopt;
  }
  if (!read_ok) {
    res.status = 400;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest, "could not read the request body"), kJson);
    return std::nullopt;
  }
  return body;
}

void HttpServer::Impl::HandleRpc(const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader& reader) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  std::optional<std::string> body = ReadBody(req, res, reader);
  if (!body) return;
  std::optional<std::string> out = dispatcher.HandleText(*body, *caller);
  if (!out) {
    res.status = 204;
    return;
  }
  res.set_content(*out, kJson);
}

// Streamable HTTP (spec 60): every POST is answered with a JSON body (or 202
// for notifications and responses); no server-initiated stream, so GET is
// 405. initialize creates the session; every later request names it.
void HttpServer::Impl::HandleMcp(const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader& reader) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  std::optional<std::string> body = ReadBody(req, res, reader);
  if (!body) return;
  const std::string version = req.get_header_value("MCP-Protocol-Version");
  if (!version.empty() && !IsMcpProtocolVersion(version)) {
    res.status = 400;
    res.set_content(
        ProtocolError(kInvalidRequest, "unsupported MCP-Protocol-Version \"" + version +
                                           "\"; this server speaks " + McpVersionList()),
        kJson);
    return;
  }
  json parse_error;
  const json message = McpServer::Parse(*body, parse_error);
  if (message.is_discarded()) {
    res.status = 400;
    res.set_content(DumpJson(parse_error), kJson);
    return;
  }
  const bool initialize = IsInitialize(message);
  std::string session_id;
  McpSession state;
  if (!initialize) {
    session_id = req.get_header_value("Mcp-Session-Id");
    if (session_id.empty()) {
      res.status = 400;
      res.set_content(ProtocolError(kInvalidRequest,
                                    "missing Mcp-Session-Id header: send initialize first, then "
                                    "the session id it returned with every request"),
                      kJson);
      return;
    }
    std::optional<McpSession> found = mcp_sessions.Find(session_id, caller->name);
    if (!found) {
      res.status = 404;
      res.set_content(
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
    res.set_header("Mcp-Session-Id", mcp_sessions.Create(caller->name, state));
  } else if (!initialize) {
    mcp_sessions.Update(session_id, state);
  }
  if (answer.is_null()) {
    res.status = 202;
    return;
  }
  res.set_content(DumpJson(answer), kJson);
}

void HttpServer::Impl::HandleMcpDelete(const httplib::Request& req, httplib::Response& res) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  if (!mcp_sessions.Erase(req.get_header_value("Mcp-Session-Id"), caller->name)) {
    res.status = 404;
    res.set_content(ProtocolError(kInvalidRequest, "unknown or expired MCP session"), kJson);
    return;
  }
  res.status = 204;
}

void HttpServer::Impl::Install() {
  const auto workers = static_cast<size_t>(std::max<int64_t>(1, options.workers));
  const auto queue = static_cast<size_t>(std::max<int64_t>(0, options.queue));
  server.new_task_queue = [this, workers, queue] {
    return new BoundedTaskQueue(workers, queue, &queue_depth);
  };
  server.set_read_timeout(TimeoutSeconds(options.request_timeout_ms));
  server.set_write_timeout(TimeoutSeconds(options.request_timeout_ms));
  server.set_payload_max_length(static_cast<size_t>(options.max_body_bytes));
  server.set_pre_routing_handler(
      [this](const httplib::Request& req, httplib::Response& res) { return PreRoute(req, res); });
  server.set_logger([this](const httplib::Request&, const httplib::Response& res) {
    metrics.RecordHttp(res.status);
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
        res.status = 500;
        res.set_content(ProtocolError(-32000, "internal error"), kJson);
      });
  server.Post("/rpc",
              [this](const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& reader) { HandleRpc(req, res, reader); });
  server.Post("/mcp",
              [this](const httplib::Request& req, httplib::Response& res,
                     const httplib::ContentReader& reader) { HandleMcp(req, res, reader); });
  server.Delete("/mcp", [this](const httplib::Request& req, httplib::Response& res) {
    HandleMcpDelete(req, res);
  });
  server.Get("/mcp", [](const httplib::Request&, httplib::Response& res) {
    res.status = 405;
    res.set_header("Allow", "POST, DELETE");
    res.set_content("this server offers no server-initiated stream: POST MCP messages\n",
                    "text/plain");
  });
  server.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    json body = {
        {"status", "ok"}, {"version", MNEMO_VERSION}, {"backend", engine.config().memory.backend}};
    res.set_content(DumpJson(body), kJson);
  });
  server.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<Principal> caller = Authenticate(req, res);
    if (!caller) return;
    Result<Stats> stats = engine.GetStats(*caller);
    res.set_content(
        metrics.Render(stats.ok() ? stats->entries : -1, queue_depth.load(), engine.ArchiveQueue()),
        "text/plain; version=0.0.4");
  });
}

HttpServer::HttpServer(Engine& engine, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(engine, std::move(options))) {
  impl_->Install();
}

HttpServer::~HttpServer() = default;

Result<int> HttpServer::Bind() {
  const ListenAddress& a = impl_->options.listen;
  int port = a.port;
  errno = 0;
  if (a.port == 0) {
    port = impl_->server.bind_to_any_port(a.host);
  } else if (!impl_->server.bind_to_port(a.host, a.port)) {
    port = -1;
  }
  if (port <= 0) {
    std::string why = errno != 0 ? std::strerror(errno) : "address unavailable";
    return Unavailable("cannot listen on " + a.host + ":" + std::to_string(a.port) + ": " + why);
  }
  return port;
}

Status HttpServer::Serve() {
  if (!impl_->server.listen_after_bind())
    return Unavailable("the HTTP server stopped with an error");
  return Status::Ok();
}

void HttpServer::Stop() { impl_->server.stop(); }

}  // namespace mnemo::transport

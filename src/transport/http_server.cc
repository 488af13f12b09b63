#include "transport/http_server.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>

#include <httplib.h>

#include "base/sha256.h"
#include "transport/bounded_task_queue.h"
#include "transport/jsonrpc.h"
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
                       .request_timeout = std::chrono::milliseconds(options.request_timeout_ms)}) {}

  void Install();
  // The caller of `req`, or nullopt (and a 401 in `res`) when tokens are
  // configured and the request carries none that matches.
  std::optional<Principal> Authenticate(const httplib::Request& req, httplib::Response& res);
  void HandleRpc(const httplib::Request& req, httplib::Response& res,
                 const httplib::ContentReader& reader);
  httplib::Server::HandlerResponse PreRoute(const httplib::Request& req, httplib::Response& res);

  Engine& engine;
  HttpServerOptions options;
  Metrics metrics;
  std::atomic<int64_t> queue_depth{0};
  Dispatcher dispatcher;
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
  // Only POST /rpc reads a body, through the counting reader; anything else
  // with a body is refused before httplib would buffer it without bound.
  if (HasBody(req) && !(req.method == "POST" && req.path == "/rpc")) {
    res.status = 400;
    res.set_header("Connection", "close");
    res.set_content("only POST /rpc takes a request body\n", "text/plain");
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

void HttpServer::Impl::HandleRpc(const httplib::Request& req, httplib::Response& res,
                                 const httplib::ContentReader& reader) {
  std::optional<Principal> caller = Authenticate(req, res);
  if (!caller) return;
  if (!IsJsonContentType(req.get_header_value("Content-Type"))) {
    res.status = 415;
    res.set_header("Connection", "close");
    res.set_content(
        ProtocolError(kInvalidRequest, "POST /rpc needs Content-Type: application/json"), kJson);
    return;
  }
  const auto limit = static_cast<size_t>(options.max_body_bytes);
  const std::string too_large =
      "request body exceeds server.max_body_bytes (" + std::to_string(limit) + " bytes)";
  if (ContentLength(req) > 2 * limit) {
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest, too_large), kJson);
    return;
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
    return;
  }
  if (!read_ok) {
    res.status = 400;
    res.set_header("Connection", "close");
    res.set_content(ProtocolError(kInvalidRequest, "could not read the request body"), kJson);
    return;
  }
  std::optional<std::string> out = dispatcher.HandleText(body, *caller);
  if (!out) {
    res.status = 204;
    return;
  }
  res.set_content(*out, kJson);
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
  server.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    json body = {
        {"status", "ok"}, {"version", MNEMO_VERSION}, {"backend", engine.config().memory.backend}};
    res.set_content(DumpJson(body), kJson);
  });
  server.Get("/metrics", [this](const httplib::Request& req, httplib::Response& res) {
    std::optional<Principal> caller = Authenticate(req, res);
    if (!caller) return;
    Result<Stats> stats = engine.GetStats(*caller);
    res.set_content(metrics.Render(stats.ok() ? stats->entries : -1, queue_depth.load()),
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

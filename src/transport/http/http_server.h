// The HTTP daemon of `mnemo serve` (spec 60): POST /rpc, /mcp (MCP
// streamable HTTP, transport/mcp/mcp.h), GET /healthz, GET /metrics, with a body
// limit counted while reading, a bounded worker pool and a graceful stop.
// Connections are handled by transport/http/http_event_loop.h (deadlines, limits,
// pipelining; docs/http-server.md); this file routes and authenticates.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/engine.h"
#include "mnemo/status.h"

namespace mnemo::transport {

class TlsContext;

struct ListenAddress {
  std::string host;
  int port = 0;  // 0: any free port
};

// "host:port" or "[v6]:port"; port 0-65535.
Result<ListenAddress> ParseListen(std::string_view text);

// 127.0.0.0/8, ::1 and localhost.
bool IsLoopback(std::string_view host);

// MCP sessions of streamable HTTP kept per principal; past it a principal's
// initialize evicts that principal's least recently used session (whose
// client gets 404 and initializes again), never another principal's.
inline constexpr size_t kMaxMcpSessionsPerPrincipal = 4096;

struct HttpServerOptions {
  ListenAddress listen;
  int64_t max_body_bytes = 4194304;
  int64_t workers = 8;
  int64_t queue = 64;
  // A request's head and body must arrive within this of its first byte
  // (408 and close otherwise); also the engine's per-request deadline.
  int64_t request_timeout_ms = 30000;
  // A connection without a request in progress is closed after this.
  int64_t idle_timeout_ms = 15000;
  // Open connections in all and from one client address; past them a new
  // connection gets 503 and is closed.
  int64_t max_connections = 512;
  int64_t max_connections_per_client = 128;
  // The caller when no tokens are configured (loopback only): from the
  // configuration, security.default_principal with security.default_role.
  Principal principal;
  // [[security.tokens]]: when non-empty every request but GET /healthz needs
  // `Authorization: Bearer <token>` whose SHA-256 matches one of them (401
  // otherwise); the token's principal becomes the caller, with the role the
  // engine's configuration grants it (ConfiguredRole, mnemo/config.h: the
  // token's own role, since one principal has one role).
  std::vector<TokenConfig> tokens;
  // server.allowed_hosts and server.allowed_origins (transport/http/request_guard.h):
  // every request's Host and Origin are checked against them, the loopback
  // names and the bound address before anything else, with or without tokens.
  std::vector<std::string> allowed_hosts;
  std::vector<std::string> allowed_origins;
  // https only when set (server.tls_cert, server.tls_key; transport/http/tls.h).
  std::shared_ptr<const TlsContext> tls;
};

// Options from `config.server` (listen overridden by `listen_override` when
// non-empty). Refuses a non-loopback address without [security.tokens], and
// without TLS unless server.allow_plaintext; refuses one of tls_cert and
// tls_key without the other, files TLS cannot use, and allowed_hosts/
// allowed_origins entries that are no host or origin.
Result<HttpServerOptions> HttpServerOptionsFromConfig(const Config& config,
                                                      std::string_view listen_override);

class HttpServer {
 public:
  HttpServer(Engine& engine, HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds the socket (never shared: no SO_REUSEPORT); returns the bound port
  // (the real one for port 0). A taken address is Unavailable
  // "<host>:<port> is already in use".
  Result<int> Bind();
  // Serves until Stop(); returns after in-flight requests have finished.
  Status Serve();
  // Stops accepting. Thread-safe; not async-signal-safe (call it from a
  // thread that waited for the signal).
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mnemo::transport

// The daemon's connection handling (spec 60, issue 17): one thread polls the
// listening socket and every connection, frames whole requests within their
// deadlines and hands each complete request to a bounded worker pool; the
// loop itself never runs request work, so slow, idle or hostile clients cost
// a buffer each and never a worker.
//
// Contract per connection:
// - a request's head and body must all arrive within request_timeout_ms of
//   its first byte, else 408 and close (however steadily it trickles);
// - a connection without a request in progress (new, or keep-alive between
//   requests) is closed after idle_timeout_ms;
// - past max_connections in all, or max_connections_per_client from one
//   address, a new connection gets 503 and is closed;
// - requests on one connection (pipelined or not) are served one at a time
//   in order, each answered before the next is read;
// - a response not taken by the client within request_timeout_ms closes it;
// - accepted sockets get TCP_NODELAY; each response goes out in one write;
// - a Content-Length body is read into the request in place
//   (RequestParser::BodyWindow), never past its end.
// With `tls` set every connection speaks TLS (transport/http/tls.h) and the same
// bounds hold from its first byte: the handshake must end within
// request_timeout_ms of the accept and counts against the connection caps;
// a connection past the caps is closed without an answer (a plain 503 would
// be unreadable to a TLS client); plain HTTP sent to the port gets a plain
// 400 saying to use https://.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "mnemo/status.h"
#include "transport/http/http_message.h"

namespace mnemo::transport {

class TlsContext;

struct EventLoopOptions {
  int64_t request_timeout_ms = 30000;
  int64_t idle_timeout_ms = 15000;
  int64_t max_connections = 512;
  int64_t max_connections_per_client = 128;
  int64_t workers = 8;
  int64_t queue = 64;
  RequestParser::Limits limits;
  std::shared_ptr<const TlsContext> tls;  // null: plain HTTP
};

// What the server does with requests; called by the loop.
class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  // On the loop thread once a request's head has arrived, before its body
  // is read: cheap checks only (authentication, content type, declared
  // size). A response refuses the request and closes the connection.
  virtual std::optional<HttpResponse> CheckHead(const HttpRequest& head) = 0;
  // On a worker thread: the answer to a complete request.
  virtual HttpResponse Handle(const HttpRequest& request) = 0;
  // The answer the loop gives by itself (408, 431, 503, ...): `message`
  // says what was wrong and what is allowed.
  virtual HttpResponse Refusal(int status, const std::string& message) = 0;
  // Every response status written, for metrics (any thread).
  virtual void Responded(int status) = 0;
};

class HttpEventLoop {
 public:
  HttpEventLoop(EventLoopOptions options, HttpHandler& handler);
  ~HttpEventLoop();
  HttpEventLoop(const HttpEventLoop&) = delete;
  HttpEventLoop& operator=(const HttpEventLoop&) = delete;

  // Binds and listens on host:port (no SO_REUSEPORT: a taken address fails
  // here with "<host>:<port> is already in use"); the bound port.
  Result<int> Bind(const std::string& host, int port);
  // Serves until Stop(); then closes idle and incomplete connections,
  // finishes the requests in flight and writes their answers.
  Status Run();
  // Thread-safe; not async-signal-safe.
  void Stop();
  // Requests accepted by the pool and not started yet.
  int64_t QueueDepth() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mnemo::transport

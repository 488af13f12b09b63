#include "transport/http/http_event_loop.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/background_worker.h"
#include "base/request_trace.h"
#include "transport/http/read_buffer.h"
#include "transport/http/tls.h"

namespace mnemo::transport {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// A read into the connection's buffer asks for at most kReadChunk bytes
// (a lingering connection's discarded input takes the same on the stack),
// and the buffer keeps at least kReadReserve free for it: one TLS record, and
// what a slow or idle connection holds while its head arrives.
constexpr size_t kReadChunk = 65536;
constexpr size_t kReadReserve = 16384;
// Refused or finished connections are drained briefly before the close so
// that the client reads the answer instead of a reset; this many at once.
constexpr size_t kMaxLingering = 256;
constexpr milliseconds kLinger{1000};
constexpr int kAcceptBatch = 64;

std::string PeerAddress(const sockaddr_storage& addr) {
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &v4->sin_addr, text, sizeof text);
  } else if (addr.ss_family == AF_INET6) {
    const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &v6->sin6_addr, text, sizeof text);
  }
  return text;
}

enum class Phase {
  kHandshake,  // TLS: the handshake is under way
  kIdle,       // no request in progress: waiting for a first byte
  kReading,    // a request is arriving
  kBusy,       // its request is with the workers; not polled
  kWriting,    // its answer is going out
  kLinger,     // answered with close: write side shut, input discarded
};

struct Connection {
  int fd = -1;
  std::string client;
  bool counted = false;  // counts against the limits (not a refused one)
  bool lingers = false;  // counts against kMaxLingering
  Phase phase = Phase::kIdle;
  Clock::time_point deadline;
  ReadBuffer in;  // read, not yet framed
  std::string out;
  size_t out_sent = 0;
  bool close_after_write = false;
  bool head_checked = false;
  size_t discarded = 0;
  RequestParser parser;
  std::unique_ptr<TlsStream> tls;  // null on a plain connection

  explicit Connection(RequestParser::Limits limits) : parser(limits) {}
};

struct Completion {
  uint64_t id;
  HttpResponse response;
  bool keep_alive;
};

}  // namespace

struct HttpEventLoop::Impl {
  Impl(EventLoopOptions o, HttpHandler& h)
      : options(std::move(o)),
        handler(h),
        pool(std::in_place,
             internal::BackgroundWorkerOptions{
                 .threads = static_cast<size_t>(std::max<int64_t>(1, options.workers)),
                 .max_queued = static_cast<size_t>(std::max<int64_t>(0, options.queue)),
                 .low_priority = false}) {}

  ~Impl() {
    pool.reset();  // joins the workers before the descriptors they wake go
    for (auto& [id, c] : connections) close(c.fd);
    if (listener >= 0) close(listener);
    if (wake[0] >= 0) close(wake[0]);
    if (wake[1] >= 0) close(wake[1]);
  }

  void Wake() const {
    const char byte = 1;
    [[maybe_unused]] ssize_t n = write(wake[1], &byte, 1);
  }

  void AcceptSome(Clock::time_point now);
  void ContinueHandshake(uint64_t id, Connection& c, Clock::time_point now);
  void OnReadable(uint64_t id, Connection& c, Clock::time_point now);
  void Advance(uint64_t id, Connection& c, Clock::time_point now);
  void Respond(Connection& c, const HttpResponse& response, bool keep_alive, Clock::time_point now);
  void Refuse(Connection& c, int status, const std::string& message, Clock::time_point now) {
    HttpResponse r = handler.Refusal(status, message);
    Respond(c, r, /*keep_alive=*/false, now);
  }
  void WriteSome(Connection& c, Clock::time_point now);
  // recv/send, through TLS when the connection speaks it (a lingering one
  // only discards its input: read raw).
  static ssize_t Receive(Connection& c, char* buffer, size_t size) {
    if (c.tls && c.phase != Phase::kLinger) return c.tls->Read(buffer, size);
    return recv(c.fd, buffer, size, 0);
  }
  static ssize_t Transmit(Connection& c, const char* data, size_t size) {
    if (c.tls) return c.tls->Write(data, size);
    return send(c.fd, data, size, MSG_NOSIGNAL);
  }
  void TakeCompletions(Clock::time_point now);
  void Forget(uint64_t id);
  int PollTimeoutMs(Clock::time_point now) const;

  EventLoopOptions options;
  HttpHandler& handler;
  int listener = -1;
  int wake[2] = {-1, -1};
  std::atomic<bool> stopping{false};
  std::unordered_map<uint64_t, Connection> connections;
  std::unordered_map<std::string, int64_t> per_client;
  int64_t counted = 0;
  size_t lingering = 0;
  uint64_t next_id = 1;
  Clock::time_point accept_paused_until;
  std::mutex done_mu;
  std::vector<Completion> done;
  std::optional<internal::BackgroundWorker> pool;
};

void HttpEventLoop::Impl::AcceptSome(Clock::time_point now) {
  for (int i = 0; i < kAcceptBatch; ++i) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    const int fd =
        accept4(listener, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      // Out of descriptors: leave the backlog alone for a moment rather than
      // spin on a listener that stays readable.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        accept_paused_until = now + milliseconds(100);
      }
      return;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    const std::string client = PeerAddress(addr);
    std::string refusal;
    if (counted >= options.max_connections) {
      refusal = "too many connections: server.max_connections (" +
                std::to_string(options.max_connections) + ") are open; retry later";
    } else if (auto it = per_client.find(client);
               it != per_client.end() && it->second >= options.max_connections_per_client) {
      refusal = "too many connections from " + client + ": server.max_connections_per_client (" +
                std::to_string(options.max_connections_per_client) +
                ") are open; close some or retry later";
    }
    if (!refusal.empty() && (lingering >= kMaxLingering || options.tls)) {
      handler.Responded(503);
      close(fd);
      continue;
    }
    const uint64_t id = next_id++;
    Connection& c = connections.emplace(id, Connection(options.limits)).first->second;
    c.fd = fd;
    c.client = client;
    if (!refusal.empty()) {
      Refuse(c, 503, refusal, now);
      continue;
    }
    c.counted = true;
    ++counted;
    ++per_client[client];
    c.deadline = now + milliseconds(options.idle_timeout_ms);
    if (options.tls) {
      c.tls = std::make_unique<TlsStream>(*options.tls, fd);
      c.phase = Phase::kHandshake;
      c.deadline = now + milliseconds(options.request_timeout_ms);
    }
  }
}

void HttpEventLoop::Impl::ContinueHandshake(uint64_t id, Connection& c, Clock::time_point now) {
  switch (c.tls->Continue()) {
    case TlsStream::Handshake::kPending: return;
    case TlsStream::Handshake::kDone:
      c.phase = Phase::kIdle;
      c.deadline = now + milliseconds(options.idle_timeout_ms);
      return;
    case TlsStream::Handshake::kNotTls:
      c.tls.reset();
      c.phase = Phase::kIdle;
      Refuse(c, 400,
             "this port speaks TLS (server.tls_cert is set): send the request over https://, "
             "not http://",
             now);
      return;
    case TlsStream::Handshake::kFailed: Forget(id); return;
  }
}

void HttpEventLoop::Impl::OnReadable(uint64_t id, Connection& c, Clock::time_point now) {
  if (c.phase == Phase::kHandshake) {
    ContinueHandshake(id, c, now);
    return;
  }
  if (c.phase == Phase::kLinger) {  // input after the answer: read and dropped
    char discard[kReadChunk];
    const ssize_t n = Receive(c, discard, sizeof discard);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {
      Forget(id);
      return;
    }
    c.discarded += static_cast<size_t>(n);
    if (c.discarded > options.limits.max_body_bytes + options.limits.max_header_bytes) {
      Forget(id);
    }
    return;
  }
  // A read that stops at the end of a body window can leave the rest of a
  // TLS record (a pipelined request) decrypted inside OpenSSL, where poll(2)
  // does not see it: read on while it holds some.
  for (;;) {
    // The rest of a Content-Length body is read straight into the request
    // (and never past it, so a pipelined request stays unread); heads,
    // chunked bodies and what comes in with a head are read straight into
    // the free tail of the connection's buffer.
    const std::span<char> window =
        c.phase == Phase::kReading ? c.parser.BodyWindow() : std::span<char>();
    const std::span<char> into = window.empty() ? c.in.Tail(kReadReserve) : window;
    const ssize_t n = Receive(c, into.data(), std::min(into.size(), kReadChunk));
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {  // the client closed or the connection broke
      Forget(id);
      return;
    }
    if (window.empty()) {
      c.in.Commit(static_cast<size_t>(n));
    } else {
      c.parser.BodyReceived(static_cast<size_t>(n));
    }
    Advance(id, c, now);
    // Advance may have answered (kWriting, kLinger) or forgotten the connection.
    auto it = connections.find(id);
    if (it == connections.end() || !c.tls || !c.tls->HasPending() ||
        (c.phase != Phase::kIdle && c.phase != Phase::kReading && c.phase != Phase::kBusy)) {
      return;
    }
  }
}

// Frames what has arrived on an idle or reading connection and acts on it.
void HttpEventLoop::Impl::Advance(uint64_t id, Connection& c, Clock::time_point now) {
  if (c.phase != Phase::kIdle && c.phase != Phase::kReading) return;
  if (c.phase == Phase::kIdle && c.in.empty()) return;
  if (c.phase == Phase::kIdle) {
    c.phase = Phase::kReading;
    c.head_checked = false;
    c.deadline = now + milliseconds(options.request_timeout_ms);
  }
  size_t consumed = 0;
  const RequestParser::State state = c.parser.Feed(c.in.View(), consumed);
  c.in.Consume(consumed);
  if (state == RequestParser::State::kError) {
    Refuse(c, c.parser.error_status(), c.parser.error_message(), now);
    return;
  }
  if (state == RequestParser::State::kNeedMore) return;
  if (!c.head_checked) {
    c.head_checked = true;
    if (std::optional<HttpResponse> refused = handler.CheckHead(c.parser.head())) {
      refused->close = true;
      Respond(c, *refused, /*keep_alive=*/false, now);
      return;
    }
  }
  if (state == RequestParser::State::kHeadersDone) {
    if (c.parser.TakeContinue()) {
      static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
      if (Transmit(c, kContinue.data(), kContinue.size()) !=
          static_cast<ssize_t>(kContinue.size())) {
        Forget(id);
      }
    }
    return;
  }
  HttpRequest request = c.parser.Take();
  request.client = c.client;
  const bool keep_alive = request.KeepAlive() && !stopping.load();
  c.phase = Phase::kBusy;
  auto job = [this, id, keep_alive, req = std::move(request), queued = Clock::now()] {
    internal::RequestTrace::NoteQueueWait(
        std::chrono::duration<double, std::milli>(Clock::now() - queued).count());
    HttpResponse response = handler.Handle(req);
    {
      std::lock_guard lock(done_mu);
      done.push_back(Completion{id, std::move(response), keep_alive});
    }
    Wake();
  };
  if (!pool->TrySubmit("request", std::move(job))) {
    Refuse(c, 503,
           "server busy: all " + std::to_string(options.workers) + " workers and the queue of " +
               std::to_string(options.queue) + " are taken; retry later",
           now);
  }
}

void HttpEventLoop::Impl::Respond(Connection& c, const HttpResponse& response, bool keep_alive,
                                  Clock::time_point now) {
  const bool keep = keep_alive && !response.close && !stopping.load();
  c.out = SerializeResponse(response, keep, std::max<int64_t>(1, options.idle_timeout_ms / 1000));
  c.out_sent = 0;
  c.close_after_write = !keep;
  c.phase = Phase::kWriting;
  c.deadline = now + milliseconds(options.request_timeout_ms);
  handler.Responded(response.status);
  WriteSome(c, now);
}

void HttpEventLoop::Impl::WriteSome(Connection& c, Clock::time_point now) {
  while (c.out_sent < c.out.size()) {
    const ssize_t n = Transmit(c, c.out.data() + c.out_sent, c.out.size() - c.out_sent);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) {  // broken: closed at this round's deadline sweep
      c.phase = Phase::kLinger;
      c.deadline = now;
      return;
    }
    c.out_sent += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out.shrink_to_fit();
  c.out_sent = 0;
  if (c.close_after_write) {
    // Lingering close: the client reads the answer, not a reset for the
    // bytes it sent that were never read.
    if (c.tls) c.tls->Close();
    shutdown(c.fd, SHUT_WR);
    c.phase = Phase::kLinger;
    c.deadline = now + std::min(kLinger, milliseconds(options.request_timeout_ms));
    c.in.Release();
    c.lingers = true;
    ++lingering;
    if (c.counted) {
      c.counted = false;
      --counted;
      if (--per_client[c.client] == 0) per_client.erase(c.client);
    }
    return;
  }
  c.phase = Phase::kIdle;
  c.deadline = now + milliseconds(options.idle_timeout_ms);
  // A keep-alive connection with nothing pipelined holds no buffer while idle.
  if (c.in.empty()) c.in.Release();
}

void HttpEventLoop::Impl::TakeCompletions(Clock::time_point now) {
  std::vector<Completion> ready;
  {
    std::lock_guard lock(done_mu);
    ready.swap(done);
  }
  for (Completion& d : ready) {
    auto it = connections.find(d.id);
    if (it == connections.end()) continue;
    Connection& c = it->second;
    Respond(c, d.response, d.keep_alive, now);
    // The next pipelined request, already buffered, is read now.
    if (c.phase == Phase::kIdle) Advance(d.id, c, now);
  }
}

void HttpEventLoop::Impl::Forget(uint64_t id) {
  auto it = connections.find(id);
  if (it == connections.end()) return;
  Connection& c = it->second;
  if (c.counted) {
    --counted;
    if (--per_client[c.client] == 0) per_client.erase(c.client);
  }
  if (c.lingers) --lingering;
  close(c.fd);
  connections.erase(it);
}

int HttpEventLoop::Impl::PollTimeoutMs(Clock::time_point now) const {
  Clock::time_point next = now + milliseconds(1000);
  for (const auto& [id, c] : connections) {
    if (c.phase != Phase::kBusy) next = std::min(next, c.deadline);
  }
  if (accept_paused_until > now) next = std::min(next, accept_paused_until);
  const auto ms = std::chrono::duration_cast<milliseconds>(next - now).count();
  return static_cast<int>(std::clamp<int64_t>(ms + 1, 0, 1000));
}

HttpEventLoop::HttpEventLoop(EventLoopOptions options, HttpHandler& handler)
    : impl_(std::make_unique<Impl>(std::move(options), handler)) {}

HttpEventLoop::~HttpEventLoop() = default;

int64_t HttpEventLoop::QueueDepth() const { return impl_->pool->Queued(); }

Result<int> HttpEventLoop::Bind(const std::string& host, int port) {
  const std::string shown =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(port);
  if (int rc = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return Unavailable("cannot listen on " + shown + ": " + gai_strerror(rc));
  }
  int fd = -1;
  int error = 0;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    // SO_REUSEADDR only lets a restart bind past TIME_WAIT; on Linux it never
    // shares a port with a live listener (SO_REUSEPORT would: not set).
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (a->ai_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      error = errno;
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  if (fd < 0) {
    if (error == EADDRINUSE) return Unavailable(shown + " is already in use");
    return Unavailable("cannot listen on " + shown + ": " + std::strerror(error));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
  const int bound_port = bound.ss_family == AF_INET6
                             ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                             : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  if (pipe2(impl_->wake, O_NONBLOCK | O_CLOEXEC) != 0) {
    close(fd);
    return Unavailable(std::string("cannot create the wake-up pipe: ") + std::strerror(errno));
  }
  impl_->listener = fd;
  return bound_port;
}

void HttpEventLoop::Stop() {
  impl_->stopping = true;
  if (impl_->wake[1] >= 0) impl_->Wake();
}

Status HttpEventLoop::Run() {
  Impl& s = *impl_;
  if (s.listener < 0) return Unavailable("the HTTP server is not bound");
  std::optional<ScopedSigpipeBlock> no_sigpipe;
  if (s.options.tls) no_sigpipe.emplace();
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  bool closed_listener = false;
  for (;;) {
    Clock::time_point now = Clock::now();
    if (s.stopping.load() && !closed_listener) {
      // Stop accepting; drop what is idle or incomplete, keep what is in
      // flight until it has been answered.
      closed_listener = true;
      close(s.listener);
      s.listener = -1;
      std::vector<uint64_t> drop;
      for (auto& [id, c] : s.connections) {
        if (c.phase == Phase::kHandshake || c.phase == Phase::kIdle || c.phase == Phase::kReading ||
            c.phase == Phase::kLinger) {
          drop.push_back(id);
        }
      }
      for (uint64_t id : drop) s.Forget(id);
    }
    if (closed_listener) {
      const bool busy = std::any_of(s.connections.begin(), s.connections.end(), [](auto& kv) {
        return kv.second.phase == Phase::kBusy || kv.second.phase == Phase::kWriting;
      });
      if (!busy) break;
    }
    fds.clear();
    ids.clear();
    fds.push_back({s.wake[0], POLLIN, 0});
    ids.push_back(0);
    if (!closed_listener && s.accept_paused_until <= now) {
      fds.push_back({s.listener, POLLIN, 0});
      ids.push_back(0);
    }
    for (const auto& [id, c] : s.connections) {
      if (c.phase == Phase::kBusy) continue;
      short events = c.phase == Phase::kWriting ? POLLOUT : POLLIN;
      // TLS may need the other direction first (a handshake step, a read
      // that must write, a write that must read).
      if (c.tls && c.phase != Phase::kLinger && c.tls->WaitEvents() != 0) {
        events = c.tls->WaitEvents();
      }
      fds.push_back({c.fd, events, 0});
      ids.push_back(id);
    }
    const int ready = poll(fds.data(), fds.size(), s.PollTimeoutMs(now));
    if (ready < 0 && errno != EINTR) {
      return Unavailable(std::string("the HTTP server's poll failed: ") + std::strerror(errno));
    }
    now = Clock::now();
    if ((fds[0].revents & POLLIN) != 0) {
      char drain[256];
      while (read(s.wake[0], drain, sizeof drain) > 0) {
      }
    }
    s.TakeCompletions(now);
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      if (ids[i] == 0) {
        s.AcceptSome(now);
        continue;
      }
      auto it = s.connections.find(ids[i]);
      if (it == s.connections.end()) continue;
      Connection& c = it->second;
      if (c.phase == Phase::kWriting) {
        if ((fds[i].revents & (POLLERR | POLLHUP)) != 0 && (fds[i].revents & POLLOUT) == 0) {
          s.Forget(ids[i]);
        } else {
          s.WriteSome(c, now);
          if (c.phase == Phase::kIdle) s.Advance(ids[i], c, now);
        }
      } else if (c.phase != Phase::kBusy) {
        s.OnReadable(ids[i], c, now);
      }
    }
    // Deadlines.
    std::vector<uint64_t> expired;
    for (auto& [id, c] : s.connections) {
      if (c.phase != Phase::kBusy && c.deadline <= now) expired.push_back(id);
    }
    for (uint64_t id : expired) {
      auto it = s.connections.find(id);
      if (it == s.connections.end()) continue;
      Connection& c = it->second;
      if (c.phase == Phase::kReading) {
        s.Refuse(c, 408,
                 "the request did not arrive within server.request_timeout_ms (" +
                     std::to_string(s.options.request_timeout_ms) + " ms) of its first byte",
                 now);
        if (c.deadline > now) continue;  // the 408 is going out, then a lingering close
      }
      s.Forget(id);  // idle too long, stuck writing or in a handshake, done lingering or broken
    }
  }
  return Status::Ok();
}

}  // namespace mnemo::transport

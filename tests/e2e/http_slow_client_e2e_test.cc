// The real `mnemo serve` under slow, idle and pipelining clients (issue 17,
// items 2 and 3): raw loopback sockets, bounded in count (at most 200 held at
// once) and in time (every read waits a few seconds at most).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// A TCP connection to the daemon from `source` (any 127.0.0.0/8 address, so
// that tests can play several clients); closed on destruction.
class Socket {
 public:
  Socket(int port, const char* source = "127.0.0.1") {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in from{};
    from.sin_family = AF_INET;
    inet_pton(AF_INET, source, &from.sin_addr);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&from), sizeof from) != 0 ||
        connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      close(fd_);
      fd_ = -1;
    }
  }
  ~Socket() {
    if (fd_ >= 0) close(fd_);
  }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  bool ok() const { return fd_ >= 0; }

  bool Send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // Reads what arrives within `wait`; false at end of stream or error.
  bool ReadSome(std::chrono::milliseconds wait) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return true;
    char buf[65536];
    ssize_t n = recv(fd_, buf, sizeof buf, 0);
    if (n <= 0) return false;
    in_.append(buf, static_cast<size_t>(n));
    return true;
  }

  // The next whole response (status line, headers, Content-Length body)
  // within `wait`, or "" when none came (timeout or closed).
  std::string ReadResponse(std::chrono::milliseconds wait = std::chrono::milliseconds(5000)) {
    const auto give_up = Clock::now() + wait;
    for (;;) {
      size_t end = in_.find("\r\n\r\n");
      if (end != std::string::npos) {
        size_t length = 0;
        std::string head = in_.substr(0, end);
        std::string lower = head;
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        size_t cl = lower.find("content-length:");
        if (cl != std::string::npos) length = std::stoul(head.substr(cl + 15));
        if (in_.size() >= end + 4 + length) {
          std::string response = in_.substr(0, end + 4 + length);
          in_.erase(0, end + 4 + length);
          return response;
        }
      }
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now());
      if (left.count() <= 0 || !ReadSome(left)) return "";
    }
  }

  // True when the server closed the connection within `wait` (anything it
  // sent first is kept in the buffer).
  bool ClosedWithin(std::chrono::milliseconds wait) {
    const auto give_up = Clock::now() + wait;
    while (Clock::now() < give_up) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(give_up - Clock::now());
      if (!ReadSome(left)) return true;
    }
    return false;
  }

  const std::string& received() const { return in_; }

 private:
  int fd_ = -1;
  std::string in_;
};

std::string RpcRequest(int id, const std::string& method, const json& params) {
  const std::string body =
      json{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", params}}.dump();
  return "POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n"
         "Content-Type: application/json\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

int StatusOf(const std::string& response) {
  return response.size() > 12 ? std::stoi(response.substr(9, 3)) : 0;
}

json BodyOf(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  if (end == std::string::npos) return nullptr;
  return json::parse(response.substr(end + 4), nullptr, false);
}

class SlowClients : public ::testing::Test {
 protected:
  void Start(const std::map<std::string, std::string>& env) {
    daemon_ = std::make_unique<Daemon>(dir_.path(), env);
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
  }

  // The time one memory.stats on a fresh connection takes to be answered
  // (a negative value when it is not answered within 3 s).
  double ProbeMs() {
    const auto start = Clock::now();
    Socket probe(daemon_->port());
    if (!probe.ok() || !probe.Send(RpcRequest(1, "memory.stats", json::object()))) return -1;
    std::string r = probe.ReadResponse(std::chrono::milliseconds(3000));
    if (StatusOf(r) != 200) return -1;
    return MsSince(start);
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

// 100 connections that send nothing and 100 that send a request line and
// then trickle one header line every 200 ms (from four other addresses)
// leave a normal request's latency alone.
TEST_F(SlowClients, TwoHundredSlowOrIdleConnectionsDoNotDelayANormalRequest) {
  Start({});
  const char* sources[] = {"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"};
  std::vector<std::unique_ptr<Socket>> idle;
  std::vector<std::unique_ptr<Socket>> trickling;
  for (int i = 0; i < 100; ++i) {
    idle.push_back(std::make_unique<Socket>(daemon_->port(), sources[i % 4]));
    trickling.push_back(std::make_unique<Socket>(daemon_->port(), sources[i % 4]));
    ASSERT_TRUE(idle.back()->ok() && trickling.back()->ok());
    trickling.back()->Send("POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  }
  std::vector<double> probes;
  for (int round = 0; round < 5; ++round) {
    for (auto& s : trickling) s->Send("X-Slow: " + std::to_string(round) + "\r\n");
    probes.push_back(ProbeMs());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::string seen;
  for (double ms : probes) seen += std::to_string(ms) + " ms; ";
  for (double ms : probes) EXPECT_GE(ms, 0) << "a probe was not answered within 3 s: " << seen;
  std::sort(probes.begin(), probes.end());
  EXPECT_LT(probes[probes.size() / 2], 100) << seen;
}

// A request whose headers keep trickling in is dropped once
// server.request_timeout_ms has passed since its first byte, although every
// single read comes well within that time.
TEST_F(SlowClients, ARequestNotCompleteWithinTheRequestTimeoutIsDropped) {
  Start({{"MNEMO_SERVER_REQUEST_TIMEOUT_MS", "1000"}});
  Socket slow(daemon_->port());
  ASSERT_TRUE(slow.ok());
  const auto start = Clock::now();
  slow.Send("POST /rpc HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  bool closed = false;
  for (int i = 0; i < 25 && !closed; ++i) {  // 5 s at most
    slow.Send("X-Slow: " + std::to_string(i) + "\r\n");
    closed = slow.ClosedWithin(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(closed) << "still open after " << MsSince(start) << " ms";
  EXPECT_LT(MsSince(start), 2500);
  // Answered 408 (or closed without a word).
  if (!slow.received().empty()) {
    EXPECT_EQ(StatusOf(slow.received()), 408) << slow.received();
  }
  EXPECT_GE(ProbeMs(), 0);
}

// A keep-alive connection with no request in progress is closed after
// server.idle_timeout_ms; so is one that never sends anything.
TEST_F(SlowClients, IdleKeepAliveConnectionsAreClosedAfterTheIdleTimeout) {
  Start({{"MNEMO_SERVER_IDLE_TIMEOUT_MS", "500"}});
  Socket used(daemon_->port());
  Socket silent(daemon_->port());
  ASSERT_TRUE(used.ok() && silent.ok());
  ASSERT_TRUE(used.Send(RpcRequest(1, "memory.stats", json::object())));
  ASSERT_EQ(StatusOf(used.ReadResponse()), 200);
  const auto start = Clock::now();
  EXPECT_TRUE(used.ClosedWithin(std::chrono::milliseconds(3000)));
  EXPECT_LT(MsSince(start), 2000);
  EXPECT_TRUE(silent.ClosedWithin(std::chrono::milliseconds(1000)));
}

// Past server.max_connections_per_client a client address gets 503 and a
// close while other addresses are still served; past server.max_connections
// everyone does.
TEST_F(SlowClients, ConnectionsPastTheLimitsAreRefusedWith503) {
  Start({{"MNEMO_SERVER_MAX_CONNECTIONS_PER_CLIENT", "3"}, {"MNEMO_SERVER_MAX_CONNECTIONS", "5"}});
  std::vector<std::unique_ptr<Socket>> held;
  for (int i = 0; i < 3; ++i)
    held.push_back(std::make_unique<Socket>(daemon_->port(), "127.0.0.2"));
  Socket fourth(daemon_->port(), "127.0.0.2");
  ASSERT_TRUE(fourth.ok());
  fourth.Send(RpcRequest(1, "memory.stats", json::object()));
  std::string refused = fourth.ReadResponse();
  EXPECT_EQ(StatusOf(refused), 503) << refused;
  EXPECT_NE(refused.find("max_connections_per_client"), std::string::npos) << refused;
  EXPECT_TRUE(fourth.ClosedWithin(std::chrono::milliseconds(2000)));

  Socket other(daemon_->port(), "127.0.0.3");  // the 4th connection in all
  ASSERT_TRUE(other.Send(RpcRequest(1, "memory.stats", json::object())));
  EXPECT_EQ(StatusOf(other.ReadResponse()), 200);
  Socket fifth(daemon_->port(), "127.0.0.4");
  ASSERT_TRUE(fifth.ok());
  Socket sixth(daemon_->port(), "127.0.0.5");
  sixth.Send(RpcRequest(1, "memory.stats", json::object()));
  std::string full = sixth.ReadResponse();
  EXPECT_EQ(StatusOf(full), 503) << full;
  EXPECT_NE(full.find("max_connections"), std::string::npos) << full;

  held.clear();  // capacity comes back
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_GE(ProbeMs(), 0);
}

// Five calls on one keep-alive connection: no Nagle / delayed-ACK stall
// (40 ms each on a server without TCP_NODELAY that writes in pieces).
TEST_F(SlowClients, KeepAliveCallsAreNotDelayed) {
  Start({});
  Socket s(daemon_->port());
  ASSERT_TRUE(s.ok());
  std::vector<double> ms;
  for (int i = 0; i < 5; ++i) {
    const auto start = Clock::now();
    ASSERT_TRUE(s.Send(RpcRequest(i, "memory.stats", json::object())));
    ASSERT_EQ(StatusOf(s.ReadResponse()), 200);
    ms.push_back(MsSince(start));
  }
  std::string seen;
  for (double m : ms) seen += std::to_string(m) + " ms; ";
  std::sort(ms.begin(), ms.end());
  EXPECT_LT(ms[2], 20) << seen;
}

// Three requests in one write are all executed and answered, in order.
TEST_F(SlowClients, PipelinedRequestsAreAnsweredInOrder) {
  Start({});
  Socket s(daemon_->port());
  ASSERT_TRUE(s.ok());
  std::string three;
  for (int i = 1; i <= 3; ++i) {
    three += RpcRequest(i, "memory.store",
                        {{"key", "k" + std::to_string(i)}, {"value", "v" + std::to_string(i)}});
  }
  ASSERT_TRUE(s.Send(three));
  for (int i = 1; i <= 3; ++i) {
    std::string r = s.ReadResponse(std::chrono::milliseconds(3000));
    ASSERT_EQ(StatusOf(r), 200) << "response " << i << ": " << r;
    json body = BodyOf(r);
    EXPECT_EQ(body["id"], i) << r;
    EXPECT_TRUE(body.contains("result")) << r;
  }
  Socket check(daemon_->port());
  ASSERT_TRUE(check.Send(RpcRequest(9, "memory.stats", json::object())));
  EXPECT_EQ(BodyOf(check.ReadResponse())["result"]["entries"], 3);
}

}  // namespace
}  // namespace mnemo::e2e

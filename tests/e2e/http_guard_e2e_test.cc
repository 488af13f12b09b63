// The real `mnemo serve` against requests a web page or a smuggler makes
// (issue 42, items 1, 4, 10 and 19): the Host allow-list (DNS rebinding),
// the Origin check (cross-site requests), strict headers and framing, and
// the small ones (nosniff, an audit line per refused token). Raw loopback
// sockets, so that every byte of a request is the test's.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

struct Reply {
  int status = 0;
  std::string head;  // status line and headers
  std::string body;

  bool HasHeader(const std::string& line) const {
    return head.find("\r\n" + line + "\r\n") != std::string::npos;
  }
};

// Sends `request` on a fresh connection and reads until the daemon closes it
// (every request here asks for Connection: close or is refused) or 10 s pass.
Reply Exchange(int port, const std::string& request) {
  Reply reply;
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    close(fd);
    return reply;
  }
  size_t sent = 0;
  while (sent < request.size()) {
    const ssize_t n = send(fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  std::string in;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < give_up) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 200) <= 0) continue;
    char buf[8192];
    const ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  const size_t end = in.find("\r\n\r\n");
  if (in.size() < 12 || end == std::string::npos) return reply;
  reply.status = std::stoi(in.substr(9, 3));
  reply.head = in.substr(0, end + 2);
  reply.body = in.substr(end + 4);
  return reply;
}

std::string Rpc(const std::string& method, const json& params = json::object()) {
  return json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump();
}

// A POST of `body` to `path` with `headers` (each "Name: value\r\n").
std::string Post(const std::string& path, const std::string& headers, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\n" + headers +
         "Content-Type: application/json\r\nConnection: close\r\nContent-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string Get(const std::string& path, const std::string& headers) {
  return "GET " + path + " HTTP/1.1\r\n" + headers + "Connection: close\r\n\r\n";
}

std::string McpInitialize() {
  return json{{"jsonrpc", "2.0"},
              {"id", 1},
              {"method", "initialize"},
              {"params",
               {{"protocolVersion", "2025-06-18"},
                {"capabilities", json::object()},
                {"clientInfo", {{"name", "t"}, {"version", "1"}}}}}}
      .dump();
}

class HttpGuard : public ::testing::Test {
 protected:
  // Starts the daemon; `toml` is the workspace's mnemo.toml ("" for none).
  void Start(const std::string& toml, const std::map<std::string, std::string>& env = {}) {
    if (!toml.empty()) std::ofstream(dir_.Sub("mnemo.toml")) << toml;
    daemon_ = std::make_unique<Daemon>(dir_.path(), env);
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    own_ = "Host: 127.0.0.1:" + std::to_string(daemon_->port()) + "\r\n";
  }

  int port() const { return daemon_->port(); }
  Reply Send(const std::string& request) { return Exchange(port(), request); }

  // The number of entries, asked with the daemon's own Host and `auth`.
  int Entries(const std::string& auth = "") {
    Reply r = Send(Post("/rpc", own_ + auth, Rpc("memory.stats")));
    EXPECT_EQ(r.status, 200) << r.head << r.body;
    return json::parse(r.body, nullptr, false)["result"].value("entries", -1);
  }

  static std::string Store(const std::string& key) {
    return Rpc("memory.store", {{"key", key}, {"value", "written by " + key}});
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::string own_;  // "Host: 127.0.0.1:<port>\r\n"
};

constexpr const char* kTokens =
    "[[security.tokens]]\nprincipal = \"alice\"\nrole = \"user\"\nsha256 = \"";

std::string TokensToml() {
  return std::string(kTokens) + internal::Sha256Hex("alice-token") + "\"\n";
}

// Item 1: a page on evil.example rebinds its name to 127.0.0.1; the browser
// then sends its requests with "Host: evil.example:<port>". Today's main
// served them all (stored, read, inspector page).
TEST_F(HttpGuard, AForeignHostIsRefusedBeforeAnyMethodRuns) {
  Start("");
  const std::string evil = "Host: evil.example:" + std::to_string(port()) + "\r\n";
  Reply store = Send(Post("/rpc", evil, Store("rebound")));
  EXPECT_EQ(store.status, 421) << store.head << store.body;
  EXPECT_NE(store.body.find("evil.example"), std::string::npos) << store.body;
  EXPECT_NE(store.body.find("server.allowed_hosts"), std::string::npos) << store.body;
  EXPECT_EQ(Send(Post("/mcp", evil, McpInitialize())).status, 421);
  EXPECT_EQ(Send(Get("/", evil)).status, 421);
  EXPECT_EQ(Send(Get("/healthz", evil)).status, 421);
  EXPECT_EQ(Send(Get("/metrics", evil)).status, 421);
  EXPECT_EQ(Entries(), 0) << "the refused store ran";

  // No Host on HTTP/1.1: 400 naming the header; HTTP/1.0 may omit it.
  Reply none = Send(Post("/rpc", "", Store("nohost")));
  EXPECT_EQ(none.status, 400) << none.head;
  EXPECT_NE(none.body.find("missing Host header"), std::string::npos) << none.body;
  EXPECT_EQ(Send("GET /healthz HTTP/1.0\r\n\r\n").status, 200);
  // A malformed Host (a user part, a path) is 400.
  EXPECT_EQ(Send(Get("/healthz", "Host: me@127.0.0.1\r\n")).status, 400);
  EXPECT_EQ(Entries(), 0);

  // The loopback names, with and without the port, in any case.
  const std::string p = std::to_string(port());
  for (const std::string& host : std::vector<std::string>{
           "127.0.0.1", "127.0.0.1:" + p, "localhost", "LocalHost:" + p, "[::1]", "[::1]:" + p}) {
    Reply ok = Send(Post("/rpc", "Host: " + host + "\r\n", Store("k")));
    EXPECT_EQ(ok.status, 200) << host << "\n" << ok.head << ok.body;
  }
  EXPECT_EQ(Send(Get("/", "Host: localhost:" + p + "\r\n")).status, 200);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

TEST_F(HttpGuard, AllowedHostsAddNamesAndNamePortPairs) {
  Start("[server]\nallowed_hosts = [\"mnemo.lan\", \"box.lan:9000\"]\n");
  const std::string p = std::to_string(port());
  EXPECT_EQ(Send(Get("/healthz", "Host: mnemo.lan:" + p + "\r\n")).status, 200);
  EXPECT_EQ(Send(Get("/healthz", "Host: MNEMO.lan\r\n")).status, 200);
  EXPECT_EQ(Send(Get("/healthz", "Host: box.lan:9000\r\n")).status, 200);
  EXPECT_EQ(Send(Get("/healthz", "Host: box.lan:9001\r\n")).status, 421);
  EXPECT_EQ(Send(Get("/healthz", "Host: box.lan\r\n")).status, 421);
  EXPECT_EQ(Send(Get("/healthz", "Host: other.lan:" + p + "\r\n")).status, 421);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

TEST_F(HttpGuard, AMalformedAllowListStopsTheDaemonWithTheReason) {
  std::ofstream(dir_.Sub("mnemo.toml")) << "[server]\nallowed_origins = [\"notes.example.com\"]\n";
  Daemon daemon(dir_.path());
  EXPECT_FALSE(daemon.started());
  EXPECT_NE(daemon.Stderr().find("server.allowed_origins entry \"notes.example.com\""),
            std::string::npos)
      << daemon.Stderr();
}

// Item 1: a page the user visits posts to 127.0.0.1 directly (the Host is
// right, the Origin is the page's). Today's main ran every method for it.
TEST_F(HttpGuard, AForeignOriginIsRefusedOnEveryEndpoint) {
  Start("");
  const std::string p = std::to_string(port());
  for (const std::string& origin :
       std::vector<std::string>{"https://evil.example", "null", "http://localhost:1",
                                "http://127.0.0.1:" + p + ".evil.example"}) {
    const std::string headers = own_ + "Origin: " + origin + "\r\n";
    Reply store = Send(Post("/rpc", headers, Store("cross-site")));
    EXPECT_EQ(store.status, 403) << origin << "\n" << store.head << store.body;
    EXPECT_NE(store.body.find("server.allowed_origins"), std::string::npos) << store.body;
    EXPECT_EQ(Send(Post("/mcp", headers, McpInitialize())).status, 403) << origin;
    EXPECT_EQ(Send(Get("/", headers)).status, 403) << origin;
    EXPECT_EQ(Send(Get("/healthz", headers)).status, 403) << origin;
  }
  EXPECT_EQ(Entries(), 0) << "a cross-site store ran";

  // The daemon's own origins (the inspector's requests) are served.
  for (const std::string& origin : std::vector<std::string>{
           "http://127.0.0.1:" + p, "http://localhost:" + p, "http://[::1]:" + p}) {
    Reply ok = Send(Post("/rpc", own_ + "Origin: " + origin + "\r\n", Store("inspector")));
    EXPECT_EQ(ok.status, 200) << origin << "\n" << ok.head << ok.body;
  }
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

TEST_F(HttpGuard, AllowedOriginsAreServed) {
  Start("", {{"MNEMO_SERVER_ALLOWED_ORIGINS", "https://notes.example.com, http://app.lan:3000"}});
  for (const std::string origin : {"https://notes.example.com", "http://app.lan:3000"}) {
    Reply ok = Send(Post("/rpc", own_ + "Origin: " + origin + "\r\n", Store("k")));
    EXPECT_EQ(ok.status, 200) << origin << "\n" << ok.head << ok.body;
  }
  EXPECT_EQ(Send(Get("/healthz", own_ + "Origin: http://app.lan:3001\r\n")).status, 403);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

// Item 1 with tokens: a stolen token does not let a page in either.
TEST_F(HttpGuard, HostAndOriginAreCheckedWithTokensToo) {
  Start(TokensToml());
  const std::string auth = "Authorization: Bearer alice-token\r\n";
  EXPECT_EQ(Send(Post("/rpc", "Host: evil.example\r\n" + auth, Store("a"))).status, 421);
  EXPECT_EQ(Send(Post("/rpc", own_ + auth + "Origin: https://evil.example\r\n", Store("b"))).status,
            403);
  EXPECT_EQ(Entries(auth), 0);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

// Item 4. Today's main took the first of two Authorization headers, served
// values holding a NUL, and refused "bearer" in lower case with 401.
TEST_F(HttpGuard, AuthorizationHeadersAreReadStrictly) {
  Start(TokensToml());
  const std::string good = "Authorization: Bearer alice-token\r\n";
  Reply twice = Send(Post("/rpc", own_ + good + "Authorization: Bearer other\r\n", Store("x")));
  EXPECT_EQ(twice.status, 400) << twice.head << twice.body;
  EXPECT_NE(twice.body.find("several Authorization headers"), std::string::npos) << twice.body;
  EXPECT_EQ(Send(Post("/rpc", own_ + good + good, Store("x"))).status, 400);

  Reply nul = Send(Post("/rpc", own_ + good + std::string("X-Note: a\0b\r\n", 13), Store("x")));
  EXPECT_EQ(nul.status, 400) << nul.head << nul.body;
  EXPECT_NE(nul.body.find("control byte"), std::string::npos) << nul.body;
  EXPECT_EQ(
      Send(Post("/rpc", own_ + "Authorization: Bearer alice-token\x01\r\n", Store("x"))).status,
      400);
  EXPECT_EQ(Entries(good), 0);

  for (const std::string scheme : {"bearer", "BEARER", "bEaReR"}) {
    Reply ok = Send(
        Post("/rpc", own_ + "Authorization: " + scheme + " alice-token\r\n", Store("k-" + scheme)));
    EXPECT_EQ(ok.status, 200) << scheme << "\n" << ok.head << ok.body;
  }
  EXPECT_EQ(Entries(good), 3);
  EXPECT_EQ(Send(Post("/rpc", own_ + "Authorization: Bearerx alice-token\r\n", Store("y"))).status,
            401);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

// Item 10 (RFC 9112 6.1): a proxy that reads the last Transfer-Encoding and
// a server that reads the first frame different requests. Today's main took
// the first of several and served the request; it already refused
// Transfer-Encoding with Content-Length (kept here as a guard).
TEST_F(HttpGuard, AmbiguousFramingAndControlBytesInTheTargetAre400) {
  Start("");
  const std::string body = Rpc("memory.store", {{"key", "smuggled"}, {"value", "v"}});
  char size[16];
  std::snprintf(size, sizeof size, "%zx", body.size());
  const std::string chunked = std::string(size) + "\r\n" + body + "\r\n0\r\n\r\n";
  const std::string head = "POST /rpc HTTP/1.1\r\n" + own_ + "Content-Type: application/json\r\n";

  Reply two =
      Send(head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked);
  EXPECT_EQ(two.status, 400) << two.head << two.body;
  EXPECT_NE(two.body.find("several Transfer-Encoding headers"), std::string::npos) << two.body;
  EXPECT_EQ(
      Send(head + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n" + chunked)
          .status,
      400);
  EXPECT_EQ(Send(head + "Transfer-Encoding: chunked\r\nContent-Length: " +
                 std::to_string(chunked.size()) + "\r\n\r\n" + chunked)
                .status,
            400);
  EXPECT_EQ(Send(head + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked).status,
            400);

  Reply target =
      Send("POST /rpc\x01 HTTP/1.1\r\n" + own_ +
           "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
           "\r\n\r\n" + body);
  EXPECT_EQ(target.status, 400) << target.head << target.body;
  EXPECT_NE(target.body.find("request target"), std::string::npos) << target.body;
  EXPECT_EQ(Send(Get("/healthz\x7f", own_)).status, 400);
  EXPECT_EQ(Entries(), 0);

  // One chunked request is still served.
  Reply one = Send(head + "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked);
  EXPECT_EQ(one.status, 200) << one.head << one.body;
  EXPECT_EQ(Entries(), 1);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

// Item 19: every JSON answer (and every other typed body) says nosniff.
// Today's main sent it with the inspector's pages only.
TEST_F(HttpGuard, JsonResponsesCarryNosniff) {
  Start("");
  for (const Reply& r :
       {Send(Post("/rpc", own_, Rpc("memory.stats"))), Send(Post("/mcp", own_, McpInitialize())),
        Send(Get("/healthz", own_)), Send(Get("/healthz", "Host: evil.example\r\n"))}) {
    EXPECT_TRUE(r.HasHeader("X-Content-Type-Options: nosniff")) << r.head;
    EXPECT_NE(r.head.find("Content-Type: application/json"), std::string::npos) << r.head;
  }
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
}

// Item 19: a refused token leaves a trace for whoever watches the audit log,
// and the token is not in it. Today's main wrote nothing.
TEST_F(HttpGuard, AnInvalidBearerTokenWritesAnAuditLine) {
  Start(TokensToml() + "\n[security.audit]\nenabled = true\n");
  EXPECT_EQ(
      Send(Post("/rpc", own_ + "Authorization: Bearer guessed-token-123\r\n", Rpc("memory.stats")))
          .status,
      401);
  EXPECT_EQ(Send(Get("/metrics", own_ + "Authorization: Bearer guessed-token-456\r\n")).status,
            401);
  EXPECT_EQ(Send(Post("/rpc", own_, Rpc("memory.stats"))).status, 401);
  EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
  std::ifstream in(dir_.Sub("audit.log"));
  std::stringstream log;
  log << in.rdbuf();
  const std::string text = log.str();
  EXPECT_EQ(text.find("guessed-token"), std::string::npos) << text;
  int invalid = 0;
  int missing = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.value("method", "") != "http.authenticate") continue;
    EXPECT_EQ(j.value("outcome", ""), "denied") << line;
    invalid += j.value("key", "") == "invalid_token" ? 1 : 0;
    missing += j.value("key", "") == "no_token" ? 1 : 0;
  }
  EXPECT_EQ(invalid, 2) << text;
  EXPECT_EQ(missing, 1) << text;
}

}  // namespace
}  // namespace mnemo::e2e

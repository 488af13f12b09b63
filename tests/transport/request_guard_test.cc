// The Host allow-list and the Origin check (transport/http/request_guard.h).
#include "transport/http/request_guard.h"

#include <gtest/gtest.h>

namespace mnemo::transport {
namespace {

HttpRequest Head(std::string host, std::string origin = "", int minor = 1) {
  HttpRequest r;
  r.method = "POST";
  r.target = r.path = "/rpc";
  r.minor_version = minor;
  if (!host.empty()) r.headers.emplace_back("Host", std::move(host));
  if (!origin.empty()) r.headers.emplace_back("Origin", std::move(origin));
  return r;
}

int StatusOf(const RequestGuard& g, const HttpRequest& r) {
  const auto refused = g.Check(r);
  return refused ? refused->status : 200;
}

TEST(ParseHostPort, ReadsNamesAddressesAndPorts) {
  EXPECT_EQ(ParseHostPort("LocalHost:8765")->name, "localhost");
  EXPECT_EQ(ParseHostPort("LocalHost:8765")->port, 8765);
  EXPECT_EQ(ParseHostPort("127.0.0.1")->port, -1);
  EXPECT_EQ(ParseHostPort("[::1]:80")->name, "[::1]");
  EXPECT_EQ(ParseHostPort("[FD00::5]")->name, "[fd00::5]");
  for (const char* bad : {"", ":80", "a:", "a:b", "a:99999", "a:1:2", "u@a", "a/b", "a b", "[::1",
                          "[]", "[zz]:1", "::1", "[::1]x"}) {
    EXPECT_FALSE(ParseHostPort(bad)) << bad;
  }
}

TEST(RequestGuard, AcceptsTheLoopbackNamesAndTheListenAddressOnly) {
  const RequestGuard g({.listen_host = "10.0.0.5", .port = 8765});
  for (const char* host : {"localhost", "127.0.0.1:8765", "[::1]:1", "10.0.0.5:8765", "10.0.0.5"}) {
    EXPECT_EQ(StatusOf(g, Head(host)), 200) << host;
  }
  EXPECT_EQ(StatusOf(g, Head("evil.example")), 421);
  EXPECT_EQ(StatusOf(g, Head("127.0.0.2")), 421);
  EXPECT_EQ(StatusOf(g, Head("localhost.")), 421);
  EXPECT_EQ(StatusOf(g, Head("a@localhost")), 400);
  EXPECT_EQ(StatusOf(g, Head("")), 400);                   // HTTP/1.1 without Host
  EXPECT_EQ(StatusOf(g, Head("", "", /*minor=*/0)), 200);  // HTTP/1.0 may omit it
  const RequestGuard wildcard({.listen_host = "0.0.0.0", .port = 8765});
  EXPECT_EQ(StatusOf(wildcard, Head("0.0.0.0")), 421);  // a wildcard names no host
  const RequestGuard v6({.listen_host = "fd00::5", .port = 8765});
  EXPECT_EQ(StatusOf(v6, Head("[fd00::5]:8765")), 200);
}

TEST(RequestGuard, AllowedHostsMatchByNameOrByNameAndPort) {
  const RequestGuard g(
      {.listen_host = "127.0.0.1", .port = 8765, .allowed_hosts = {"Mnemo.lan", "box:9000"}});
  EXPECT_EQ(StatusOf(g, Head("mnemo.lan:1234")), 200);
  EXPECT_EQ(StatusOf(g, Head("box:9000")), 200);
  EXPECT_EQ(StatusOf(g, Head("box:9001")), 421);
  EXPECT_EQ(StatusOf(g, Head("box")), 421);
}

TEST(RequestGuard, AcceptsOnlyTheDaemonsOwnOriginsAndTheAllowedOnes) {
  const RequestGuard g({.listen_host = "127.0.0.1",
                        .port = 8765,
                        .allowed_hosts = {"box:9000", "mnemo.lan"},
                        .allowed_origins = {"https://Notes.example.com/"}});
  for (const char* origin :
       {"http://127.0.0.1:8765", "https://localhost:8765", "http://[::1]:8765", "http://box:9000",
        "http://mnemo.lan:8765", "https://notes.example.com", "HTTPS://NOTES.EXAMPLE.COM"}) {
    EXPECT_EQ(StatusOf(g, Head("127.0.0.1", origin)), 200) << origin;
  }
  for (const char* origin :
       {"null", "https://evil.example", "http://127.0.0.1", "http://localhost:3000",
        "http://127.0.0.1:8765.evil.example", "file://", "http://mnemo.lan",
        "https://notes.example.com:444", "http://notes.example.com", "ws://127.0.0.1:8765"}) {
    EXPECT_EQ(StatusOf(g, Head("127.0.0.1", origin)), 403) << origin;
  }
  // A daemon on port 80 is its own origin without a written port.
  const RequestGuard on80({.listen_host = "127.0.0.1", .port = 80});
  EXPECT_EQ(StatusOf(on80, Head("127.0.0.1", "http://127.0.0.1")), 200);
}

TEST(CheckGuardLists, NamesTheEntryThatIsNoHostOrOrigin) {
  EXPECT_TRUE(CheckGuardLists({"mnemo.lan", "10.0.0.5:8765", "[fd00::5]"},
                              {"https://notes.example.com", "http://a:3000/"})
                  .ok());
  Status bad = CheckGuardLists({"http://mnemo.lan"}, {});
  EXPECT_EQ(bad.field(), "server.allowed_hosts");
  EXPECT_NE(bad.message().find("\"http://mnemo.lan\""), std::string::npos) << bad.message();
  bad = CheckGuardLists({}, {"notes.example.com"});
  EXPECT_EQ(bad.field(), "server.allowed_origins");
  EXPECT_FALSE(CheckGuardLists({}, {"https://a.example/path"}).ok());
}

}  // namespace
}  // namespace mnemo::transport

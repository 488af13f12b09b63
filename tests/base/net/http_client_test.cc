#include "base/net/http_client.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace mnemo::internal {
namespace {

using ::testing::HasSubstr;

// A port on 127.0.0.1 that nothing listens on (bound, read, released).
int UnusedPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  EXPECT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  EXPECT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  ::close(fd);
  return ntohs(addr.sin_port);
}

class LocalServer {
 public:
  LocalServer() {
    server_.Post("/echo", [](const httplib::Request& req, httplib::Response& res) {
      res.set_header("X-Seen-Token", req.get_header_value("X-Token"));
      res.status = 201;
      res.set_content(req.get_header_value("Content-Type") + "|" + req.body, "text/plain");
    });
    server_.Post("/slow", [](const httplib::Request&, httplib::Response& res) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      res.set_content("late", "text/plain");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~LocalServer() {
    server_.stop();
    thread_.join();
  }
  std::string Url(std::string_view path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

TEST(HttpClient, PostsBodyAndHeadersAndReturnsAnyStatus) {
  LocalServer server;
  auto client = NewHttpClient();
  auto response = client->Post(
      {.url = server.Url("/echo"), .body = R"({"a":1})", .headers = {{"X-Token", "t1"}}});
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, R"(application/json|{"a":1})");
  EXPECT_EQ(response->Header("x-seen-token"), "t1");
  EXPECT_EQ(response->Header("X-Absent"), std::nullopt);

  auto not_found = client->Post({.url = server.Url("/nothing-here")});
  ASSERT_TRUE(not_found.ok());
  EXPECT_EQ(not_found->status, 404);
}

TEST(HttpClient, ContentTypeHeaderReplacesTheDefault) {
  LocalServer server;
  auto response = NewHttpClient()->Post(
      {.url = server.Url("/echo"), .body = "x", .headers = {{"content-type", "text/plain"}}});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->body, "text/plain|x");
}

TEST(HttpClient, ConnectionRefusedIsUnavailableNamingTheHost) {
  const int port = UnusedPort();
  auto response =
      NewHttpClient()->Post({.url = "http://127.0.0.1:" + std::to_string(port) + "/v1/embeddings"});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("127.0.0.1:" + std::to_string(port)));
  EXPECT_THAT(response.status().message(), HasSubstr("connection failed"));
}

TEST(HttpClient, SlowServerTimesOutQuickly) {
  LocalServer server;
  const auto start = std::chrono::steady_clock::now();
  auto response = NewHttpClient()->Post({.url = server.Url("/slow"), .timeout_ms = 200});
  const auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("127.0.0.1"));
  EXPECT_THAT(response.status().message(), HasSubstr("timed out"));
  EXPECT_LT(elapsed, std::chrono::milliseconds(1000));
}

TEST(HttpClient, UnresolvableHostIsUnavailable) {
  auto response =
      NewHttpClient()->Post({.url = "http://no-such-host.invalid/x", .timeout_ms = 2000});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("no-such-host.invalid"));
}

TEST(HttpClient, BadUrlIsInvalidArgument) {
  auto client = NewHttpClient();
  for (const char* url :
       {"", "not a url", "localhost:8080/x", "ftp://host/x", "http://", "http://:80/x",
        "http://host:0/", "http://host:65536/", "http://host:8o/", "http://host:/",
        "http://user:pw@host/", "http://[::1/", "http://host/a b"}) {
    auto response = client->Post({.url = url});
    ASSERT_FALSE(response.ok()) << url;
    EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_THAT(response.status().message(), HasSubstr("http(s)://")) << url;
  }
  auto zero_timeout = client->Post({.url = "http://127.0.0.1:1/", .timeout_ms = 0});
  EXPECT_EQ(zero_timeout.status().code(), StatusCode::kInvalidArgument);
}

TEST(ParseHttpUrl, SplitsSchemeHostPortAndPath) {
  auto url = ParseHttpUrl("http://localhost:11434/v1/embeddings?x=1#frag");
  ASSERT_TRUE(url.ok());
  EXPECT_FALSE(url->https);
  EXPECT_EQ(url->host, "localhost");
  EXPECT_EQ(url->port, 11434);
  EXPECT_EQ(url->path, "/v1/embeddings?x=1");

  url = ParseHttpUrl("HTTPS://api.openai.com");
  ASSERT_TRUE(url.ok());
  EXPECT_TRUE(url->https);
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->path, "/");

  url = ParseHttpUrl("http://[::1]:8080/p");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "::1");
  EXPECT_EQ(url->port, 8080);

  url = ParseHttpUrl("http://example.com?q");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port, 80);
  EXPECT_EQ(url->path, "/?q");
}

}  // namespace
}  // namespace mnemo::internal

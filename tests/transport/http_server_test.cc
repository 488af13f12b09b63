#include "transport/http/http_server.h"

#include <gtest/gtest.h>

#include "transport/http/metrics.h"

namespace mnemo::transport {
namespace {

TEST(ParseListen, AcceptsHostPortAndBracketedV6) {
  auto a = ParseListen("127.0.0.1:8765");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 8765);
  auto b = ParseListen("[::1]:0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->host, "::1");
  EXPECT_EQ(b->port, 0);
}

TEST(ParseListen, RejectsMalformedAddresses) {
  for (const char* bad :
       {"", "8765", "127.0.0.1", "127.0.0.1:", ":80", "host:99999", "::1:80", "h:8x"}) {
    auto r = ParseListen(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().field(), "listen");
    }
  }
}

TEST(HttpServerOptions, NonLoopbackWithoutTokensIsRefused) {
  Config c;
  auto r = HttpServerOptionsFromConfig(c, "0.0.0.0:8765");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("security.tokens"), std::string::npos);
  c.security.tokens.push_back({.principal = "alice", .role = "user", .sha256 = "00"});
  c.server.allow_plaintext = true;
  EXPECT_TRUE(HttpServerOptionsFromConfig(c, "0.0.0.0:8765").ok());
}

TEST(HttpServerOptions, NonLoopbackWithoutTlsIsRefusedUnlessPlaintextIsAllowed) {
  Config c;
  c.security.tokens.push_back({.principal = "alice", .role = "user", .sha256 = "00"});
  auto r = HttpServerOptionsFromConfig(c, "0.0.0.0:8765");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("without TLS"), std::string::npos);
  EXPECT_NE(r.status().message().find("server.allow_plaintext"), std::string::npos);
  EXPECT_TRUE(HttpServerOptionsFromConfig(c, "127.0.0.1:8765").ok());
  c.server.allow_plaintext = true;
  auto allowed = HttpServerOptionsFromConfig(c, "0.0.0.0:8765");
  ASSERT_TRUE(allowed.ok());
  EXPECT_EQ(allowed->tls, nullptr);
}

TEST(HttpServerOptions, OneTlsFileWithoutTheOtherIsRefused) {
  Config c;
  c.server.tls_cert = "/nonexistent/cert.pem";
  auto r = HttpServerOptionsFromConfig(c, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().field(), "server.tls_key");
  c.server.tls_cert.clear();
  c.server.tls_key = "/nonexistent/key.pem";
  r = HttpServerOptionsFromConfig(c, "");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().field(), "server.tls_cert");
  c.server.tls_cert = "/nonexistent/cert.pem";
  r = HttpServerOptionsFromConfig(c, "");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/nonexistent/cert.pem"), std::string::npos);
}

TEST(HttpServerOptions, WithoutTokensTheCallerIsTheDefaultPrincipalWithTheDefaultRole) {
  Config c;
  c.security.default_principal = "me";
  auto owner = HttpServerOptionsFromConfig(c, "");
  ASSERT_TRUE(owner.ok());
  EXPECT_EQ(owner->principal.name, "me");
  EXPECT_EQ(owner->principal.role, Role::kAdmin);
  c.security.default_role = "user";
  auto user = HttpServerOptionsFromConfig(c, "");
  ASSERT_TRUE(user.ok());
  EXPECT_EQ(user->principal.role, Role::kUser);
}

TEST(HttpServerOptions, DefaultsComeFromTheServerSection) {
  Config c;
  c.server.workers = 3;
  auto r = HttpServerOptionsFromConfig(c, "");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->listen.host, "127.0.0.1");
  EXPECT_EQ(r->listen.port, 8765);
  EXPECT_EQ(r->workers, 3);
  EXPECT_EQ(r->max_body_bytes, 4194304);
}

TEST(IsLoopback, KnowsLoopbackNames) {
  EXPECT_TRUE(IsLoopback("127.0.0.1"));
  EXPECT_TRUE(IsLoopback("127.1.2.3"));
  EXPECT_TRUE(IsLoopback("::1"));
  EXPECT_TRUE(IsLoopback("localhost"));
  EXPECT_FALSE(IsLoopback("0.0.0.0"));
  EXPECT_FALSE(IsLoopback("192.168.1.2"));
  EXPECT_FALSE(IsLoopback("::"));
}

TEST(Metrics, RendersCountersHistogramAndGauges) {
  Metrics m;
  m.RecordCall("memory.store", "ok", 0.002);
  m.RecordCall("memory.store", "ok", 0.3);
  m.RecordCall("", "parse_error", 0.0001);
  m.RecordHttp(200);
  std::string text = m.Render(5, 2);
  EXPECT_NE(text.find("mnemo_rpc_requests_total{method=\"memory.store\",outcome=\"ok\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("mnemo_rpc_requests_total{method=\"unknown\",outcome=\"parse_error\"} 1"),
            std::string::npos);
  EXPECT_NE(
      text.find(
          "mnemo_rpc_request_duration_seconds_bucket{method=\"memory.store\",le=\"0.0025\"} 1"),
      std::string::npos);
  EXPECT_NE(text.find("mnemo_rpc_request_duration_seconds_count{method=\"memory.store\"} 2"),
            std::string::npos);
  EXPECT_NE(text.find("mnemo_entries 5"), std::string::npos);
  EXPECT_NE(text.find("mnemo_queue_depth 2"), std::string::npos);
  EXPECT_NE(text.find("mnemo_http_responses_total{status=\"200\"} 1"), std::string::npos);
}

}  // namespace
}  // namespace mnemo::transport

#include "transport/http/tls.h"

#include <fcntl.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "test_util.h"
#include "tls_test_pki.h"

namespace mnemo::transport {
namespace {

// A connected non-blocking socket pair: the server's end and a client SSL
// on the other that trusts the test's CA.
class TlsPair : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds_), 0);
    auto context = TlsContext::Load(pki_.cert, pki_.key);
    ASSERT_TRUE(context.ok()) << context.status().message();
    server_context_ = *context;
    client_context_ = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(client_context_, pki_.ca.c_str(), nullptr);
    SSL_CTX_set_verify(client_context_, SSL_VERIFY_PEER, nullptr);
  }
  void TearDown() override {
    if (client_ != nullptr) SSL_free(client_);
    SSL_CTX_free(client_context_);
    close(fds_[0]);
    close(fds_[1]);
  }
  void StartClient() {
    client_ = SSL_new(client_context_);
    SSL_set_fd(client_, fds_[1]);
    SSL_set_connect_state(client_);
  }
  // Drives both ends until the server's handshake ends (at most 200 steps).
  TlsStream::Handshake Handshake(TlsStream& server) {
    TlsStream::Handshake state = TlsStream::Handshake::kPending;
    for (int i = 0; i < 200 && state == TlsStream::Handshake::kPending; ++i) {
      SSL_do_handshake(client_);
      state = server.Continue();
    }
    return state;
  }

  testing::TempDir dir_;
  testing::TestPki pki_{dir_};
  int fds_[2] = {-1, -1};
  std::shared_ptr<TlsContext> server_context_;
  SSL_CTX* client_context_ = nullptr;
  SSL* client_ = nullptr;
};

TEST_F(TlsPair, HandshakesThenReadsAndWritesLikeRecvAndSend) {
  TlsStream server(*server_context_, fds_[0]);
  EXPECT_EQ(server.Continue(), TlsStream::Handshake::kPending);  // nothing sent yet
  EXPECT_EQ(server.WaitEvents(), POLLIN);
  StartClient();
  ASSERT_EQ(Handshake(server), TlsStream::Handshake::kDone);
  ASSERT_EQ(SSL_do_handshake(client_), 1);
  char buf[65536];
  errno = 0;
  EXPECT_EQ(server.Read(buf, sizeof buf), -1);  // nothing yet
  EXPECT_EQ(errno, EAGAIN);
  ASSERT_EQ(SSL_write(client_, "ping", 4), 4);
  ASSERT_EQ(server.Read(buf, sizeof buf), 4);
  EXPECT_EQ(std::string(buf, 4), "ping");
  // A large answer goes out in partial writes, as with send(2).
  const std::string big(1 << 20, 'x');
  size_t sent = 0;
  std::string received;
  for (int round = 0; round < 100000 && received.size() < big.size(); ++round) {
    if (sent < big.size()) {
      const ssize_t n = server.Write(big.data() + sent, big.size() - sent);
      if (n > 0) sent += static_cast<size_t>(n);
      if (n < 0) {
        EXPECT_EQ(errno, EAGAIN);
      }
    }
    const int got = SSL_read(client_, buf, sizeof buf);
    if (got > 0) received.append(buf, static_cast<size_t>(got));
  }
  EXPECT_EQ(received, big);
  // close_notify reaches the client as an orderly end.
  server.Close();
  EXPECT_EQ(SSL_read(client_, buf, sizeof buf), 0);
  EXPECT_EQ(SSL_get_error(client_, 0), SSL_ERROR_ZERO_RETURN);
}

TEST_F(TlsPair, PlainHttpIsRecognisedBeforeAnyTls) {
  TlsStream server(*server_context_, fds_[0]);
  const std::string request = "GET /healthz HTTP/1.1\r\n\r\n";
  ASSERT_EQ(write(fds_[1], request.data(), request.size()), static_cast<ssize_t>(request.size()));
  EXPECT_EQ(server.Continue(), TlsStream::Handshake::kNotTls);
  char buf[64];
  EXPECT_EQ(recv(fds_[0], buf, sizeof buf, 0), static_cast<ssize_t>(request.size()))
      << "the request stays unread for the plain refusal";
}

TEST_F(TlsPair, Tls11IsRefused) {
  SSL_CTX_set_min_proto_version(client_context_, 0);
  SSL_CTX_set_max_proto_version(client_context_, TLS1_1_VERSION);
  SSL_CTX_set_cipher_list(client_context_, "DEFAULT:@SECLEVEL=0");
  TlsStream server(*server_context_, fds_[0]);
  StartClient();
  EXPECT_EQ(Handshake(server), TlsStream::Handshake::kFailed);
}

TEST(TlsFromConfig, NeitherFileIsPlainHttpAndOneAloneIsRefused) {
  Config c;
  auto none = TlsFromConfig(c);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, nullptr);
  c.server.tls_cert = "/x/cert.pem";
  auto half = TlsFromConfig(c);
  ASSERT_FALSE(half.ok());
  EXPECT_EQ(half.status().field(), "server.tls_key");
  EXPECT_NE(half.status().message().find("server.tls_cert is set without server.tls_key"),
            std::string::npos);
}

TEST(TlsContextLoad, AKeyThatIsNotTheCertificatesIsRefusedNamingBothFiles) {
  testing::TempDir one;
  testing::TempDir other;
  testing::TestPki a(one);
  testing::TestPki b(other);
  auto r = TlsContext::Load(a.cert, b.key);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().field(), "server.tls_key");
  EXPECT_NE(r.status().message().find(b.key), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find(a.cert), std::string::npos) << r.status().message();
  auto missing = TlsContext::Load(a.cert + ".missing", a.key);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().field(), "server.tls_cert");
}

}  // namespace
}  // namespace mnemo::transport

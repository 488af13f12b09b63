#include "transport/http/tls.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>

#include <cerrno>
#include <ctime>

namespace mnemo::transport {
namespace {

// TLS 1.2 suites with forward secrecy and an AEAD cipher (TLS 1.3 suites are
// all of that kind and keep OpenSSL's defaults).
constexpr const char* kTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// The first byte of a TLS handshake record (RFC 8446 §5.1, content type 22).
constexpr unsigned char kHandshakeRecord = 0x16;

// OpenSSL's reason for the last failure, and its queue emptied.
std::string TakeOpenSslError() {
  std::string reason;
  while (const unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason = text;  // the last is the most specific
  }
  return reason.empty() ? "unknown OpenSSL error" : reason;
}

}  // namespace

Result<std::shared_ptr<TlsContext>> TlsContext::Load(const std::string& cert_path,
                                                     const std::string& key_path) {
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return Internal("cannot create a TLS context: " + TakeOpenSslError());
  std::shared_ptr<TlsContext> context(new TlsContext(ctx));
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Partial writes and a moving buffer: Write behaves like send(2) over the
  // loop's output buffer; idle connections give their buffers back.
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
                            SSL_MODE_RELEASE_BUFFERS);
  if (SSL_CTX_set_cipher_list(ctx, kTls12Ciphers) != 1) {
    return Internal("cannot set the TLS 1.2 ciphers: " + TakeOpenSslError());
  }
  if (SSL_CTX_use_certificate_chain_file(ctx, cert_path.c_str()) != 1) {
    return InvalidArgument("server.tls_cert \"" + cert_path +
                               "\" cannot be used: " + TakeOpenSslError() +
                               "; give a PEM file with the server's certificate first",
                           "server.tls_cert");
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, key_path.c_str(), SSL_FILETYPE_PEM) != 1) {
    return InvalidArgument(
        "server.tls_key \"" + key_path + "\" cannot be used with server.tls_cert \"" + cert_path +
            "\": " + TakeOpenSslError() + "; give that certificate's PEM private key",
        "server.tls_key");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return InvalidArgument("server.tls_key \"" + key_path +
                               "\" is not the key of server.tls_cert \"" + cert_path +
                               "\": " + TakeOpenSslError(),
                           "server.tls_key");
  }
  return context;
}

Result<std::shared_ptr<const TlsContext>> TlsFromConfig(const Config& config) {
  const std::string& cert = config.server.tls_cert;
  const std::string& key = config.server.tls_key;
  if (cert.empty() && key.empty()) return std::shared_ptr<const TlsContext>();
  if (cert.empty() || key.empty()) {
    return InvalidArgument(
        std::string(cert.empty() ? "server.tls_key is set without server.tls_cert"
                                 : "server.tls_cert is set without server.tls_key") +
            ": TLS needs both (PEM certificate chain and its private key), or neither for "
            "plain HTTP on a loopback address",
        cert.empty() ? "server.tls_cert" : "server.tls_key");
  }
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<TlsContext> context, TlsContext::Load(cert, key));
  return std::shared_ptr<const TlsContext>(std::move(context));
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

TlsStream::TlsStream(const TlsContext& context, int fd) : ssl_(SSL_new(context.native())), fd_(fd) {
  if (ssl_ != nullptr) {
    SSL_set_fd(ssl_, fd);
    SSL_set_accept_state(ssl_);
  }
}

TlsStream::~TlsStream() { SSL_free(ssl_); }

TlsStream::Handshake TlsStream::Continue() {
  if (ssl_ == nullptr) return Handshake::kFailed;
  if (!peeked_) {
    // A client speaking plain HTTP to this port gets a readable refusal
    // from the loop instead of a TLS alert it cannot decode.
    unsigned char first = 0;
    const ssize_t n = recv(fd_, &first, 1, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      wait_ = POLLIN;
      return Handshake::kPending;
    }
    if (n <= 0) return Handshake::kFailed;
    peeked_ = true;
    if (first != kHandshakeRecord) return Handshake::kNotTls;
  }
  ERR_clear_error();
  const int rc = SSL_do_handshake(ssl_);
  if (rc == 1) {
    wait_ = 0;
    return Handshake::kDone;
  }
  switch (SSL_get_error(ssl_, rc)) {
    case SSL_ERROR_WANT_READ: wait_ = POLLIN; return Handshake::kPending;
    case SSL_ERROR_WANT_WRITE: wait_ = POLLOUT; return Handshake::kPending;
    default: ERR_clear_error(); return Handshake::kFailed;
  }
}

ssize_t TlsStream::Read(char* buffer, size_t size) {
  ERR_clear_error();
  size_t total = 0;
  // One call takes a whole record when `size` allows (records are at most
  // 16 KiB), so nothing decrypted waits inside OpenSSL where poll(2)
  // cannot see it.
  while (total < size) {
    size_t got = 0;
    const int rc = SSL_read_ex(ssl_, buffer + total, size - total, &got);
    if (rc != 1) {
      if (total > 0) break;  // the failure shows again on the next call
      return Fail(rc);
    }
    total += got;
    if (SSL_pending(ssl_) == 0) break;
  }
  ERR_clear_error();
  wait_ = 0;
  return static_cast<ssize_t>(total);
}

bool TlsStream::HasPending() const { return SSL_pending(ssl_) > 0; }

ssize_t TlsStream::Write(const char* data, size_t size) {
  ERR_clear_error();
  size_t written = 0;
  const int rc = SSL_write_ex(ssl_, data, size, &written);
  if (rc != 1) return Fail(rc);
  wait_ = 0;
  return static_cast<ssize_t>(written);
}

void TlsStream::Close() {
  ERR_clear_error();
  if (SSL_is_init_finished(ssl_) == 1) SSL_shutdown(ssl_);
  ERR_clear_error();
}

ssize_t TlsStream::Fail(int rc) {
  switch (SSL_get_error(ssl_, rc)) {
    case SSL_ERROR_WANT_READ:
      wait_ = POLLIN;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_WANT_WRITE:
      wait_ = POLLOUT;
      errno = EAGAIN;
      return -1;
    case SSL_ERROR_ZERO_RETURN: wait_ = 0; return 0;
    default:
      ERR_clear_error();
      wait_ = 0;
      errno = ECONNRESET;
      return -1;
  }
}

ScopedSigpipeBlock::ScopedSigpipeBlock() {
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  sigset_t old;
  pthread_sigmask(SIG_BLOCK, &pipe, &old);
  was_blocked_ = sigismember(&old, SIGPIPE) == 1;
}

ScopedSigpipeBlock::~ScopedSigpipeBlock() {
  if (was_blocked_) return;
  sigset_t pipe;
  sigemptyset(&pipe);
  sigaddset(&pipe, SIGPIPE);
  const timespec now{0, 0};
  while (sigtimedwait(&pipe, nullptr, &now) == SIGPIPE) {
  }
  pthread_sigmask(SIG_UNBLOCK, &pipe, nullptr);
}

}  // namespace mnemo::transport

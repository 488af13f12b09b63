// TLS for the daemon's own event loop (transport/http/http_event_loop.h): a
// server context made once at start from PEM files, and one non-blocking
// stream per accepted socket whose Read/Write behave like recv/send, so that
// the loop frames requests and applies its deadlines and limits the same way
// with TLS as without it (docs/http-server.md, "TLS").
//
// Policy (stated here only): TLS 1.2 and 1.3; on 1.2 ECDHE key exchange with
// AES-GCM or ChaCha20-Poly1305 only; no compression, no renegotiation.
#pragma once

#include <openssl/types.h>
#include <sys/types.h>

#include <memory>
#include <string>

#include "mnemo/config.h"
#include "mnemo/status.h"

namespace mnemo::transport {

// The server's certificate chain and key. Immutable once loaded; shared by
// every connection (OpenSSL's context is thread-safe for that use).
class TlsContext {
 public:
  // `cert_path`: PEM certificate chain, the server's first; `key_path`: its
  // PEM private key. InvalidArgument naming the key (server.tls_cert or
  // server.tls_key), the path and OpenSSL's reason when a file cannot be
  // read or parsed, or when the key does not match the certificate.
  static Result<std::shared_ptr<TlsContext>> Load(const std::string& cert_path,
                                                  const std::string& key_path);
  ~TlsContext();
  TlsContext(const TlsContext&) = delete;
  TlsContext& operator=(const TlsContext&) = delete;

  SSL_CTX* native() const { return ctx_; }

 private:
  explicit TlsContext(SSL_CTX* ctx) : ctx_(ctx) {}
  SSL_CTX* ctx_;
};

// The context of server.tls_cert and server.tls_key, null when neither is
// set; InvalidArgument when only one is, or when Load refuses the files.
Result<std::shared_ptr<const TlsContext>> TlsFromConfig(const Config& config);

// TLS over one accepted non-blocking socket (not owned: the caller closes
// it after the stream is gone). Used by one thread at a time.
class TlsStream {
 public:
  enum class Handshake {
    kDone,     // the connection is ready for Read/Write
    kPending,  // wait for WaitEvents() and call Continue again
    kNotTls,   // the client's first bytes are not a TLS record (plain HTTP)
    kFailed,   // refused (old version, no shared cipher) or broken: close
  };

  TlsStream(const TlsContext& context, int fd);
  ~TlsStream();
  TlsStream(const TlsStream&) = delete;
  TlsStream& operator=(const TlsStream&) = delete;

  // Advances the server handshake as far as the socket allows.
  Handshake Continue();
  // Like recv/send: > 0 bytes moved; 0 from Read when the client closed;
  // -1 with errno EAGAIN when TLS must wait for WaitEvents(), else -1 with
  // errno ECONNRESET (the connection is broken or spoke bad TLS). Write
  // takes partial writes; after EAGAIN it must be called again with the
  // same bytes at the front.
  ssize_t Read(char* buffer, size_t size);
  ssize_t Write(const char* data, size_t size);
  // Whether decrypted bytes wait inside OpenSSL, where poll(2) cannot see
  // them: a Read shorter than the record (the end of a request body) leaves
  // the rest there.
  bool HasPending() const;
  // Sends close_notify, best effort (never waits).
  void Close();
  // POLLIN or POLLOUT when the last call waits on the socket in that
  // direction (a TLS read may need to write and the other way round);
  // 0 when nothing is pending.
  short WaitEvents() const { return wait_; }

 private:
  // Maps an OpenSSL result <= 0 to the recv/send convention above.
  ssize_t Fail(int rc);

  SSL* ssl_;
  int fd_;
  bool peeked_ = false;
  short wait_ = 0;
};

// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the
// client has gone; for the life of this object the calling thread holds
// SIGPIPE blocked (the write fails with EPIPE instead), and on the way out
// takes any it caused and restores the thread's mask.
class ScopedSigpipeBlock {
 public:
  ScopedSigpipeBlock();
  ~ScopedSigpipeBlock();
  ScopedSigpipeBlock(const ScopedSigpipeBlock&) = delete;
  ScopedSigpipeBlock& operator=(const ScopedSigpipeBlock&) = delete;

 private:
  bool was_blocked_ = false;
};

}  // namespace mnemo::transport

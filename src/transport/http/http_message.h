// HTTP/1.1 messages of the daemon (spec 60): a request framed incrementally
// from the bytes of a connection, and a response written in one piece.
// Framing only — routing, authentication and JSON live in http_server.cc,
// sockets and deadlines in http_event_loop.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mnemo::transport {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method;     // as sent: GET, POST, ...
  std::string target;     // as sent, query included
  std::string path;       // target up to '?'
  int minor_version = 1;  // HTTP/1.<minor>
  HttpHeaders headers;    // in arrival order, names as sent
  std::string body;       // de-chunked; a Content-Length body is allocated once, at that length
  std::string client;     // the peer's address, set by the event loop

  // The first header named `name` (case-insensitive), "" when absent.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
  // Whether the connection may carry another request after this one
  // (HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with keep-alive).
  bool KeepAlive() const;
};

struct HttpResponse {
  int status = 200;
  HttpHeaders headers;  // besides Content-Length, Content-Type and Connection
  std::string content_type;
  std::string body;
  bool close = false;  // close the connection after this response

  void Set(int code, std::string content, std::string type) {
    status = code;
    body = std::move(content);
    content_type = std::move(type);
  }
  void AddHeader(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
};

// The bytes of `response`: status line, headers (Content-Length always,
// "X-Content-Type-Options: nosniff" with every Content-Type, "Connection:
// close" when `keep_alive` is false, otherwise "Keep-Alive:
// timeout=<idle_timeout_s>"), body.
std::string SerializeResponse(const HttpResponse& response, bool keep_alive,
                              int64_t idle_timeout_s);

// "OK", "Not Found", ... ("Unknown" for codes it does not name).
std::string_view ReasonPhrase(int status);

// Frames one request at a time from the front of a connection's buffer.
// Bounded: the request line and headers by `max_header_bytes` (431), the
// body by `max_body_bytes` whether declared by Content-Length or chunked
// (413). Anything it cannot frame is an error with a status (400, 501, 505),
// and so is anything two readers could frame differently (RFC 9112 6.1):
// several Transfer-Encoding, Host, Authorization or Origin headers,
// Transfer-Encoding with Content-Length, differing Content-Lengths, a
// control byte in the request target or in a header value (400).
//
// A Content-Length body is written once on its way to the handler: its
// string is allocated at the declared length (after the 413 check) when its
// first byte is placed, the bytes that arrived in the input with the head
// are copied into it (the one move they take), and the rest is read by the
// caller straight into BodyWindow(). A chunked body is decoded out of the
// input (a copy).
class RequestParser {
 public:
  struct Limits {
    size_t max_header_bytes = 65536;
    size_t max_body_bytes = 4194304;
  };
  enum class State {
    kNeedMore,     // no complete request yet: read more
    kHeadersDone,  // the head is parsed, the body is not complete yet
    kComplete,     // Take() the request
    kError,        // error_status()/error_message(); the connection must close
  };

  explicit RequestParser(Limits limits) : limits_(limits) {}

  // Frames what it can of `input` (from the front) and sets `consumed` to
  // the bytes it used; bytes past the request stay for the next one, and the
  // caller drops only the consumed ones (the event loop's ReadBuffer, without
  // moving the rest). Call again after more bytes arrive.
  State Feed(std::string_view input, size_t& consumed);
  // The same over a string whose consumed front it erases.
  State Feed(std::string& buffer);
  // The head once State is kHeadersDone or kComplete (its body is complete
  // only at kComplete).
  const HttpRequest& head() const { return request_; }
  // While a Content-Length body is arriving (kHeadersDone, every byte of the
  // buffer consumed): the part of the request's body where its next bytes
  // go, at most kBodyWindow bytes and never past the body (so a pipelined
  // request that follows stays unread). The caller reads into it and reports
  // how many bytes it got with BodyReceived(), then calls Feed() again.
  // Empty in any other state (a chunked body, the head, a complete body).
  // The window is zeroed when opened, each byte once, so a slow client's
  // declared length is not committed before its bytes come near.
  std::span<char> BodyWindow();
  void BodyReceived(size_t n);
  static constexpr size_t kBodyWindow = 262144;
  // The complete request; resets the parser for the next one.
  HttpRequest Take();
  // True once, right after the head of a request carrying
  // "Expect: 100-continue" is parsed (the caller answers 100 Continue).
  bool TakeContinue();

  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class Phase { kHead, kFixedBody, kChunkSize, kChunkData, kChunkDataEnd, kTrailer, kDone };
  State Fail(int status, std::string message);
  State ParseHead(std::string_view& input, size_t& consumed);
  State ParseBody(std::string_view& input, size_t& consumed);

  Limits limits_;
  Phase phase_ = Phase::kHead;
  HttpRequest request_;
  uint64_t remaining_ = 0;  // of the fixed body or the current chunk
  uint64_t declared_ = 0;   // the Content-Length of a fixed body
  bool expect_continue_ = false;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace mnemo::transport

// Request framing of the daemon (transport/http/http_message.h) and the listening
// rules of its event loop.
#include "transport/http/http_message.h"

#include <gtest/gtest.h>

#include <cstring>
#include <span>
#include <utility>
#include <vector>

#include "transport/http/http_event_loop.h"

namespace mnemo::transport {
namespace {

using State = RequestParser::State;

RequestParser Parser(size_t max_body = 1024) {
  return RequestParser({.max_header_bytes = 4096, .max_body_bytes = max_body});
}

TEST(RequestParser, FramesPipelinedRequestsOneAtATimeInOrder) {
  RequestParser p = Parser();
  std::string in =
      "POST /rpc HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\none"
      "POST /rpc?x=1 HTTP/1.1\r\ncontent-length: 3\r\n\r\ntwo"
      "GET /healthz HTTP/1.0\r\n\r\n";
  ASSERT_EQ(p.Feed(in), State::kComplete);
  HttpRequest a = p.Take();
  EXPECT_EQ(a.body, "one");
  EXPECT_TRUE(a.KeepAlive());
  ASSERT_EQ(p.Feed(in), State::kComplete);
  HttpRequest b = p.Take();
  EXPECT_EQ(b.path, "/rpc");
  EXPECT_EQ(b.target, "/rpc?x=1");
  EXPECT_EQ(b.body, "two");
  ASSERT_EQ(p.Feed(in), State::kComplete);
  HttpRequest c = p.Take();
  EXPECT_EQ(c.method, "GET");
  EXPECT_FALSE(c.KeepAlive());  // HTTP/1.0 without keep-alive
  EXPECT_TRUE(in.empty());
  EXPECT_EQ(p.Feed(in), State::kNeedMore);
}

TEST(RequestParser, WaitsForBytesThatArriveInPieces) {
  RequestParser p = Parser();
  const std::string whole = "POST /rpc HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
  std::string in;
  for (size_t i = 0; i + 1 < whole.size(); ++i) {
    in += whole[i];
    EXPECT_NE(p.Feed(in), State::kComplete) << i;
  }
  in += whole.back();
  ASSERT_EQ(p.Feed(in), State::kComplete);
  EXPECT_EQ(p.Take().body, "hello");
}

// Issue 45: the parser frames a view of the connection's buffer and says how
// many bytes it used; the caller drops those and nothing else moves.
TEST(RequestParser, FramesAViewAndReportsTheBytesItConsumed) {
  RequestParser p = Parser();
  const std::string first = "\r\nPOST /rpc HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello";
  const std::string second = "GET / HTTP/1.1\r\n";
  const std::string in = first + second;
  size_t consumed = 99;
  ASSERT_EQ(p.Feed(std::string_view(in).substr(0, 10), consumed), State::kNeedMore);
  EXPECT_EQ(consumed, 2U);  // the empty line before the request line only
  ASSERT_EQ(p.Feed(std::string_view(in).substr(2), consumed), State::kComplete);
  EXPECT_EQ(consumed, first.size() - 2);
  EXPECT_EQ(p.Take().body, "hello");
  ASSERT_EQ(p.Feed(std::string_view(in).substr(first.size()), consumed), State::kNeedMore);
  EXPECT_EQ(consumed, 0U);  // a partial head stays where it is
}

// Issue 45: a Content-Length body is written once between the socket and the
// handler. The bytes that came with the head are copied in; every later read
// goes straight into the request's body, which is never reallocated.
TEST(RequestParser, ReadsTheRestOfAContentLengthBodyStraightIntoTheRequest) {
  RequestParser p = Parser(1 << 20);
  std::string body(700000, '\0');
  for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<char>('a' + i % 26);
  std::string in = "POST /rpc HTTP/1.1\r\nContent-Length: " + std::to_string(body.size()) +
                   "\r\n\r\n" + body.substr(0, 1000);
  ASSERT_EQ(p.Feed(in), State::kHeadersDone);
  EXPECT_TRUE(in.empty());
  size_t at = 1000;
  std::vector<std::pair<const char*, size_t>> windows;  // where each read went, its offset
  while (at < body.size()) {
    const std::span<char> window = p.BodyWindow();
    ASSERT_FALSE(window.empty()) << at;
    EXPECT_LE(window.size(), RequestParser::kBodyWindow);
    // A read of a third of the window at most, as a slow client's would be.
    const size_t n = std::min(window.size() / 3 + 1, body.size() - at);
    std::memcpy(window.data(), body.data() + at, n);
    windows.emplace_back(window.data(), at);
    p.BodyReceived(n);
    at += n;
    ASSERT_EQ(p.Feed(in), at < body.size() ? State::kHeadersDone : State::kComplete) << at;
  }
  EXPECT_TRUE(p.BodyWindow().empty());
  ASSERT_GT(windows.size(), 5U);
  const HttpRequest request = p.Take();
  ASSERT_EQ(request.body, body);
  for (const auto& [window, offset] : windows) {
    EXPECT_EQ(window, request.body.data() + offset) << offset;
  }
}

TEST(RequestParser, AllocatesAContentLengthBodyOnceAtItsLength) {
  RequestParser p = Parser(1 << 20);
  const std::string body(300000, 'x');
  std::string in = "POST /rpc HTTP/1.1\r\nContent-Length: 300000\r\n\r\n" + body.substr(0, 10);
  ASSERT_EQ(p.Feed(in), State::kHeadersDone);
  const char* first = p.head().body.data();
  for (size_t at = 10; at < body.size(); at += 65536) {
    in = body.substr(at, 65536);
    p.Feed(in);
  }
  const HttpRequest request = p.Take();
  EXPECT_EQ(request.body, body);
  EXPECT_EQ(request.body.data(), first);
  EXPECT_EQ(request.body.capacity(), body.size());
}

TEST(RequestParser, AWindowNeverReachesPastTheBodyIntoAPipelinedRequest) {
  RequestParser p = Parser();
  std::string in = "POST /rpc HTTP/1.1\r\nContent-Length: 5\r\n\r\nab";
  ASSERT_EQ(p.Feed(in), State::kHeadersDone);
  std::span<char> window = p.BodyWindow();
  ASSERT_EQ(window.size(), 3U);
  std::memcpy(window.data(), "c", 1);
  p.BodyReceived(1);
  // Bytes that land in the buffer instead (a caller that read there) are
  // taken in order and the window shrinks past them.
  in = "d";
  ASSERT_EQ(p.Feed(in), State::kHeadersDone);
  window = p.BodyWindow();
  ASSERT_EQ(window.size(), 1U);
  window[0] = 'e';
  p.BodyReceived(1);
  in = "GET /healthz HTTP/1.1\r\n\r\n";
  ASSERT_EQ(p.Feed(in), State::kComplete);
  EXPECT_EQ(p.Take().body, "abcde");
  EXPECT_TRUE(p.BodyWindow().empty());
  ASSERT_EQ(p.Feed(in), State::kComplete);
  EXPECT_EQ(p.Take().path, "/healthz");
}

TEST(RequestParser, DechunksAndCountsChunkedBodiesAgainstTheLimit) {
  RequestParser p = Parser(10);
  std::string in =
      "POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
      "4\r\nabcd\r\n3;ext=1\r\nefg\r\n0\r\nTrailer: x\r\n\r\n";
  ASSERT_EQ(p.Feed(in), State::kComplete);
  EXPECT_EQ(p.Take().body, "abcdefg");
  std::string big =
      "POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n";
  EXPECT_EQ(p.Feed(big), State::kError);
  EXPECT_EQ(p.error_status(), 413);
}

TEST(RequestParser, RefusesADeclaredBodyOverTheLimitBeforeReadingIt) {
  RequestParser p = Parser(10);
  std::string in = "POST /rpc HTTP/1.1\r\nContent-Length: 11\r\n\r\n";
  EXPECT_EQ(p.Feed(in), State::kError);
  EXPECT_EQ(p.error_status(), 413);
  EXPECT_NE(p.error_message().find("server.max_body_bytes"), std::string::npos);
}

TEST(RequestParser, RefusesWhatItCannotFrameSafely) {
  struct Case {
    std::string in;
    int status;
  };
  const Case cases[] = {
      {"POST /rpc HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST /rpc HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 400},
      {"POST /rpc HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST /rpc HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
      {"GET / HTTP/2.0\r\n\r\n", 505},
      {"GET /\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nbad header\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: " + std::string(5000, 'a'), 431},
      // Issue 42: what two readers could frame or read differently.
      {"POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
       400},
      {"POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nAuthorization: Bearer a\r\nauthorization: Bearer b\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nOrigin: http://a\r\nOrigin: http://b\r\n\r\n", 400},
      {std::string("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 26), 400},
      {"GET / HTTP/1.1\r\nX: a\nContent-Length: 5\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: a\x1b[0m\r\n\r\n", 400},
      {"GET /a\x01 HTTP/1.1\r\n\r\n", 400},
      {"GET /\x7f HTTP/1.1\r\n\r\n", 400},
      {"POST /rpc HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(1100, '0') +
           "1\r\na\r\n0\r\n\r\n",
       400},
  };
  for (const Case& c : cases) {
    RequestParser p = Parser();
    std::string in = c.in;
    EXPECT_EQ(p.Feed(in), State::kError) << c.in.substr(0, 60);
    EXPECT_EQ(p.error_status(), c.status) << c.in.substr(0, 60);
  }
}

TEST(RequestParser, KeepsTabsAndTextInValuesAndTwoEqualContentLengths) {
  RequestParser p = Parser();
  std::string in =
      "POST /rpc HTTP/1.1\r\nX-Note: a\tb caf\xc3\xa9\r\nContent-Length: 2\r\n"
      "Content-Length: 2\r\n\r\nok";
  ASSERT_EQ(p.Feed(in), State::kComplete) << p.error_message();
  EXPECT_EQ(p.Take().Header("X-Note"), "a\tb caf\xc3\xa9");
}

TEST(RequestParser, AsksForContinueOnceForExpect100) {
  RequestParser p = Parser();
  std::string in = "POST /rpc HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  ASSERT_EQ(p.Feed(in), State::kHeadersDone);
  EXPECT_TRUE(p.TakeContinue());
  EXPECT_FALSE(p.TakeContinue());
  in = "{}";
  ASSERT_EQ(p.Feed(in), State::kComplete);
}

TEST(SerializeResponse, WritesLengthAndConnectionHeaders) {
  HttpResponse r;
  r.Set(200, "{}", "application/json");
  r.AddHeader("Mcp-Session-Id", "s");
  EXPECT_EQ(SerializeResponse(r, true, 15),
            "HTTP/1.1 200 OK\r\nMcp-Session-Id: s\r\nContent-Type: application/json\r\n"
            "X-Content-Type-Options: nosniff\r\nContent-Length: 2\r\nKeep-Alive: "
            "timeout=15\r\n\r\n{}");
  HttpResponse none;
  none.status = 204;
  EXPECT_EQ(SerializeResponse(none, false, 15),
            "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
}

class NullHandler : public HttpHandler {
 public:
  std::optional<HttpResponse> CheckHead(const HttpRequest&) override { return std::nullopt; }
  HttpResponse Handle(const HttpRequest&) override { return {}; }
  HttpResponse Refusal(int status, const std::string&) override {
    HttpResponse r;
    r.status = status;
    return r;
  }
  void Responded(int) override {}
};

TEST(HttpEventLoop, ATakenAddressIsAlreadyInUse) {
  NullHandler handler;
  HttpEventLoop first(EventLoopOptions{}, handler);
  Result<int> port = first.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status().message();
  HttpEventLoop second(EventLoopOptions{}, handler);
  Result<int> again = second.Bind("127.0.0.1", *port);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), "127.0.0.1:" + std::to_string(*port) + " is already in use");
}

}  // namespace
}  // namespace mnemo::transport

// The daemon's HTTP/1.1 request parser (transport/http/http_message.h,
// RequestParser), fed the input as the bytes of one connection. The first
// byte picks how the bytes arrive (all at once, or in pieces of 1-255
// bytes; in pieces a Content-Length body goes into the parser's body window
// as the event loop reads it), the rest is the connection. Properties: the parser never throws
// or loops; it frames the same requests and ends with the same error
// however the bytes arrive (a request that two readers frame differently is
// how requests are smuggled); every request it hands out has a method of
// token characters, a target and header values without control bytes, at
// most one Host, Authorization, Origin and Transfer-Encoding, never
// Transfer-Encoding with Content-Length, and a body within the limit.
#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_util.h"
#include "transport/http/http_message.h"

using mnemo::fuzz::Fail;
using mnemo::transport::HttpRequest;
using mnemo::transport::RequestParser;

namespace {

constexpr RequestParser::Limits kLimits{.max_header_bytes = 2048, .max_body_bytes = 8192};

struct Outcome {
  std::vector<HttpRequest> requests;
  int error = 0;  // the status of the error that ended the connection
};

// Feeds `data` to one parser in pieces of `step` bytes (0: all at once, into
// the buffer only; otherwise a piece goes into an open body window first, at
// most the window's size, as the event loop reads).
Outcome Frame(std::string_view data, size_t step) {
  RequestParser parser(kLimits);
  Outcome out;
  std::string buffer;
  size_t fed = 0;
  // Each round consumes input or ends: a bound against a parser that spins.
  for (size_t rounds = 0; rounds < 4 * data.size() + 16; ++rounds) {
    const RequestParser::State state = parser.Feed(buffer);
    if (state == RequestParser::State::kError) {
      out.error = parser.error_status();
      if (out.error < 400 || out.error > 599) Fail("an error status outside 4xx/5xx");
      if (parser.error_message().empty()) Fail("an error without a message");
      return out;
    }
    if (state == RequestParser::State::kComplete) {
      out.requests.push_back(parser.Take());
      continue;
    }
    if (fed == data.size()) return out;
    size_t n = step == 0 ? data.size() - fed : std::min(step, data.size() - fed);
    if (const std::span<char> window = parser.BodyWindow(); step != 0 && !window.empty()) {
      if (!buffer.empty()) Fail("a body window open while the buffer holds bytes");
      n = std::min(n, window.size());
      std::memcpy(window.data(), data.data() + fed, n);
      parser.BodyReceived(n);
      fed += n;
      continue;
    }
    buffer.append(data.substr(fed, n));
    fed += n;
  }
  Fail("the parser neither consumed its input nor ended");
}

bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

int Count(const HttpRequest& r, std::string_view name) {
  int n = 0;
  for (const auto& [field, _] : r.headers) {
    n += std::equal(field.begin(), field.end(), name.begin(), name.end(),
                    [](char a, char b) {
                      return std::tolower(static_cast<unsigned char>(a)) ==
                             std::tolower(static_cast<unsigned char>(b));
                    })
             ? 1
             : 0;
  }
  return n;
}

void CheckRequest(const HttpRequest& r) {
  if (r.method.empty() || r.target.empty()) Fail("a request without a method or a target");
  if (std::any_of(r.method.begin(), r.method.end(), IsControl)) Fail("a control byte in a method");
  if (std::any_of(r.target.begin(), r.target.end(), IsControl)) Fail("a control byte in a target");
  if (r.path != r.target.substr(0, r.target.find('?'))) Fail("a path that is not the target's");
  for (const auto& [name, value] : r.headers) {
    if (std::any_of(value.begin(), value.end(), [](char c) { return c != '\t' && IsControl(c); })) {
      Fail("a control byte in the value of header " + name);
    }
  }
  for (std::string_view single : {"Host", "Authorization", "Origin", "Transfer-Encoding"}) {
    if (Count(r, single) > 1) Fail("several " + std::string(single) + " headers accepted");
  }
  if (Count(r, "Transfer-Encoding") > 0 && Count(r, "Content-Length") > 0) {
    Fail("Transfer-Encoding accepted with Content-Length");
  }
  if (r.body.size() > kLimits.max_body_bytes) Fail("a body past the limit");
}

bool Same(const HttpRequest& a, const HttpRequest& b) {
  return a.method == b.method && a.target == b.target && a.minor_version == b.minor_version &&
         a.headers == b.headers && a.body == b.body;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t step = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = Frame(bytes, 0);
  for (const HttpRequest& r : whole.requests) CheckRequest(r);
  const Outcome pieces = Frame(bytes, step == 0 ? 1 : step);
  if (pieces.error != whole.error) {
    Fail("the same bytes end with status " + std::to_string(whole.error) + " at once and " +
         std::to_string(pieces.error) + " in pieces of " + std::to_string(step));
  }
  if (pieces.requests.size() != whole.requests.size() ||
      !std::equal(whole.requests.begin(), whole.requests.end(), pieces.requests.begin(), Same)) {
    Fail("the same bytes frame different requests at once and in pieces");
  }
  return 0;
}

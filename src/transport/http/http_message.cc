#include "transport/http/http_message.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstring>

#include "base/strings.h"

namespace mnemo::transport {
namespace {

// Optional whitespace around header values and list items: SP and HTAB only
// (RFC 9110, 5.6.3).
constexpr std::string_view kOws = " \t";

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// Whether the comma-separated header value `list` names `token`.
bool ListHas(std::string_view list, std::string_view token) {
  while (!list.empty()) {
    size_t comma = list.find(',');
    if (EqualsIgnoreCase(internal::Trim(list.substr(0, comma), kOws), token)) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

constexpr size_t kMaxChunkLine = 1024;

// A control byte (C0 or DEL): never part of a request target or a field
// value (RFC 9110 5.5, RFC 9112 3.2); a NUL or a bare CR/LF there is how
// one request is smuggled past a parser that reads it differently.
bool IsControl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}

// Fields a request may carry once: a second one is an ambiguity that two
// readers (a proxy and this server) may settle differently (RFC 9112 3.2,
// 6.1; RFC 9110 11.6.2).
constexpr std::string_view kSingleFields[] = {"Host", "Authorization", "Origin",
                                              "Transfer-Encoding"};

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [n, v] : headers) {
    if (EqualsIgnoreCase(n, name)) return v;
  }
  return "";
}

bool HttpRequest::HasHeader(std::string_view name) const {
  return std::any_of(headers.begin(), headers.end(),
                     [&](const auto& h) { return EqualsIgnoreCase(h.first, name); });
}

bool HttpRequest::KeepAlive() const {
  const std::string connection = Header("Connection");
  if (ListHas(connection, "close")) return false;
  return minor_version >= 1 || ListHas(connection, "keep-alive");
}

std::string_view ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 421: return "Misdirected Request";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string SerializeResponse(const HttpResponse& response, bool keep_alive,
                              int64_t idle_timeout_s) {
  std::string out = "HTTP/1.1 " + std::to_string(response.status) + " ";
  out += ReasonPhrase(response.status);
  out += "\r\n";
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  if (!response.content_type.empty()) {
    out += "Content-Type: " + response.content_type + "\r\n";
    // Every body is what its type says: no browser may guess a script or a
    // page out of a JSON answer that echoes a caller's text.
    out += "X-Content-Type-Options: nosniff\r\n";
  }
  // 204 carries no body and no length (RFC 9110 8.6).
  if (response.status != 204) {
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  if (keep_alive) {
    out += "Keep-Alive: timeout=" + std::to_string(idle_timeout_s) + "\r\n";
  } else {
    out += "Connection: close\r\n";
  }
  out += "\r\n";
  if (response.status != 204) out += response.body;
  return out;
}

RequestParser::State RequestParser::Fail(int status, std::string message) {
  error_status_ = status;
  error_message_ = std::move(message);
  return State::kError;
}

HttpRequest RequestParser::Take() {
  HttpRequest out = std::move(request_);
  request_ = HttpRequest();
  phase_ = Phase::kHead;
  remaining_ = 0;
  declared_ = 0;
  expect_continue_ = false;
  return out;
}

std::span<char> RequestParser::BodyWindow() {
  if (phase_ != Phase::kFixedBody || remaining_ == 0) return {};
  std::string& body = request_.body;
  const size_t at = static_cast<size_t>(declared_ - remaining_);
  body.reserve(static_cast<size_t>(declared_));
  const size_t end = static_cast<size_t>(std::min<uint64_t>(declared_, at + kBodyWindow));
  if (body.size() < end) body.resize(end);
  return {body.data() + at, end - at};
}

void RequestParser::BodyReceived(size_t n) { remaining_ -= std::min<uint64_t>(n, remaining_); }

bool RequestParser::TakeContinue() { return std::exchange(expect_continue_, false); }

RequestParser::State RequestParser::Feed(std::string_view input, size_t& consumed) {
  consumed = 0;
  if (error_status_ != 0) return State::kError;
  if (phase_ == Phase::kHead) {
    State s = ParseHead(input, consumed);
    if (s != State::kHeadersDone) return s;
  }
  return ParseBody(input, consumed);
}

RequestParser::State RequestParser::Feed(std::string& buffer) {
  size_t consumed = 0;
  const State state = Feed(buffer, consumed);
  buffer.erase(0, consumed);
  return state;
}

RequestParser::State RequestParser::ParseHead(std::string_view& buffer, size_t& consumed) {
  // Empty lines before a request line are ignored (RFC 9112 2.2).
  size_t skip = 0;
  while (skip + 1 < buffer.size() && buffer[skip] == '\r' && buffer[skip + 1] == '\n') skip += 2;
  buffer.remove_prefix(skip);
  consumed += skip;
  const size_t end = buffer.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (buffer.size() > limits_.max_header_bytes) {
      return Fail(431, "request line and headers exceed " +
                           std::to_string(limits_.max_header_bytes) + " bytes");
    }
    return State::kNeedMore;
  }
  if (end + 4 > limits_.max_header_bytes) {
    return Fail(431, "request line and headers exceed " + std::to_string(limits_.max_header_bytes) +
                         " bytes");
  }
  const std::string_view head = buffer.substr(0, end);
  size_t line_end = head.find("\r\n");
  const std::string_view line = head.substr(0, line_end);
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || sp1 == 0 || sp2 == sp1 + 1) {
    return Fail(400, "malformed request line: expected \"METHOD /path HTTP/1.1\"");
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!std::all_of(method.begin(), method.end(), IsTokenChar)) {
    return Fail(400, "malformed request method");
  }
  if (version == "HTTP/1.1") {
    request_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    request_.minor_version = 0;
  } else {
    return Fail(505, "only HTTP/1.0 and HTTP/1.1 are served");
  }
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (std::any_of(target.begin(), target.end(), IsControl)) {
    return Fail(400, "the request target holds a control byte: send it percent-encoded");
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.path = request_.target.substr(0, request_.target.find('?'));
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view field = head.substr(start, line_end - start);
    const size_t colon = field.find(':');
    if (colon == 0 || colon == std::string_view::npos ||
        !std::all_of(field.begin(), field.begin() + static_cast<std::ptrdiff_t>(colon),
                     IsTokenChar)) {
      return Fail(400, "malformed header line (expected \"Name: value\", no line folding)");
    }
    const std::string_view name = field.substr(0, colon);
    const std::string_view value = internal::Trim(field.substr(colon + 1), kOws);
    if (std::any_of(value.begin(), value.end(), [](char c) { return c != '\t' && IsControl(c); })) {
      return Fail(400, "header " + std::string(name) +
                           " holds a control byte (NUL, CR, LF or another below 0x20): field "
                           "values are visible text, spaces and tabs");
    }
    for (const std::string_view single : kSingleFields) {
      if (EqualsIgnoreCase(name, single) && request_.HasHeader(single)) {
        return Fail(400, "several " + std::string(single) + " headers: send one");
      }
    }
    request_.headers.emplace_back(std::string(name), std::string(value));
  }
  buffer.remove_prefix(end + 4);
  consumed += end + 4;

  std::string length_text;
  bool has_length = false;
  for (const auto& [name, value] : request_.headers) {
    if (!EqualsIgnoreCase(name, "Content-Length")) continue;
    if (has_length && value != length_text) return Fail(400, "conflicting Content-Length headers");
    has_length = true;
    length_text = value;
  }
  const bool chunked = request_.HasHeader("Transfer-Encoding");
  if (chunked) {
    if (has_length) return Fail(400, "both Transfer-Encoding and Content-Length were sent");
    if (!EqualsIgnoreCase(internal::Trim(request_.Header("Transfer-Encoding"), kOws), "chunked")) {
      return Fail(501, "only Transfer-Encoding: chunked is understood");
    }
    phase_ = Phase::kChunkSize;
  } else {
    uint64_t length = 0;
    if (has_length) {
      auto [ptr, ec] =
          std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
      if (ec == std::errc::result_out_of_range) length = UINT64_MAX;
      if ((ec != std::errc() && ec != std::errc::result_out_of_range) ||
          ptr != length_text.data() + length_text.size()) {
        return Fail(400, "Content-Length must be a decimal number");
      }
    }
    if (length > limits_.max_body_bytes) {
      return Fail(413, "request body exceeds server.max_body_bytes (" +
                           std::to_string(limits_.max_body_bytes) + " bytes)");
    }
    remaining_ = length;
    declared_ = length;
    phase_ = Phase::kFixedBody;
  }
  const bool has_body = chunked || remaining_ > 0;
  expect_continue_ =
      has_body && request_.minor_version >= 1 &&
      EqualsIgnoreCase(internal::Trim(request_.Header("Expect"), kOws), "100-continue");
  return State::kHeadersDone;
}

RequestParser::State RequestParser::ParseBody(std::string_view& in, size_t& consumed) {
  auto consume = [&](size_t n) {
    consumed += n;
    in.remove_prefix(n);
  };
  State result = State::kHeadersDone;
  while (result == State::kHeadersDone) {
    if (phase_ == Phase::kFixedBody) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size()));
      if (n > 0) {
        // Allocated once at the declared length: no regrowth copies it again.
        std::string& body = request_.body;
        const size_t at = static_cast<size_t>(declared_ - remaining_);
        body.reserve(static_cast<size_t>(declared_));
        const size_t into_window = std::min(n, body.size() - at);  // a window opened before
        std::memcpy(body.data() + at, in.data(), into_window);
        body.append(in.data() + into_window, n - into_window);
      }
      consume(n);
      remaining_ -= n;
      if (remaining_ > 0) break;
      phase_ = Phase::kDone;
    } else if (phase_ == Phase::kChunkSize) {
      // The bound holds however the bytes arrived (all at once or a few at
      // a time: a line may end in a CR whose LF is still to come), so that
      // one request always frames the same way.
      const size_t eol = in.find("\r\n");
      if (eol == std::string_view::npos ? in.size() > kMaxChunkLine + 1 : eol > kMaxChunkLine) {
        return Fail(400, "chunk size line too long");
      }
      if (eol == std::string_view::npos) break;
      const std::string_view size_text =
          internal::Trim(in.substr(0, std::min(eol, in.find(';'))), kOws);
      uint64_t size = 0;
      auto [ptr, ec] =
          std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
      if (size_text.empty() || ec == std::errc::invalid_argument ||
          (ec == std::errc() && ptr != size_text.data() + size_text.size())) {
        return Fail(400, "malformed chunk size");
      }
      if (ec == std::errc::result_out_of_range ||
          size > limits_.max_body_bytes - request_.body.size()) {
        return Fail(413, "request body exceeds server.max_body_bytes (" +
                             std::to_string(limits_.max_body_bytes) + " bytes)");
      }
      consume(eol + 2);
      remaining_ = size;
      phase_ = size == 0 ? Phase::kTrailer : Phase::kChunkData;
    } else if (phase_ == Phase::kChunkData) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(remaining_, in.size()));
      request_.body.append(in.data(), n);
      consume(n);
      remaining_ -= n;
      if (remaining_ > 0) break;
      phase_ = Phase::kChunkDataEnd;
    } else if (phase_ == Phase::kChunkDataEnd) {
      if (in.size() < 2) break;
      if (in.substr(0, 2) != "\r\n") return Fail(400, "chunk data not followed by CRLF");
      consume(2);
      phase_ = Phase::kChunkSize;
    } else if (phase_ == Phase::kTrailer) {
      const size_t eol = in.find("\r\n");
      if (eol == std::string_view::npos ? in.size() > limits_.max_header_bytes + 1
                                        : eol > limits_.max_header_bytes) {
        return Fail(431, "chunked trailer too long");
      }
      if (eol == std::string_view::npos) break;
      consume(eol + 2);
      if (eol == 0) phase_ = Phase::kDone;  // trailer fields are ignored
    } else {
      result = State::kComplete;
    }
  }
  return result;
}

}  // namespace mnemo::transport

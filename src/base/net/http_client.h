// HttpClient: the one seam for outbound HTTP (spec 00). The embedder and the
// LLM client talk to their servers through it, so tests can point them at a
// local server and no layer above base includes an HTTP library.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::internal {

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  // http://host[:port][/path][?query] or https://...; no user info.
  std::string url;
  std::string body;
  // A "Content-Type" header here replaces the default "application/json".
  HttpHeaders headers;
  // Bounds connecting, and each wait for the server to send or accept data
  // (it is not a deadline for the whole exchange). Must be > 0.
  int64_t timeout_ms = 10000;
};

struct HttpResponse {
  int status = 0;
  std::string body;
  HttpHeaders headers;

  // The first header named `name` (case-insensitive), if any.
  std::optional<std::string_view> Header(std::string_view name) const;
};

// Thread-safe: one instance may serve many threads at once.
class HttpClient {
 public:
  virtual ~HttpClient() = default;

  // Any HTTP status is a response (the caller judges 4xx/5xx). Errors:
  //  - kInvalidArgument: the URL is not http(s)://host[:port]/..., or the
  //    timeout is not positive;
  //  - kUnavailable: connecting, TLS, sending or receiving failed or timed
  //    out; the message names the host and the reason.
  // Never throws.
  virtual Result<HttpResponse> Post(const HttpRequest& request) = 0;
};

// cpp-httplib, http and https (system CA store, certificates verified). One
// connection per request: no pooling, no keep-alive, no redirects, no proxy.
std::shared_ptr<HttpClient> NewHttpClient();

struct HttpUrl {
  bool https = false;
  std::string host;  // without the brackets of an IPv6 literal
  int port = 0;      // explicit, or 80 / 443
  std::string path;  // starts with '/'; keeps the query; fragment dropped
};

// Parses an absolute http or https URL; kInvalidArgument says what is wrong.
Result<HttpUrl> ParseHttpUrl(std::string_view url);

}  // namespace mnemo::internal

#include "base/net/http_client.h"

#include <httplib.h>

#include <cctype>
#include <charconv>
#include <exception>

namespace mnemo::internal {
namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

Status BadUrl(std::string_view url, std::string_view why) {
  return InvalidArgument("URL \"" + std::string(url) + "\" is invalid: " + std::string(why) +
                         "; use http(s)://host[:port][/path]");
}

// "host:port" as a person would type it (IPv6 literals in brackets).
std::string HostPort(const HttpUrl& url) {
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  return host + ":" + std::to_string(url.port);
}

std::string Reason(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection: return "connection failed (refused or unreachable)";
    case httplib::Error::ConnectionTimeout: return "connection timed out";
    case httplib::Error::Read: return "no (complete) response: read failed or timed out";
    case httplib::Error::Write: return "sending the request failed or timed out";
    case httplib::Error::SSLConnection: return "TLS handshake failed";
    case httplib::Error::SSLLoadingCerts: return "could not load the system CA certificates";
    case httplib::Error::SSLServerVerification: return "server certificate not trusted";
    case httplib::Error::Canceled: return "request canceled";
    default: return httplib::to_string(error);
  }
}

class HttplibClient final : public HttpClient {
 public:
  Result<HttpResponse> Post(const HttpRequest& request) override {
    try {
      return DoPost(request);
    } catch (const std::exception& e) {
      return Unavailable("POST " + request.url + " failed: " + e.what());
    } catch (...) {
      return Unavailable("POST " + request.url + " failed: unknown error");
    }
  }

 private:
  static Result<HttpResponse> DoPost(const HttpRequest& request) {
    MNEMO_ASSIGN_OR_RETURN(HttpUrl url, ParseHttpUrl(request.url));
    if (request.timeout_ms <= 0) {
      return InvalidArgument("HTTP timeout must be > 0 ms, got " +
                             std::to_string(request.timeout_ms));
    }
    // A client per request: httplib::Client is not safe to share between
    // threads, and embedding calls are few and large, so a pool buys little.
    std::unique_ptr<httplib::ClientImpl> client;
    if (url.https) {
      client = std::make_unique<httplib::SSLClient>(url.host, url.port);
    } else {
      client = std::make_unique<httplib::ClientImpl>(url.host, url.port);
    }
    const auto timeout = std::chrono::milliseconds(request.timeout_ms);
    client->set_connection_timeout(timeout);
    client->set_read_timeout(timeout);
    client->set_write_timeout(timeout);
    client->set_keep_alive(false);

    httplib::Headers headers;
    std::string content_type = "application/json";
    for (const auto& [name, value] : request.headers) {
      if (EqualsIgnoreCase(name, "Content-Type")) {
        content_type = value;
      } else {
        headers.emplace(name, value);
      }
    }
    httplib::Result result = client->Post(url.path, headers, request.body, content_type);
    if (!result) {
      return Unavailable("POST to " + HostPort(url) + " failed: " + Reason(result.error()) +
                         " (timeout " + std::to_string(request.timeout_ms) + " ms)");
    }
    HttpResponse response;
    response.status = result->status;
    response.body = std::move(result->body);
    response.headers.assign(result->headers.begin(), result->headers.end());
    return response;
  }
};

}  // namespace

std::optional<std::string_view> HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return std::string_view(value);
  }
  return std::nullopt;
}

std::shared_ptr<HttpClient> NewHttpClient() { return std::make_shared<HttplibClient>(); }

Result<HttpUrl> ParseHttpUrl(std::string_view url) {
  HttpUrl out;
  std::string_view rest = url;
  const size_t scheme_end = rest.find("://");
  if (scheme_end == std::string_view::npos) return BadUrl(url, "no scheme");
  const std::string_view scheme = rest.substr(0, scheme_end);
  if (EqualsIgnoreCase(scheme, "https")) {
    out.https = true;
  } else if (!EqualsIgnoreCase(scheme, "http")) {
    return BadUrl(url, "scheme must be http or https");
  }
  rest.remove_prefix(scheme_end + 3);

  const size_t authority_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, authority_end);
  rest = authority_end == std::string_view::npos ? std::string_view() : rest.substr(authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return BadUrl(url, "user info is not supported (pass credentials as headers)");
  }

  std::string_view port_text;
  if (!authority.empty() && authority.front() == '[') {
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl(url, "unterminated IPv6 literal");
    out.host = std::string(authority.substr(1, close - 1));
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return BadUrl(url, "junk after IPv6 literal");
      port_text = after.substr(1);
      if (port_text.empty()) return BadUrl(url, "empty port");
    }
  } else {
    const size_t colon = authority.rfind(':');
    out.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) {
      port_text = authority.substr(colon + 1);
      if (port_text.empty()) return BadUrl(url, "empty port");
    }
  }
  if (out.host.empty()) return BadUrl(url, "no host");
  for (unsigned char c : out.host) {
    if (c <= ' ' || c == 0x7F || c == '/' || c == '\\') {
      return BadUrl(url, "host contains a space or control character");
    }
  }
  if (port_text.empty()) {
    out.port = out.https ? 443 : 80;
  } else {
    int port = 0;
    const auto [end, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
        port > 65535) {
      return BadUrl(url, "port must be a number from 1 to 65535");
    }
    out.port = port;
  }

  rest = rest.substr(0, rest.find('#'));
  for (unsigned char c : rest) {
    if (c <= ' ' || c == 0x7F) return BadUrl(url, "path contains a space or control character");
  }
  out.path = rest.empty() || rest.front() != '/' ? "/" + std::string(rest) : std::string(rest);
  return out;
}

}  // namespace mnemo::internal

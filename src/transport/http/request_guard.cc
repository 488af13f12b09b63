#include "transport/http/request_guard.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace mnemo::transport {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
}

bool IsV6Char(char c) {
  return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == ':' || c == '.';
}

// ":8765" -> 8765; "" -> -1; nullopt when not a port.
std::optional<int> ParsePortSuffix(std::string_view rest) {
  if (rest.empty()) return -1;
  if (rest.front() != ':' || rest.size() < 2 || rest.size() > 6) return std::nullopt;
  int port = -1;
  auto [ptr, ec] = std::from_chars(rest.data() + 1, rest.data() + rest.size(), port);
  if (ec != std::errc() || ptr != rest.data() + rest.size() || port < 0 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

struct Origin {
  bool https = false;
  HostPort authority;
  int EffectivePort() const { return authority.port >= 0 ? authority.port : https ? 443 : 80; }
};

// "http(s)://host[:port]" (a trailing '/' tolerated, nothing else after the
// authority), case-insensitive; nullopt otherwise (also "null").
std::optional<Origin> ParseOrigin(std::string_view text) {
  const std::string lower = Lower(text);
  std::string_view rest = lower;
  Origin o;
  if (rest.substr(0, 7) == "http://") {
    rest.remove_prefix(7);
  } else if (rest.substr(0, 8) == "https://") {
    o.https = true;
    rest.remove_prefix(8);
  } else {
    return std::nullopt;
  }
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  std::optional<HostPort> authority = ParseHostPort(rest);
  if (!authority) return std::nullopt;
  o.authority = std::move(*authority);
  return o;
}

// The bound address as a Host name: "[v6]" for IPv6; "" for a wildcard,
// which names no host.
std::string ListenName(std::string_view host) {
  if (host.empty() || host == "0.0.0.0" || host == "::") return "";
  if (host.find(':') != std::string_view::npos) return "[" + Lower(host) + "]";
  return Lower(host);
}

std::string Quoted(std::string_view value) {
  constexpr size_t kShown = 200;
  return "\"" + std::string(value.substr(0, kShown)) + (value.size() > kShown ? "...\"" : "\"");
}

}  // namespace

std::optional<HostPort> ParseHostPort(std::string_view text) {
  HostPort out;
  std::string_view rest;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close < 3) return std::nullopt;
    const std::string_view inside = text.substr(1, close - 1);
    if (!std::all_of(inside.begin(), inside.end(), IsV6Char) ||
        inside.find(':') == std::string_view::npos) {
      return std::nullopt;
    }
    out.name = Lower(text.substr(0, close + 1));
    rest = text.substr(close + 1);
  } else {
    const size_t colon = text.find(':');
    const std::string_view name = text.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsNameChar)) return std::nullopt;
    out.name = Lower(name);
    rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
  }
  std::optional<int> port = ParsePortSuffix(rest);
  if (!port) return std::nullopt;
  out.port = *port;
  return out;
}

Status CheckGuardLists(const std::vector<std::string>& allowed_hosts,
                       const std::vector<std::string>& allowed_origins) {
  for (const std::string& host : allowed_hosts) {
    if (!ParseHostPort(host)) {
      return InvalidArgument("server.allowed_hosts entry " + Quoted(host) +
                                 " is not a host: use a name or address, optionally with "
                                 ":port, such as \"mnemo.lan\", \"10.0.0.5:8765\" or \"[fd00::5]\"",
                             "server.allowed_hosts");
    }
  }
  for (const std::string& origin : allowed_origins) {
    if (!ParseOrigin(origin)) {
      return InvalidArgument("server.allowed_origins entry " + Quoted(origin) +
                                 " is not an origin: use scheme://host[:port] with http or "
                                 "https and no path, such as \"https://notes.example.com\"",
                             "server.allowed_origins");
    }
  }
  return Status::Ok();
}

RequestGuard::RequestGuard(RequestGuardOptions options) : options_(std::move(options)) {
  names_ = {"localhost", "127.0.0.1", "[::1]"};
  if (std::string listen = ListenName(options_.listen_host); !listen.empty()) {
    if (std::find(names_.begin(), names_.end(), listen) == names_.end()) {
      names_.push_back(std::move(listen));
    }
  }
  for (const std::string& name : names_) served_ += name + ", ";
  served_ += "the names in server.allowed_hosts";
  for (const std::string& entry : options_.allowed_hosts) {
    std::optional<HostPort> host = ParseHostPort(entry);
    if (!host) continue;  // refused at start (CheckGuardLists)
    if (host->port < 0) {
      names_.push_back(std::move(host->name));
    } else {
      host_ports_.push_back(std::move(*host));
    }
  }
  for (const std::string& entry : options_.allowed_origins) {
    std::string origin = Lower(entry);
    if (!origin.empty() && origin.back() == '/') origin.pop_back();
    origins_.push_back(std::move(origin));
  }
}

bool RequestGuard::HostAccepted(const HostPort& host) const {
  if (std::find(names_.begin(), names_.end(), host.name) != names_.end()) return true;
  return std::any_of(host_ports_.begin(), host_ports_.end(),
                     [&](const HostPort& h) { return h.name == host.name && h.port == host.port; });
}

bool RequestGuard::OriginAccepted(std::string_view text) const {
  std::string origin = Lower(text);
  if (!origin.empty() && origin.back() == '/') origin.pop_back();
  if (std::find(origins_.begin(), origins_.end(), origin) != origins_.end()) return true;
  const std::optional<Origin> parsed = ParseOrigin(origin);
  if (!parsed) return false;
  const std::string& name = parsed->authority.name;
  const int port = parsed->EffectivePort();
  if (port == options_.port && std::find(names_.begin(), names_.end(), name) != names_.end()) {
    return true;
  }
  return std::any_of(host_ports_.begin(), host_ports_.end(),
                     [&](const HostPort& h) { return h.name == name && h.port == port; });
}

std::optional<RequestGuard::Refusal> RequestGuard::Check(const HttpRequest& head) const {
  if (!head.HasHeader("Host")) {
    if (head.minor_version >= 1) {
      return Refusal{400,
                     "missing Host header: an HTTP/1.1 request names the server it is for, "
                     "e.g. Host: 127.0.0.1:" +
                         std::to_string(options_.port)};
    }
  } else {
    const std::string value = head.Header("Host");
    std::optional<HostPort> host = ParseHostPort(value);
    if (!host) {
      return Refusal{
          400, "malformed Host header " + Quoted(value) +
                   ": expected host or host:port, e.g. 127.0.0.1:" + std::to_string(options_.port)};
    }
    if (!HostAccepted(*host)) {
      return Refusal{421, "Host " + Quoted(value) + " is not served here: this daemon answers " +
                              served_ + " (add the name there if it is this machine's)"};
    }
  }
  if (head.HasHeader("Origin")) {
    const std::string origin = head.Header("Origin");
    if (!OriginAccepted(origin)) {
      return Refusal{403, "requests from the web page at Origin " + Quoted(origin) +
                              " are refused: only the daemon's own origin (http://" +
                              "127.0.0.1:" + std::to_string(options_.port) +
                              " and the other names it answers: " + served_ +
                              ") and server.allowed_origins may call it"};
    }
  }
  return std::nullopt;
}

}  // namespace mnemo::transport

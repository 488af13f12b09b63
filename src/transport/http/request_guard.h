// Which names and which web pages may reach the daemon (spec 60, "Daemon";
// issue 42): the Host allow-list against DNS rebinding and the Origin check
// against cross-site requests, with and without tokens. A page the user
// visits can make the browser send requests to 127.0.0.1, but it cannot
// choose the Host (its own name, even rebound to 127.0.0.1) nor hide its
// Origin; refusing both before anything runs keeps it out.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "transport/http/http_message.h"

namespace mnemo::transport {

// A Host value or the authority of an origin: a name (lower-cased; IPv6 in
// brackets) and the port when one was written (-1 otherwise).
struct HostPort {
  std::string name;
  int port = -1;
};

// "name", "name:port", "[v6]" or "[v6]:port" (RFC 9110 7.2); nullopt when
// it is none of these (empty, a path, a user, spaces, a bad port...).
std::optional<HostPort> ParseHostPort(std::string_view text);

struct RequestGuardOptions {
  std::string listen_host;  // the bound address, as in ListenAddress
  int port = 0;             // the bound port (the real one)
  // server.allowed_hosts: "name" (any port) or "name:port" (that port).
  std::vector<std::string> allowed_hosts;
  // server.allowed_origins: "http(s)://host[:port]", compared whole.
  std::vector<std::string> allowed_origins;
};

// Checks the configuration's lists: each host a HostPort, each origin
// http(s)://host[:port] with nothing after it. kInvalidArgument naming the
// entry and the key otherwise.
Status CheckGuardLists(const std::vector<std::string>& allowed_hosts,
                       const std::vector<std::string>& allowed_origins);

// Accepted Host names: localhost, 127.0.0.1, [::1], the listen address
// (unless a wildcard: 0.0.0.0 or ::) and server.allowed_hosts. Accepted
// origins: http:// or https:// with an accepted Host name and the bound
// port (or an allowed_hosts entry's own port), and server.allowed_origins.
class RequestGuard {
 public:
  explicit RequestGuard(RequestGuardOptions options);

  struct Refusal {
    int status;           // 400, 421 or 403
    std::string message;  // what was wrong and what is allowed
  };
  // nullopt when `head` may be served: its Host is accepted (an HTTP/1.1
  // request without Host is 400; HTTP/1.0 may omit it) and it has no Origin
  // or an accepted one (403 otherwise; "null" is never accepted).
  std::optional<Refusal> Check(const HttpRequest& head) const;

 private:
  bool HostAccepted(const HostPort& host) const;
  bool OriginAccepted(std::string_view origin) const;

  RequestGuardOptions options_;
  std::vector<std::string> names_;    // accepted on any port
  std::vector<HostPort> host_ports_;  // accepted on their own port only
  std::vector<std::string> origins_;  // lower-cased
  std::string served_;                // the accepted names, for messages
};

}  // namespace mnemo::transport

// The memory inspector's files (transport/http/inspector.h).

#include "transport/http/inspector.h"

#include <string>

namespace mnemo::transport {

std::optional<HttpResponse> InspectorResponse(std::string_view path) {
  if (path == "/" || path == "/index.html") path = "/inspector/index.html";
  for (const InspectorFile& f : InspectorFiles()) {
    if (f.path != path) continue;
    HttpResponse res;
    res.AddHeader("Content-Security-Policy", std::string(kInspectorPolicy));
    res.AddHeader("Referrer-Policy", "no-referrer");
    res.AddHeader("X-Frame-Options", "DENY");
    res.AddHeader("Cross-Origin-Opener-Policy", "same-origin");
    res.AddHeader("Cross-Origin-Resource-Policy", "same-origin");
    // Compiled into the binary: a new binary may serve new files.
    res.AddHeader("Cache-Control", "no-cache");
    res.Set(200, std::string(f.body), std::string(f.type));
    return res;
  }
  return std::nullopt;
}

}  // namespace mnemo::transport

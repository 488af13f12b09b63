// The memory inspector (issue 20): static pages served by `mnemo serve` at
// `/`, compiled into the binary (cmake/embed_files.cmake, from
// web/inspector). The pages talk to the engine only through POST /rpc, with
// the same methods, validation, ACL and audit as every other client; this
// file only hands out the files, each with headers that keep the page to
// itself (a strict Content-Security-Policy, no sniffing, no referrer, no
// framing, no CORS).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "transport/http/http_message.h"

namespace mnemo::transport {

struct InspectorFile {
  std::string_view path;  // "/inspector/app.js"
  std::string_view type;  // its media type
  std::string_view body;
};

// Every file of the inspector (generated).
std::span<const InspectorFile> InspectorFiles();

// The Content-Security-Policy of every inspector response: scripts, styles
// and requests from this origin only, no inline script or style, no
// plug-ins, frames, forms or base URL.
inline constexpr std::string_view kInspectorPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

// The response to GET `path` when it is an inspector page (`/`, `/index.html`
// or a file under `/inspector/`); nullopt otherwise.
std::optional<HttpResponse> InspectorResponse(std::string_view path);

}  // namespace mnemo::transport

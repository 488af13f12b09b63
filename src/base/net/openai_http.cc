#include "base/net/openai_http.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "base/strings.h"

namespace mnemo::internal {
namespace {

using Json = nlohmann::json;

}  // namespace

HttpRequest OpenAiJsonRequest(std::string url, const Json& body, int64_t timeout_ms,
                              const std::string& api_key) {
  HttpRequest request;
  request.url = std::move(url);
  request.body = body.dump(-1, ' ', false, Json::error_handler_t::replace);
  request.timeout_ms = timeout_ms;
  request.headers.emplace_back("Accept", "application/json");
  if (!api_key.empty()) request.headers.emplace_back("Authorization", "Bearer " + api_key);
  return request;
}

std::string BodySnippet(std::string_view text) {
  constexpr size_t kMaxBytes = 300;
  if (text.empty()) return "(empty body)";
  const size_t n = Utf8CutBytes(text, kMaxBytes);
  return Json(std::string(text.substr(0, n))).dump(-1, ' ', false, Json::error_handler_t::replace) +
         (n < text.size() ? "..." : "");
}

std::string ServerErrorText(std::string_view body) {
  const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object()) {
    const auto error = json.find("error");
    if (error != json.end()) {
      if (error->is_string()) return BodySnippet(error->get_ref<const std::string&>());
      if (error->is_object()) {
        const auto message = error->find("message");
        if (message != error->end() && message->is_string()) {
          return BodySnippet(message->get_ref<const std::string&>());
        }
      }
    }
  }
  return BodySnippet(body);
}

std::optional<int64_t> RetryAfterSeconds(const HttpResponse& response) {
  const auto header = response.Header("Retry-After");
  if (!header) return std::nullopt;
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(header->data(), header->data() + header->size(), seconds);
  if (ec != std::errc() || end != header->data() + header->size() || seconds < 0) {
    return std::nullopt;
  }
  return seconds;
}

}  // namespace mnemo::internal

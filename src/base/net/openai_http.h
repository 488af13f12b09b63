// What the OpenAI-compatible clients (the embedder, embed/openai_embedder.h,
// and the chat client, llm/chat_client.h) share: how a request is built and
// how a server's failure is told in an error message. One place, so both
// clients send alike and quote servers alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/net/http_client.h"

namespace mnemo::internal {

// A POST of `body` to `url`: invalid UTF-8 in a string goes out as U+FFFD
// (never fails the request), "Accept: application/json", and
// "Authorization: Bearer <api_key>" when a key is given.
HttpRequest OpenAiJsonRequest(std::string url, const nlohmann::json& body, int64_t timeout_ms,
                              const std::string& api_key);

// Enough of a server's text to recognise it in an error message, never a
// whole page: a JSON string literal (control characters escaped, invalid
// UTF-8 as U+FFFD) of at most 300 bytes cut at a code point, "..." after it
// when cut; "(empty body)" for nothing.
std::string BodySnippet(std::string_view text);

// The server's own explanation of a failure: OpenAI's {"error": {"message":
// ...}}, Ollama's {"error": "..."}, else the start of the body; as
// BodySnippet quotes it.
std::string ServerErrorText(std::string_view body);

// A Retry-After header in seconds (the delta form; an HTTP-date is not
// read), nullopt when absent or unreadable.
std::optional<int64_t> RetryAfterSeconds(const HttpResponse& response);

}  // namespace mnemo::internal

#include "llm/chat_client.h"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <limits>

#include <nlohmann/json.hpp>

#include "base/net/openai_http.h"
#include "base/strings.h"

namespace mnemo::llm {
namespace {

using internal::HttpRequest;
using internal::HttpResponse;
using Json = nlohmann::json;

using internal::Trim;

bool HasControlCharacter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7F;
  });
}

// Reasoning models served by Ollama or llama.cpp may put their chain of
// thought first; a recap must not contain it.
std::string_view StripThinkBlock(std::string_view content) {
  constexpr std::string_view kOpen = "<think>";
  constexpr std::string_view kClose = "</think>";
  content = Trim(content);
  if (!content.starts_with(kOpen)) return content;
  const size_t close = content.find(kClose);
  // Unclosed: the model ran out of tokens while still reasoning.
  if (close == std::string_view::npos) return {};
  return Trim(content.substr(close + kClose.size()));
}

class OpenAiChatClient final : public ChatClient {
 public:
  OpenAiChatClient(ChatOptions options, std::shared_ptr<internal::HttpClient> http)
      : options_(std::move(options)),
        http_(std::move(http)),
        endpoint_(ChatCompletionsEndpoint(options_.base_url)),
        where_("LLM server " + endpoint_ + " (model " + options_.model + ")") {}

  Result<std::string> Complete(const std::vector<ChatMessage>& messages,
                               int64_t max_tokens) override {
    if (messages.empty()) return InvalidArgument("a chat completion needs at least one message");
    if (max_tokens < 1) {
      return InvalidArgument("max_tokens must be >= 1, got " + std::to_string(max_tokens));
    }
    try {
      MNEMO_ASSIGN_OR_RETURN(HttpResponse response, Post(RequestFor(messages, max_tokens)));
      return ParseAnswer(response.body);
    } catch (const std::exception& e) {
      return Internal("chat completion via " + endpoint_ + " failed unexpectedly: " + e.what());
    }
  }

 private:
  HttpRequest RequestFor(const std::vector<ChatMessage>& messages, int64_t max_tokens) const {
    Json list = Json::array();
    for (const ChatMessage& m : messages) {
      list.push_back({{"role", m.role}, {"content", m.content}});
    }
    const Json body = {{"model", options_.model},
                       {"messages", std::move(list)},
                       {"max_tokens", max_tokens},
                       {"temperature", 0}};
    return internal::OpenAiJsonRequest(endpoint_, body, options_.timeout_ms, options_.api_key);
  }

  // The 2xx answer; anything else is kUnavailable.
  Result<HttpResponse> Post(const HttpRequest& request) const {
    auto response = http_->Post(request);
    if (!response.ok()) {
      return Unavailable(where_ + " unreachable: " + response.status().message());
    }
    if (response->status < 200 || response->status >= 300) {
      return Unavailable(where_ + " answered HTTP " + std::to_string(response->status) + ": " +
                         internal::ServerErrorText(Redacted(response->body)));
    }
    return response;
  }

  Result<std::string> ParseAnswer(const std::string& body) const {
    auto invalid = [&](const std::string& what) {
      return Unavailable("invalid response from " + where_ + ": " + what);
    };
    const Json json = Json::parse(body, nullptr, /*allow_exceptions=*/false);
    if (json.is_discarded()) return invalid("not JSON: " + internal::BodySnippet(Redacted(body)));
    const auto choices = json.is_object() ? json.find("choices") : json.end();
    if (choices == json.end() || !choices->is_array() || choices->empty()) {
      return invalid("no \"choices\" array with an entry: " +
                     internal::BodySnippet(Redacted(body)));
    }
    const Json& choice = choices->front();
    const auto message = choice.is_object() ? choice.find("message") : choice.end();
    if (message == choice.end() || !message->is_object()) {
      return invalid("choices[0].message is missing or not an object");
    }
    const auto content = message->find("content");
    if (content == message->end() || !content->is_string()) {
      return invalid("choices[0].message.content is missing or not a string");
    }
    const std::string_view text = StripThinkBlock(content->get_ref<const std::string&>());
    if (text.empty()) {
      const auto reason = choice.find("finish_reason");
      const bool cut = reason != choice.end() && reason->is_string() && *reason == "length";
      return Unavailable(where_ + " returned an empty answer" +
                         (cut ? std::string(" (cut off by max_tokens)") : std::string()));
    }
    return std::string(text);
  }

  // `text` from the server with the API key replaced: a server may echo the
  // Authorization header in its error, and messages end up in logs.
  std::string Redacted(std::string_view text) const {
    std::string out(text);
    const std::string& key = options_.api_key;
    if (key.empty()) return out;
    constexpr std::string_view kMask = "[REDACTED]";
    for (size_t at = out.find(key); at != std::string::npos;
         at = out.find(key, at + kMask.size())) {
      out.replace(at, key.size(), kMask);
    }
    return out;
  }

  const ChatOptions options_;
  const std::shared_ptr<internal::HttpClient> http_;
  const std::string endpoint_;
  const std::string where_;
};

// "User: text": the role with its first letter upper-cased.
std::string TurnLine(const std::string& role, std::string_view text) {
  std::string line = role.empty() ? std::string("Unknown") : role;
  if (line[0] >= 'a' && line[0] <= 'z') line[0] = static_cast<char>(line[0] - 'a' + 'A');
  line += ": ";
  line += text;
  return line;
}

}  // namespace

std::string ChatCompletionsEndpoint(std::string_view base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.remove_suffix(1);
  const size_t scheme = base_url.find("://");
  const bool has_path =
      scheme != std::string_view::npos && base_url.find('/', scheme + 3) != std::string_view::npos;
  return std::string(base_url) + (has_path ? "/chat/completions" : "/v1/chat/completions");
}

Result<std::unique_ptr<ChatClient>> NewOpenAiChatClient(
    const ChatOptions& options, std::shared_ptr<internal::HttpClient> http) {
  if (options.base_url.empty()) {
    return InvalidArgument(
        "llm.base_url is required for an LLM (e.g. \"http://localhost:11434/v1\")", "llm.base_url");
  }
  if (auto url = internal::ParseHttpUrl(ChatCompletionsEndpoint(options.base_url)); !url.ok()) {
    return InvalidArgument("llm.base_url: " + url.status().message(), "llm.base_url");
  }
  if (options.model.empty()) {
    return InvalidArgument("llm.model is required when llm.base_url is set", "llm.model");
  }
  if (options.timeout_ms < 1) {
    return InvalidArgument("llm.timeout_ms must be >= 1, got " + std::to_string(options.timeout_ms),
                           "llm.timeout_ms");
  }
  if (HasControlCharacter(options.api_key)) {
    return InvalidArgument(
        "the LLM API key (from the variable named by llm.api_key_env) contains a control "
        "character, such as a trailing newline: remove it",
        "llm.api_key_env");
  }
  if (http == nullptr) http = internal::NewHttpClient();
  return std::unique_ptr<ChatClient>(new OpenAiChatClient(options, std::move(http)));
}

std::vector<ChatMessage> RecapPrompt(const std::vector<std::pair<std::string, std::string>>& turns,
                                     int64_t token_budget) {
  token_budget = std::max<int64_t>(token_budget, 1);
  const auto max_bytes = static_cast<size_t>(
      std::min(token_budget, std::numeric_limits<int64_t>::max() / kRecapBytesPerToken) *
      kRecapBytesPerToken);

  // Newest turns first until the next one would not fit ("\n" between lines).
  size_t first = turns.size();
  size_t bytes = 0;
  while (first > 0) {
    const auto& [role, text] = turns[first - 1];
    const size_t line = TurnLine(role, "").size() + text.size() + (first < turns.size() ? 1 : 0);
    if (bytes + line > max_bytes) break;
    bytes += line;
    --first;
  }
  std::string transcript;
  transcript.reserve(bytes);
  if (first == turns.size() && !turns.empty()) {
    // Even the last turn alone is too long: keep the end of its text.
    constexpr std::string_view kCut = "…";
    const auto& [role, text] = turns.back();
    const std::string label = TurnLine(role, "");
    const size_t room =
        max_bytes > label.size() + kCut.size() ? max_bytes - label.size() - kCut.size() : 0;
    const size_t start = internal::Utf8SuffixStart(text, room);
    transcript = label + std::string(kCut) + text.substr(start);
  } else {
    for (size_t i = first; i < turns.size(); ++i) {
      if (i > first) transcript += '\n';
      transcript += TurnLine(turns[i].first, turns[i].second);
    }
  }

  std::string system =
      "You summarise one segment of a conversation between a user and an AI assistant, so the "
      "assistant can remember it later. Write a concise, factual summary in at most about " +
      std::to_string(token_budget) +
      " tokens: what the user wanted, what was decided or done, and any facts, preferences, "
      "commitments or open questions stated. Use only what the conversation says; do not "
      "invent or assume anything. Write in the same language as the conversation. Reply with "
      "the summary only, without a preamble.";
  return {ChatMessage{"system", std::move(system)}, ChatMessage{"user", std::move(transcript)}};
}

}  // namespace mnemo::llm

// ChatClient: any OpenAI-compatible chat-completions endpoint (spec 40's
// `[llm]`): Ollama, llama.cpp server, vLLM, LM Studio, OpenAI. The archivist
// uses it for LLM recaps; everything degrades to extractive recaps when it
// fails, so every failure here is a Status, never a crash or an exception.
//
// Wire: POST <endpoint> with
//   {"model": "<model>", "messages": [{"role": ..., "content": ...}, ...],
//    "max_tokens": N, "temperature": 0}
// and "Authorization: Bearer <key>" when a key is set; the answer is
// choices[0].message.content.
//  - endpoint: base_url without trailing '/', + "/chat/completions"; a bare
//    "http(s)://host[:port]" (no path) gets "/v1/chat/completions", so
//    "http://localhost:11434" means the same as for embedding.base_url.
//    Paths are kept as given otherwise: "https://api.openai.com/v1",
//    "https://openrouter.ai/api/v1" and Gemini's ".../v1beta/openai" all
//    work.
//  - no retries: a recap is background work that the archivist re-attempts
//    later (spec 40: at most 2 attempts per segment), and retrying a 30 s
//    generation here would only hold the worker longer.
//  - temperature 0: a summary should be repeatable, not creative.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/net/http_client.h"
#include "mnemo/status.h"

namespace mnemo::llm {

struct ChatOptions {
  // e.g. "http://127.0.0.1:11434/v1"; see ChatCompletionsEndpoint.
  std::string base_url;
  std::string model;
  // The key itself (see MakeChatClient in core/components.h for reading it from llm.api_key_env);
  // empty: no Authorization header.
  std::string api_key;
  // Bounds connecting and each wait for the server (HttpRequest::timeout_ms).
  // The request is not streamed, so a server that generates for longer than
  // this before sending anything times out.
  int64_t timeout_ms = 30000;
};

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant"
  std::string content;
};

// Thread-safe: Complete may be called from many threads at once.
class ChatClient {
 public:
  virtual ~ChatClient() = default;

  // The content of the first choice's message, with surrounding white space
  // and a leading "<think>...</think>" block (reasoning models served by
  // Ollama or llama.cpp) removed. Invalid UTF-8 in `messages` is sent as
  // U+FFFD. Errors:
  //  - kInvalidArgument: `messages` is empty or `max_tokens` < 1;
  //  - kUnavailable: the server cannot be reached, times out, answers
  //    non-2xx ("LLM server <endpoint> (model m) answered HTTP 500: <the
  //    server's error message>"), answers something that is not the expected
  //    JSON ("invalid response from <endpoint>: ...") or an empty answer
  //    ("... returned an empty answer").
  // Messages name the endpoint and never contain the API key (a server that
  // echoes it gets it replaced by "[REDACTED]"). Never throws.
  virtual Result<std::string> Complete(const std::vector<ChatMessage>& messages,
                                       int64_t max_tokens) = 0;
};

// "http://h:1/v1/chat/completions" for "http://h:1", "http://h:1/" or
// "http://h:1/v1"; "http://h/api/v1/chat/completions" for "http://h/api/v1/".
std::string ChatCompletionsEndpoint(std::string_view base_url);

// kInvalidArgument (field = the llm.* key) for an empty model or base_url, a
// base_url that is not http(s)://host[:port][/path], a timeout_ms < 1, or an
// api_key with control characters (the message never quotes the key).
// `http` null: internal::NewHttpClient().
Result<std::unique_ptr<ChatClient>> NewOpenAiChatClient(
    const ChatOptions& options, std::shared_ptr<internal::HttpClient> http = nullptr);

// The recap request of spec 40: a system message asking for a concise,
// factual summary of the conversation segment in at most about
// `token_budget` tokens, in the conversation's language, inventing nothing;
// and a user message with the turns in order, one "User: <text>" /
// "Assistant: <text>" block per turn (the role with its first letter
// upper-cased), separated by "\n".
// The transcript (the user message) is at most kRecapBytesPerToken *
// token_budget bytes (token_budget < 1 counts as 1): whole turns are dropped
// from the front, oldest first; if even the last turn alone is too long, the
// front of its text is cut (at a UTF-8 boundary) and marked with "…"; its
// role label always stays, even when the budget cannot hold it.
std::vector<ChatMessage> RecapPrompt(const std::vector<std::pair<std::string, std::string>>& turns,
                                     int64_t token_budget);

// Bytes of transcript per token of recap budget: ~4 bytes per token for
// English text, so the prompt stays about as large as the budget in tokens.
inline constexpr int64_t kRecapBytesPerToken = 4;

}  // namespace mnemo::llm

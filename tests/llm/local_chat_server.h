// A real HTTP server on 127.0.0.1 (free port, own thread) speaking the
// OpenAI POST /v1/chat/completions wire format, for the chat client tests
// and anything above it that needs an LLM. Each test sets how it answers;
// the server records what it received.
#pragma once

#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace mnemo::llm::testing {

struct ReceivedChatRequest {
  std::string path;
  std::optional<std::string> authorization;  // nullopt when the header is absent
  std::string raw_body;
  nlohmann::json body;  // null when the body was not JSON
};

// How the server answers one request.
struct ChatAnswer {
  int status = 200;
  std::string body;  // sent as application/json
  // Waited before answering; cut short when the server is destroyed, so a
  // slow answer never holds a test up for long.
  std::chrono::milliseconds delay{0};
};

// A well-formed completion whose first choice says `content`.
inline std::string CompletionBody(const std::string& content,
                                  const std::string& finish_reason = "stop") {
  return nlohmann::json{{"id", "chatcmpl-test"},
                        {"object", "chat.completion"},
                        {"model", "test-model"},
                        {"choices",
                         {{{"index", 0},
                           {"message", {{"role", "assistant"}, {"content", content}}},
                           {"finish_reason", finish_reason}}}}}
      .dump();
}

inline ChatAnswer Reply(const std::string& content) { return {200, CompletionBody(content)}; }
inline ChatAnswer Raw(std::string body, int status = 200) { return {status, std::move(body)}; }
inline ChatAnswer Slow(std::chrono::milliseconds delay, const std::string& content) {
  return {200, CompletionBody(content), delay};
}

class LocalChatServer {
 public:
  // Called for every request with its 0-based sequence number and its body
  // (null when not JSON).
  using Handler = std::function<ChatAnswer(int n, const nlohmann::json& body)>;

  // Answers every request with Reply(content).
  explicit LocalChatServer(const std::string& content)
      : LocalChatServer([content](int, const nlohmann::json&) { return Reply(content); }) {}

  explicit LocalChatServer(Handler handler) : handler_(std::move(handler)) {
    server_.Post("/v1/chat/completions",
                 [this](const httplib::Request& req, httplib::Response& res) { Serve(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~LocalChatServer() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    server_.stop();
    thread_.join();
  }

  LocalChatServer(const LocalChatServer&) = delete;
  LocalChatServer& operator=(const LocalChatServer&) = delete;

  // "http://127.0.0.1:<port>/v1"
  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }
  int port() const { return port_; }

  std::vector<ReceivedChatRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard lock(mu_);
    return requests_.size();
  }

 private:
  void Serve(const httplib::Request& req, httplib::Response& res) {
    ReceivedChatRequest received{req.path, std::nullopt, req.body,
                                 nlohmann::json::parse(req.body, nullptr, false)};
    if (req.has_header("Authorization")) {
      received.authorization = req.get_header_value("Authorization");
    }
    if (received.body.is_discarded()) received.body = nullptr;
    int n = 0;
    {
      std::lock_guard lock(mu_);
      n = static_cast<int>(requests_.size());
      requests_.push_back(received);
    }
    const ChatAnswer answer = handler_(n, received.body);
    if (answer.delay.count() > 0) {
      std::unique_lock lock(mu_);
      wake_.wait_for(lock, answer.delay, [this] { return stopping_; });
    }
    res.status = answer.status;
    res.set_content(answer.body, "application/json");
  }

  Handler handler_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::vector<ReceivedChatRequest> requests_;
};

}  // namespace mnemo::llm::testing

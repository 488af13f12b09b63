// A real HTTP server on 127.0.0.1 (free port, own thread) speaking the
// OpenAI /v1/embeddings wire format, for the embedder tests. Each test sets
// how it answers; the server records what it received.
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace mnemo::embed::testing {

struct ReceivedRequest {
  std::string path;
  std::string authorization;  // "" when absent
  nlohmann::json body;        // null when the body was not JSON
};

// The vector the server gives `text` by default: [n, 1, 0, ...] where n is
// the number at the end of the text ("t7" -> 7), so tests can tell which
// text a vector belongs to after normalisation (v[0] / v[1] == n).
inline std::vector<double> VectorFor(const std::string& text, int dimensions) {
  size_t digits = text.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(text[digits - 1]))) --digits;
  const double n = digits < text.size() ? std::stod(text.substr(digits)) : 0;
  std::vector<double> v(static_cast<size_t>(dimensions), 0.0);
  v[0] = n;
  if (dimensions > 1) v[1] = 1;
  return v;
}

// The usual answer: one embedding per input, listed in REVERSE order with
// their "index", so clients must order by index.
inline std::string EmbeddingsAnswer(const nlohmann::json& request, int dimensions) {
  nlohmann::json data = nlohmann::json::array();
  const auto& input = request.at("input");
  for (size_t i = input.size(); i-- > 0;) {
    data.push_back({{"object", "embedding"},
                    {"index", i},
                    {"embedding", VectorFor(input[i].get<std::string>(), dimensions)}});
  }
  return nlohmann::json{{"object", "list"}, {"data", data}, {"model", "test-model"}}.dump();
}

class LocalEmbeddingsServer {
 public:
  // Called for every request with its 0-based sequence number; fills `res`.
  using Handler = std::function<void(int n, const nlohmann::json& body, httplib::Response& res)>;

  // Answers every request with EmbeddingsAnswer(dimensions).
  explicit LocalEmbeddingsServer(int dimensions)
      : LocalEmbeddingsServer(
            [dimensions](int, const nlohmann::json& body, httplib::Response& res) {
              res.set_content(EmbeddingsAnswer(body, dimensions), "application/json");
            }) {}

  explicit LocalEmbeddingsServer(Handler handler) : handler_(std::move(handler)) {
    server_.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
      ReceivedRequest received{req.path, req.get_header_value("Authorization"),
                               nlohmann::json::parse(req.body, nullptr, false)};
      if (received.body.is_discarded()) received.body = nullptr;
      int n = 0;
      {
        std::lock_guard lock(mu_);
        n = static_cast<int>(requests_.size());
        requests_.push_back(received);
      }
      handler_(n, received.body, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }

  ~LocalEmbeddingsServer() {
    server_.stop();
    thread_.join();
  }

  std::string base_url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }

  std::vector<ReceivedRequest> requests() const {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t request_count() const {
    std::lock_guard lock(mu_);
    return requests_.size();
  }

 private:
  Handler handler_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<ReceivedRequest> requests_;
};

}  // namespace mnemo::embed::testing

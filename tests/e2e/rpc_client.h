// A JSON-RPC client of the real daemon for end-to-end tests: one principal's
// bearer token (none when empty) on every request to /rpc.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace mnemo::e2e {

class RpcClient {
 public:
  RpcClient(int port, std::string token = {}) : http_("127.0.0.1", port), token_(std::move(token)) {
    http_.set_read_timeout(30, 0);
    http_.set_write_timeout(30, 0);
  }

  // The whole JSON-RPC response; null when the HTTP request failed or the
  // body was not JSON (the test fails then).
  nlohmann::json Call(const std::string& method, const nlohmann::json& params) {
    auto r = http_.Post("/rpc", Headers(), Body(method, params), "application/json");
    EXPECT_TRUE(r) << method << ": no HTTP response";
    if (!r) return nullptr;
    EXPECT_EQ(r->status, 200) << method << ": " << r->body;
    nlohmann::json parsed = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(parsed.is_discarded()) << method << ": " << r->body;
    return parsed.is_discarded() ? nlohmann::json() : parsed;
  }

  // The whole response, or null when there was no HTTP answer (a daemon that
  // was killed); nothing is asserted.
  nlohmann::json CallQuietly(const std::string& method, const nlohmann::json& params) {
    auto r = http_.Post("/rpc", Headers(), Body(method, params), "application/json");
    if (!r) return nullptr;
    nlohmann::json parsed = nlohmann::json::parse(r->body, nullptr, /*allow_exceptions=*/false);
    return parsed.is_discarded() ? nlohmann::json() : parsed;
  }

  // The result, failing the test on an error.
  nlohmann::json Result(const std::string& method, const nlohmann::json& params) {
    nlohmann::json r = Call(method, params);
    EXPECT_TRUE(r.contains("result")) << method << ": " << r.dump();
    return r.contains("result") ? r["result"] : nlohmann::json();
  }

  // The error object's code, 0 on success.
  int ErrorCode(const std::string& method, const nlohmann::json& params) {
    nlohmann::json r = Call(method, params);
    return r.contains("error") ? r["error"].value("code", 0) : 0;
  }

 private:
  httplib::Headers Headers() const {
    httplib::Headers headers;
    if (!token_.empty()) headers.emplace("Authorization", "Bearer " + token_);
    return headers;
  }
  static std::string Body(const std::string& method, const nlohmann::json& params) {
    return nlohmann::json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}
        .dump();
  }

  httplib::Client http_;
  std::string token_;
};

}  // namespace mnemo::e2e

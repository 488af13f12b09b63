// An in_memory engine behind a Dispatcher, for transport unit tests.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "test_util.h"
#include "transport/rpc/jsonrpc.h"

namespace mnemo::transport {

class RpcTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(Config{}); }

  void Open(Config config) {
    dispatcher_.reset();
    engine_.reset();
    config.memory.backend = "in_memory";
    auto e = Engine::Open(EngineOptions{.workspace = dir_.path(), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    dispatcher_ = std::make_unique<Dispatcher>(*engine_);
  }

  // The parsed response to a raw body; null when none was sent.
  nlohmann::json Raw(const std::string& body) {
    auto out = dispatcher_->HandleText(body, who_);
    return out ? nlohmann::json::parse(*out) : nlohmann::json(nullptr);
  }

  // The response to {"jsonrpc":"2.0","id":1,"method":..,"params":..}.
  nlohmann::json Request(const std::string& method, const nlohmann::json& params) {
    nlohmann::json req = {{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}};
    if (!params.is_null()) req["params"] = params;
    return Raw(req.dump());
  }

  // The result, failing the test on an error response.
  nlohmann::json Ok(const std::string& method, const nlohmann::json& params) {
    nlohmann::json r = Request(method, params);
    EXPECT_TRUE(r.contains("result")) << method << " " << params.dump() << " -> " << r.dump();
    return r.value("result", nlohmann::json());
  }

  // The error object, failing the test on success.
  nlohmann::json Err(const std::string& method, const nlohmann::json& params) {
    nlohmann::json r = Request(method, params);
    EXPECT_TRUE(r.contains("error")) << method << " " << params.dump() << " -> " << r.dump();
    return r.value("error", nlohmann::json::object());
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Dispatcher> dispatcher_;
  Principal who_;
};

}  // namespace mnemo::transport

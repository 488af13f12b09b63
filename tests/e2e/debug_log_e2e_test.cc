// `mnemo serve` with MNEMO_LOG=debug: one line per request with its method,
// principal and time by stage (the first: how long it waited for a worker),
// and no memory content in the log.
#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <regex>
#include <string>
#include <thread>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

json Call(httplib::Client& client, const std::string& method, const json& params) {
  auto r = client.Post(
      "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
      "application/json");
  EXPECT_TRUE(r) << "no response";
  if (!r) return nullptr;
  return json::parse(r->body, nullptr, false);
}

// The log lines that contain `needle`.
std::string LinesWith(const std::string& log, const std::string& needle) {
  std::string out;
  size_t start = 0;
  while (start < log.size()) {
    size_t end = log.find('\n', start);
    if (end == std::string::npos) end = log.size();
    const std::string line = log.substr(start, end - start);
    if (line.find(needle) != std::string::npos) out += line + "\n";
    start = end + 1;
  }
  return out;
}

TEST(DebugLog, ShowsEachRequestsMethodPrincipalAndStagesButNoContent) {
  testing::TempDir dir;
  Daemon daemon(dir.path(), {{"MNEMO_LOG", "debug"}});
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  httplib::Client client("127.0.0.1", daemon.port());
  client.set_read_timeout(20, 0);
  const std::string marker = "zanzibar-marker-7Q";
  const std::string key = "secret-key-K9";
  json stored =
      Call(client, "memory.store", {{"key", key}, {"value", "the launch code is " + marker}});
  ASSERT_TRUE(stored.contains("result")) << stored.dump();
  json found = Call(client, "memory.search", {{"query", "launch code " + marker}});
  ASSERT_TRUE(found.contains("result")) << found.dump();
  ASSERT_FALSE(found["result"]["results"].empty()) << found.dump();

  // Each line is written before its response is sent; the daemon's stderr
  // is read by another thread.
  std::string log = daemon.Stderr();
  for (int i = 0; i < 100 && log.find("request memory.search") == std::string::npos; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    log = daemon.Stderr();
  }
  const std::string store_line = LinesWith(log, "request memory.store");
  const std::string search_line = LinesWith(log, "request memory.search");
  EXPECT_TRUE(std::regex_search(
      store_line, std::regex(R"(debug: request memory\.store by \S+: ok in [0-9.]+ ms \()"
                             R"(queue [0-9.]+ ms, parse [0-9.]+ ms.*store [0-9.]+ ms)")))
      << log;
  EXPECT_TRUE(std::regex_search(
      search_line,
      std::regex(R"(debug: request memory\.search by \S+: ok in [0-9.]+ ms \()"
                 R"(queue [0-9.]+ ms, parse [0-9.]+ ms.*keyword [0-9.]+ ms.*vector [0-9.]+ ms)"
                 R"(.*fuse [0-9.]+ ms)")))
      << log;
  EXPECT_EQ(log.find(marker), std::string::npos) << log;
  EXPECT_EQ(log.find(key), std::string::npos) << log;
  EXPECT_EQ(log.find("launch code"), std::string::npos) << log;
}

TEST(DebugLog, IsSilentAtTheDefaultLevel) {
  testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  httplib::Client client("127.0.0.1", daemon.port());
  client.set_read_timeout(20, 0);
  json stored = Call(client, "memory.store", {{"key", "k"}, {"value", "v"}});
  ASSERT_TRUE(stored.contains("result")) << stored.dump();
  EXPECT_EQ(daemon.Stderr().find("debug:"), std::string::npos) << daemon.Stderr();
}

}  // namespace
}  // namespace mnemo::e2e

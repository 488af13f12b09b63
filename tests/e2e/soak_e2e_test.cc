// Concurrency soak (issue 7): 8 client threads over HTTP against one daemon
// plus 2 more processes (`mnemo rpc --stdio`, each its own engine on the same
// workspace) write, overwrite, forget and search for a fixed time. No client
// may see an error (SQLITE_BUSY would surface as -32005), no acknowledged
// write may be lost, and the counts must reconcile with what was
// acknowledged. MNEMO_SOAK_SECONDS lengthens the run (default 5).
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

constexpr int kThreads = 8;
constexpr int kProcesses = 2;
constexpr int kKeysPerThread = 40;
constexpr int kProcessOps = 400;

std::chrono::seconds SoakTime() {
  const char* s = std::getenv("MNEMO_SOAK_SECONDS");
  return std::chrono::seconds(s != nullptr ? std::atoi(s) : 5);
}

// What one client thread was told: the live value of each of its keys
// (nullopt: forgotten) and its acknowledged turns.
struct ThreadLog {
  std::map<std::string, std::optional<std::string>> keys;
  int turns = 0;
  int searches = 0;
  std::vector<std::string> errors;
};

TEST(SoakE2e, EightThreadsAndTwoProcessesLoseNothingAndSeeNoBusyError) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  Daemon daemon(ws);
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();

  // The two extra processes: their requests are prepared in full.
  std::vector<std::string> inputs(kProcesses);
  for (int p = 0; p < kProcesses; ++p) {
    std::string& in = inputs[static_cast<size_t>(p)];
    for (int i = 0; i < kProcessOps; ++i) {
      json req = {{"jsonrpc", "2.0"}, {"id", i}};
      if (i % 4 == 3) {
        req["method"] = "memory.search";
        req["params"] = {{"query", "soak process value"}};
      } else {
        req["method"] = "memory.store";
        req["params"] = {{"key", "p" + std::to_string(p) + "-" + std::to_string(i)},
                         {"value", "soak process value " + std::to_string(i)},
                         {"tags", {"soak"}}};
      }
      in += req.dump() + "\n";
    }
  }
  std::vector<RunResult> process_results(kProcesses);
  std::vector<std::thread> processes;
  for (int p = 0; p < kProcesses; ++p) {
    processes.emplace_back([&, p] {
      process_results[static_cast<size_t>(p)] =
          RunMnemo({"--workspace", ws, "rpc", "--stdio"}, inputs[static_cast<size_t>(p)]);
    });
  }

  const auto until = std::chrono::steady_clock::now() + SoakTime();
  std::vector<ThreadLog> logs(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ThreadLog& log = logs[static_cast<size_t>(t)];
      RpcClient client(daemon.port());
      const std::string session = "soak-" + std::to_string(t);
      for (int i = 0; std::chrono::steady_clock::now() < until; ++i) {
        const std::string key = "t" + std::to_string(t) + "-" + std::to_string(i % kKeysPerThread);
        json r;
        switch (i % 6) {
          case 0:
          case 1: {
            const std::string value = "soak thread value " + std::to_string(i);
            r = client.CallQuietly("memory.store", {{"key", key}, {"value", value}});
            if (r.contains("result")) log.keys[key] = value;
            break;
          }
          case 2:
            r = client.CallQuietly("memory.search", {{"query", "soak value"}, {"max_results", 10}});
            if (r.contains("result")) ++log.searches;
            break;
          case 3: {
            r = client.CallQuietly("memory.get", {{"key", key}});
            const auto known = log.keys.find(key);
            const bool live = known != log.keys.end() && known->second.has_value();
            if (live && (!r.contains("result") || r["result"]["content"] != *known->second)) {
              log.errors.push_back("read " + key + " got " + r.dump());
            }
            if (!live && r.contains("error") && r["error"]["code"] == -32001) r = {{"result", 1}};
            break;
          }
          case 4:
            r = client.CallQuietly("memory.forget", {{"key", key}});
            if (r.contains("result")) log.keys[key] = std::nullopt;
            break;
          default:
            r = client.CallQuietly("memory.turn_complete",
                                   {{"session_id", session},
                                    {"user_message", "soak turn " + std::to_string(i)},
                                    {"assistant_response", "fine"}});
            if (r.contains("result")) ++log.turns;
        }
        if (!r.contains("result")) log.errors.push_back(std::to_string(i % 6) + ": " + r.dump());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (std::thread& p : processes) p.join();

  // No error anywhere, from the threads or the processes.
  for (const ThreadLog& log : logs) {
    for (const std::string& e : log.errors) ADD_FAILURE() << e;
  }
  int64_t process_entries = 0;
  for (const RunResult& r : process_results) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    int answers = 0;
    for (std::string line; std::getline(lines, line);) {
      json j = json::parse(line, nullptr, false);
      ASSERT_TRUE(j.contains("result")) << line;
      ++answers;
    }
    EXPECT_EQ(answers, kProcessOps);
    process_entries += kProcessOps - kProcessOps / 4;
  }

  // Reconcile through the daemon: every live key holds its last value, every
  // forgotten one is gone, every turn is stored, the count adds up.
  RpcClient client(daemon.port());
  int64_t live = 0;
  int64_t turns = 0;
  int64_t searches = 0;
  for (int t = 0; t < kThreads; ++t) {
    const ThreadLog& log = logs[static_cast<size_t>(t)];
    for (const auto& [key, value] : log.keys) {
      json r = client.Call("memory.get", {{"key", key}});
      if (value) {
        ++live;
        EXPECT_EQ(r["result"]["content"], *value) << key;
      } else {
        EXPECT_EQ(r["error"]["code"], -32001) << key << " " << r.dump();
      }
    }
    json rows =
        client.Result("memory.session_turns", {{"session_id", "soak-" + std::to_string(t)}});
    EXPECT_EQ(rows["turns"].size(), static_cast<size_t>(2 * log.turns));
    turns += log.turns;
    searches += log.searches;
  }
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kProcessOps; i += 37) {
      if (i % 4 == 3) continue;
      json r =
          client.Call("memory.get", {{"key", "p" + std::to_string(p) + "-" + std::to_string(i)}});
      EXPECT_EQ(r["result"]["content"], "soak process value " + std::to_string(i)) << r.dump();
    }
  }
  EXPECT_EQ(client.Result("memory.stats", json::object())["entries"], live + process_entries);
  std::cerr << "soak: " << SoakTime().count() << " s, " << kThreads << " threads (" << live
            << " live keys, " << turns << " turns, " << searches << " searches) + " << kProcesses
            << " processes x " << kProcessOps << " requests\n";
  EXPECT_GT(turns, 0);
  EXPECT_GT(searches, 0);
  EXPECT_EQ(daemon.Stop(SIGTERM), 0) << daemon.Stderr();
}

}  // namespace
}  // namespace mnemo::e2e

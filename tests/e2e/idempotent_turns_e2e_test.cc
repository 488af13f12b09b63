// Spec 40, end to end: a harness retries memory.turn_complete with one
// turn_id 50 times at once, over HTTP to two `mnemo serve` processes on one
// workspace. One call stores the turn; the others answer with its result
// ("replayed": true); there is one pair of rows, one archive file per row
// and one piece of profile evidence.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <memory>
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

constexpr int kRetries = 50;
constexpr int kProcesses = 2;

json RetriedTurn() {
  return {{"session_id", "retried"},
          {"turn_id", "harness-turn-0001"},
          {"user_message", "I prefer aisle seats on night trains."},
          {"assistant_response", "Noted: aisle seats."},
          {"tool_calls", json::array({{{"name", "book_train"}, {"success", true}}})}};
}

TEST(IdempotentTurnsE2e, FiftyConcurrentRetriesOverTwoDaemonsStoreTheTurnOnce) {
  testing::TempDir dir;
  std::vector<std::unique_ptr<Daemon>> daemons;
  for (int p = 0; p < kProcesses; ++p) {
    daemons.push_back(std::make_unique<Daemon>(dir.path()));
    ASSERT_TRUE(daemons.back()->started()) << daemons.back()->Stderr();
  }
  std::vector<json> answers(kRetries);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRetries; ++i) {
    threads.emplace_back([&, i] {
      RpcClient client(daemons[i % kProcesses]->port());
      // No HTTP answer (a connection dropped under the burst): the harness
      // retries, which is what turn_id is for.
      for (int attempt = 0; attempt < 5 && !answers[i].is_object(); ++attempt) {
        answers[i] = client.CallQuietly("memory.turn_complete", RetriedTurn());
      }
    });
  }
  for (std::thread& t : threads) t.join();
  int stored = 0;
  for (const json& a : answers) {
    ASSERT_TRUE(a.is_object() && a.contains("result")) << a.dump();
    const json& r = a["result"];
    if (!r["replayed"].get<bool>()) ++stored;
    EXPECT_EQ(r["episodic"], answers[0]["result"]["episodic"]) << r.dump();
    EXPECT_EQ(r["segment_id"], answers[0]["result"]["segment_id"]);
  }
  EXPECT_EQ(stored, 1);

  RpcClient client(daemons[0]->port());
  json turns = client.Result("memory.session_turns", {{"session_id", "retried"}});
  EXPECT_EQ(turns["turns"].size(), 2u) << turns.dump();
  ASSERT_TRUE(client.Result("memory.session_end", {{"session_id", "retried"}, {"sync", true}})
                  .value("closed", false));
  const std::string profile =
      client.Result("memory.profile_render", json::object())["rendered"].get<std::string>();
  EXPECT_NE(profile.find("(confirmed 1x)"), std::string::npos) << profile;
  EXPECT_EQ(profile.find("(confirmed 2x)"), std::string::npos) << profile;

  // A blank or too long turn_id is refused before anything is stored.
  json bad = RetriedTurn();
  bad["turn_id"] = std::string(129, 'x');
  EXPECT_EQ(client.Call("memory.turn_complete", bad)["error"]["code"], -32602);
  bad["turn_id"] = " ";
  EXPECT_EQ(client.Call("memory.turn_complete", bad)["error"]["code"], -32602);

  for (auto& daemon : daemons) EXPECT_EQ(daemon->Stop(SIGTERM), 0) << daemon->Stderr();
  const std::filesystem::path archive =
      std::filesystem::path(dir.path()) / "memory_tree/content/episodic/retried";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(archive),
                          std::filesystem::directory_iterator()),
            2);
}

// Spec 40, idle segments through the CLI: a session never ended is
// finalised by the next process that opens the workspace.
TEST(IdleSegmentsE2e, TheNextCliProcessFinalisesASessionLeftOpen) {
  testing::TempDir dir;
  auto rpc = [&](const std::string& method, const json& params) {
    RunResult r = RunMnemo({"--workspace", dir.path(), "rpc", method, params.dump()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    json parsed = json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(parsed.is_discarded()) << r.out;
    return parsed;
  };
  // A turn from long ago: its segment has been idle for years.
  rpc("memory.turn_complete", {{"session_id", "abandoned"},
                               {"user_message", "We decided to move the standup to Tuesdays."},
                               {"assistant_response", "Noted."},
                               {"timestamp", "2020-01-01T10:00:00Z"}});
  json segments = rpc("memory.segments", {{"session_id", "abandoned"}});
  ASSERT_EQ(segments["segments"].size(), 1u) << segments.dump();
  EXPECT_EQ(segments["segments"][0]["status"], "closed");
  // That process finalised it before exiting.
  segments = rpc("memory.segments", {{"session_id", "abandoned"}});
  EXPECT_FALSE(segments["segments"][0]["recap"].get<std::string>().empty()) << segments.dump();
  json events = rpc("memory.events", json::object());
  ASSERT_EQ(events["events"].size(), 1u) << events.dump();
  EXPECT_EQ(events["events"][0]["type"], "decision");
}

}  // namespace
}  // namespace mnemo::e2e

// Side channels under ACL (issue 17 item 7), through the real daemon: what
// one principal sees (metrics, MCP sessions, archive files, search scores,
// ids) does not depend on what another principal stores or does. Each test
// has a workspace of its own with alice and bob (users) and root (admin).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "process.h"
#include "rpc_client.h"
#include "test_util.h"
#include "transport/http/http_server.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

std::string Token(const std::string& who) { return who + "-secret-token"; }

class SideChannel : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      std::ofstream toml(dir_.Sub("mnemo.toml"));
      toml << "[memory]\nacl_enabled = true\n\n";
      for (const auto& [who, role] : std::vector<std::pair<std::string, std::string>>{
               {"alice", "user"}, {"bob", "user"}, {"root", "admin"}}) {
        toml << "[[security.tokens]]\nprincipal = \"" << who << "\"\nrole = \"" << role
             << "\"\nsha256 = \"" << internal::Sha256Hex(Token(who)) << "\"\n";
      }
    }
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    http_->set_read_timeout(30, 0);
    alice_ = std::make_unique<RpcClient>(daemon_->port(), Token("alice"));
    bob_ = std::make_unique<RpcClient>(daemon_->port(), Token("bob"));
    root_ = std::make_unique<RpcClient>(daemon_->port(), Token("root"));
  }

  void TearDown() override {
    if (daemon_ && daemon_->started()) {
      EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
    }
  }

  httplib::Headers Auth(const std::string& who) {
    return {{"Authorization", "Bearer " + Token(who)}};
  }

  // POST /mcp as `who`, in `session` when not empty.
  httplib::Result Mcp(const std::string& who, const json& message,
                      const std::string& session = {}) {
    httplib::Headers h = Auth(who);
    h.emplace("Accept", "application/json, text/event-stream");
    if (!session.empty()) h.emplace("Mcp-Session-Id", session);
    return http_->Post("/mcp", h, message.dump(), "application/json");
  }

  // A new MCP session of `who`; its id.
  std::string OpenMcp(const std::string& who) {
    auto r = Mcp(who, {{"jsonrpc", "2.0"},
                       {"id", 1},
                       {"method", "initialize"},
                       {"params",
                        {{"protocolVersion", "2025-11-25"},
                         {"capabilities", json::object()},
                         {"clientInfo", {{"name", "e2e"}, {"version", "1"}}}}}});
    EXPECT_TRUE(r);
    if (!r) return "";
    EXPECT_EQ(r->status, 200) << r->body;
    return r->get_header_value("Mcp-Session-Id");
  }

  // The HTTP status of a ping in `session`.
  int McpPing(const std::string& who, const std::string& session) {
    auto r = Mcp(who, {{"jsonrpc", "2.0"}, {"id", 2}, {"method", "ping"}}, session);
    EXPECT_TRUE(r);
    return r ? r->status : 0;
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
  std::unique_ptr<RpcClient> alice_;
  std::unique_ptr<RpcClient> bob_;
  std::unique_ptr<RpcClient> root_;
};

// Process-wide counters (every principal's calls, the whole store's entry
// count) are an admin's view when tokens name the callers.
TEST_F(SideChannel, MetricsAreForAdminsOnlyWhenTokensAreConfigured) {
  alice_->Result("memory.store", {{"key", "a"}, {"value", "alice's private note"}});
  auto user = http_->Get("/metrics", Auth("bob"));
  ASSERT_TRUE(user);
  EXPECT_EQ(user->status, 403);
  EXPECT_NE(user->body.find("admin"), std::string::npos) << user->body;
  EXPECT_EQ(user->body.find("mnemo_entries"), std::string::npos) << user->body;
  auto admin = http_->Get("/metrics", Auth("root"));
  ASSERT_TRUE(admin);
  EXPECT_EQ(admin->status, 200) << admin->body;
  EXPECT_NE(admin->body.find("mnemo_entries 1"), std::string::npos) << admin->body;
}

// bob's initialize flood evicts bob's oldest sessions, never alice's.
TEST_F(SideChannel, McpSessionFloodEvictsOnlyTheFloodersOwnSessions) {
  const std::string hers = OpenMcp("alice");
  const std::string first_of_his = OpenMcp("bob");
  ASSERT_FALSE(hers.empty());
  ASSERT_EQ(McpPing("alice", hers), 200);
  for (size_t i = 0; i < transport::kMaxMcpSessionsPerPrincipal; ++i) {
    ASSERT_FALSE(OpenMcp("bob").empty()) << i;
  }
  EXPECT_EQ(McpPing("alice", hers), 200) << "alice's session was evicted by bob's initializes";
  EXPECT_EQ(McpPing("bob", first_of_his), 404) << "bob's own oldest session goes first";
}

// The archive files (under the archive root, any layout) whose text holds
// `word`.
int ArchiveFilesWith(const std::string& workspace, const std::string& word) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(workspace) / "memory_tree/content/episodic";
  int n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file() || it->path().extension() != ".md") continue;
    std::ifstream in(it->path());
    std::stringstream text;
    text << in.rdbuf();
    if (text.str().find(word) != std::string::npos) ++n;
  }
  return n;
}

// Two principals' sessions of one id get archive files each; neither
// pre-empts the other, and one's erasure leaves the other's files.
TEST_F(SideChannel, ArchiveFilesArePerPrincipal) {
  alice_->Result("memory.turn_complete", {{"session_id", "shared-s"},
                                          {"user_message", "alice mentions a capybara"},
                                          {"assistant_response", "capybara noted"},
                                          {"sync", true}});
  bob_->Result("memory.turn_complete", {{"session_id", "shared-s"},
                                        {"user_message", "bob mentions an axolotl"},
                                        {"assistant_response", "axolotl noted"},
                                        {"sync", true}});
  EXPECT_EQ(ArchiveFilesWith(dir_.path(), "capybara"), 2);
  EXPECT_EQ(ArchiveFilesWith(dir_.path(), "axolotl"), 2) << "bob's turn got no archive files";
  json forgot = bob_->Result("memory.session_forget", {{"session_id", "shared-s"}});
  EXPECT_EQ(forgot["erased"]["archive_files"], 2) << forgot.dump();
  EXPECT_EQ(ArchiveFilesWith(dir_.path(), "axolotl"), 0);
  EXPECT_EQ(ArchiveFilesWith(dir_.path(), "capybara"), 2);
}

// The keyword scores of bob's search, by key.
std::map<std::string, double> KeywordScores(RpcClient& who, const std::string& query) {
  std::map<std::string, double> out;
  json found = who.Result("memory.search", {{"query", query}, {"min_score", 0}});
  for (const json& hit : found["results"]) {
    out[hit["key"].get<std::string>()] = hit["keyword_score"].get<double>();
  }
  return out;
}

// The attack of the issue: bob's scores for "quokka wombat" moved when alice
// stored private "quokka" entries, telling bob the word is in her memory.
TEST_F(SideChannel, SearchScoresDoNotDependOnOthersPrivateEntries) {
  bob_->Result("memory.store", {{"key", "b1"}, {"value", "quokka wombat habitat"}});
  bob_->Result("memory.store", {{"key", "b2"}, {"value", "wombat burrow notes here"}});
  const std::map<std::string, double> before = KeywordScores(*bob_, "quokka wombat");
  ASSERT_EQ(before.size(), 2u);
  for (int i = 0; i < 20; ++i) {
    alice_->Result("memory.store", {{"key", "a" + std::to_string(i)},
                                    {"value", "quokka sighting " + std::to_string(i)}});
  }
  const std::map<std::string, double> after = KeywordScores(*bob_, "quokka wombat");
  ASSERT_EQ(after.size(), 2u);
  for (const auto& [key, score] : before) {
    EXPECT_DOUBLE_EQ(after.at(key), score) << key;
  }
  // Turns and documents: the same for episodic_search and doc_search.
  bob_->Result("memory.turn_complete", {{"session_id", "b-s"},
                                        {"user_message", "quokka wombat habitat"},
                                        {"assistant_response", "wombat burrow notes here"},
                                        {"sync", true}});
  auto turn_scores = [&] {
    std::vector<double> out;
    json r = bob_->Result("memory.episodic_search", {{"query", "quokka wombat"}});
    for (const json& hit : r["results"]) out.push_back(hit["score"].get<double>());
    return out;
  };
  const std::vector<double> turns_before = turn_scores();
  ASSERT_FALSE(turns_before.empty());
  for (int i = 0; i < 5; ++i) {
    alice_->Result("memory.turn_complete",
                   {{"session_id", "a-s"},
                    {"user_message", "quokka sighting " + std::to_string(i)},
                    {"assistant_response", "quokka noted"},
                    {"sync", true}});
  }
  EXPECT_EQ(turn_scores(), turns_before);
}

// Bob's two turns, with whatever alice does in between; every turn id bob
// is shown, by where it was shown.
std::map<std::string, std::vector<int64_t>> BobsTurnIds(RpcClient& bob,
                                                        const std::function<void()>& between) {
  std::map<std::string, std::vector<int64_t>> ids;
  auto turn = [&](const std::string& said) {
    json r = bob.Result("memory.turn_complete", {{"session_id", "b-s"},
                                                 {"user_message", said},
                                                 {"assistant_response", "noted: " + said},
                                                 {"sync", true}});
    ids["turn_complete"].push_back(r["episodic"]["user"]["id"].get<int64_t>());
    ids["turn_complete"].push_back(r["episodic"]["assistant"]["id"].get<int64_t>());
  };
  turn("the platypus lays eggs");
  between();
  turn("the platypus hunts at night");
  const json turns = bob.Result("memory.session_turns", {{"session_id", "b-s"}});
  for (const json& t : turns["turns"]) {
    ids["session_turns"].push_back(t["id"].get<int64_t>());
  }
  const json found =
      bob.Result("memory.episodic_search", {{"query", "platypus"}, {"context_turns", 1}});
  for (const json& h : found["results"]) {
    ids["episodic_search"].push_back(h["id"].get<int64_t>());
    for (const json& c : h["context"]) ids["episodic_search"].push_back(c["id"].get<int64_t>());
  }
  for (auto& [where, list] : ids) std::sort(list.begin(), list.end());
  return ids;
}

// Storage numbers turns from one sequence for everyone: the ids bob is
// shown must not tell him how many turns alice stored between two of his.
TEST_F(SideChannel, TurnIdsDoNotDependOnOthersTurns) {
  const auto busy = BobsTurnIds(*bob_, [&] {
    for (int i = 0; i < 7; ++i) {
      alice_->Result("memory.turn_complete", {{"session_id", "a-s"},
                                              {"user_message", "alice turn " + std::to_string(i)},
                                              {"assistant_response", "ok"},
                                              {"sync", true}});
    }
  });
  // The same two turns of bob's in a workspace where alice did nothing.
  testing::TempDir quiet_dir;
  std::filesystem::copy_file(dir_.Sub("mnemo.toml"), quiet_dir.Sub("mnemo.toml"));
  Daemon quiet(quiet_dir.path());
  ASSERT_TRUE(quiet.started()) << quiet.Stderr();
  RpcClient quiet_bob(quiet.port(), Token("bob"));
  const auto alone = BobsTurnIds(quiet_bob, [] {});
  EXPECT_EQ(quiet.Stop(SIGTERM), 0) << quiet.Stderr();

  for (const char* where : {"turn_complete", "session_turns", "episodic_search"}) {
    ASSERT_TRUE(busy.contains(where)) << where;
  }
  ASSERT_EQ(busy.at("turn_complete").size(), 4u);
  EXPECT_EQ(busy, alone);
  // One turn, one id, wherever it is shown (memory.recall is off under ACL;
  // core/import_export_test checks its ids).
  for (const char* where : {"session_turns", "episodic_search"}) {
    for (const int64_t id : busy.at(where)) {
      EXPECT_TRUE(std::ranges::binary_search(busy.at("turn_complete"), id)) << where << " " << id;
    }
  }
}

}  // namespace
}  // namespace mnemo::e2e

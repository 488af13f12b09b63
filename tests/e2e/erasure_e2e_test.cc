// Erasure through the real daemon (spec 10 "Erasure", issue 42 items 2, 3,
// 12 and 18): after memory.session_forget or memory.principal_forget no read
// method, no export and no byte of any file of the workspace holds the
// erased text, while the daemon still runs; a profile fact keeps only the
// evidence that was not erased; memory.session_end returns once the
// session's profile is stored.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
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
namespace fs = std::filesystem;

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

// The files of `root` (recursively) whose bytes hold `needle`, compared
// ASCII case-blind (the text indexes keep lower-cased terms).
std::vector<std::string> FilesHolding(const std::string& root, const std::string& needle) {
  std::vector<std::string> out;
  const std::string lower_needle = Lower(needle);
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (Lower(bytes).find(lower_needle) != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

bool Holds(const json& j, const std::string& needle) {
  return Lower(j.dump()).find(Lower(needle)) != std::string::npos;
}

class ErasureE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    rpc_ = std::make_unique<RpcClient>(daemon_->port());
  }

  void TearDown() override {
    if (daemon_ && daemon_->started()) {
      EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
    }
  }

  void Turn(const std::string& session, const std::string& said, int64_t minutes_ago) {
    rpc_->Result("memory.turn_complete", {{"session_id", session},
                                          {"user_message", said},
                                          {"assistant_response", "Noted."},
                                          {"timestamp", MinutesAgo(minutes_ago)},
                                          {"sync", true}});
  }

  void End(const std::string& session) {
    rpc_->Result("memory.session_end", {{"session_id", session}, {"sync", true}});
  }

  // The current facet of `key`, or null.
  json FacetOf(const std::string& key) {
    json facets = rpc_->Result("memory.profile", {{"include_history", true}})["facets"];
    for (const json& f : facets) {
      if (f["key"] == key) return f;
    }
    return nullptr;
  }

  // Every read method's answer that could show the marker.
  json Reads(const std::string& marker) {
    return json::array({rpc_->Result("memory.profile", {{"include_history", true}}),
                        rpc_->Result("memory.profile_render", json::object()),
                        rpc_->Result("memory.events", json::object()),
                        rpc_->Result("memory.episodic_search", {{"query", marker}}),
                        rpc_->Result("memory.recall", {{"query", marker}}),
                        rpc_->Result("memory.doc_search", {{"query", marker}}),
                        rpc_->Result("memory.search", {{"query", marker}}),
                        rpc_->Result("memory.graph_query", json::object())});
  }

  std::string Export() {
    RunResult r = RunMnemo({"--workspace", dir_.path(), "export"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<RpcClient> rpc_;
};

// The case: the erased session said where the user lives twice and
// was the only one to say it; another session said where the user lived
// before and shares a preference with it. "vxburg" is what the index files
// keep of the place even when a term shares its first letters with the one
// before it.
TEST_F(ErasureE2e, SessionForgetLeavesOnlyTheOtherSessionsEvidenceAndNoByteOfItsText) {
  Turn("kept", "I live in Porto.", 50);
  Turn("kept", "My favourite tea is sencha.", 49);
  End("kept");
  Turn("gone", "I live in Zqvxburg now.", 40);
  Turn("gone", "As I said, I live in Zqvxburg.", 39);
  Turn("gone", "My favourite tea is sencha.", 38);
  End("gone");
  json location = FacetOf("location");
  ASSERT_FALSE(location.is_null());
  ASSERT_EQ(location["value"], "Zqvxburg") << location.dump();
  ASSERT_EQ(location["evidence_count"], 2) << location.dump();
  json tea = FacetOf("tea");
  ASSERT_FALSE(tea.is_null());
  ASSERT_EQ(tea["evidence_count"], 2) << tea.dump();
  ASSERT_FALSE(FilesHolding(dir_.path(), "vxburg").empty());

  json erased = rpc_->Result("memory.session_forget", {{"session_id", "gone"}});
  EXPECT_EQ(erased["erased"]["turns"], 6) << erased.dump();

  // The place the erased session gave is gone; the one the kept session
  // gave is current again, with its own evidence only.
  location = FacetOf("location");
  ASSERT_FALSE(location.is_null());
  EXPECT_EQ(location["value"], "Porto") << location.dump();
  EXPECT_EQ(location["evidence_count"], 1) << location.dump();
  tea = FacetOf("tea");
  ASSERT_FALSE(tea.is_null());
  EXPECT_EQ(tea["evidence_count"], 1) << tea.dump();
  EXPECT_EQ(tea["segment_ids"].size(), 1u) << tea.dump();
  const std::string rendered =
      rpc_->Result("memory.profile_render", json::object())["rendered"].get<std::string>();
  EXPECT_NE(rendered.find("- location: Porto (confirmed 1x)"), std::string::npos) << rendered;
  EXPECT_NE(rendered.find("(confirmed 1x)"), std::string::npos) << rendered;

  json reads = Reads("Zqvxburg");
  EXPECT_FALSE(Holds(reads, "vxburg")) << reads.dump();
  const std::string exported = Export();
  EXPECT_EQ(Lower(exported).find("vxburg"), std::string::npos) << exported;
  // The daemon still runs: database, -wal, -shm, index files, archive.
  std::vector<std::string> holding = FilesHolding(dir_.path(), "vxburg");
  EXPECT_TRUE(holding.empty()) << holding.front();
  // What the kept session said is still there.
  EXPECT_FALSE(FilesHolding(dir_.path(), "porto").empty());
}

// A list slot (issue 44) gathers items from several sessions: erasing one
// session takes its item off the list, and the other session's statement
// (which only ever named its own item) keeps no byte of it. "qorbix" is
// what the index files keep of the name.
TEST_F(ErasureE2e, SessionForgetTakesItsItemOffAListSlotAndKeepsNoByteOfIt) {
  Turn("gone", "I have a cat called Zqorbix.", 50);
  End("gone");
  Turn("kept", "I have a dog named Rex.", 40);
  End("kept");
  json pet = FacetOf("pet");
  ASSERT_FALSE(pet.is_null());
  ASSERT_EQ(pet["value"], "Zqorbix (cat), Rex (dog)") << pet.dump();
  ASSERT_FALSE(FilesHolding(dir_.path(), "qorbix").empty());

  rpc_->Result("memory.session_forget", {{"session_id", "gone"}});

  pet = FacetOf("pet");
  ASSERT_FALSE(pet.is_null());
  EXPECT_EQ(pet["value"], "Rex (dog)") << pet.dump();
  json reads = Reads("Zqorbix");
  EXPECT_FALSE(Holds(reads, "qorbix")) << reads.dump();
  const std::string exported = Export();
  EXPECT_EQ(Lower(exported).find("qorbix"), std::string::npos) << exported;
  std::vector<std::string> holding = FilesHolding(dir_.path(), "qorbix");
  EXPECT_TRUE(holding.empty()) << holding.front();
  EXPECT_FALSE(FilesHolding(dir_.path(), "rex").empty());
}

// Erasing a principal leaves no byte of anything it stored: entries,
// turns, the profile, documents.
TEST_F(ErasureE2e, PrincipalForgetLeavesNoByteOfItsText) {
  rpc_->Result("memory.store", {{"key", "place"}, {"value", "The Zqvxburg office opens at nine"}});
  Turn("s1", "I live in Zqvxburg now.", 30);
  Turn("s1", "Remember: never email the Zqvxburg office.", 29);
  End("s1");
  ASSERT_FALSE(FilesHolding(dir_.path(), "vxburg").empty());

  json erased = rpc_->Result("memory.principal_forget", {{"principal", "local"}});
  EXPECT_GE(erased["erased"]["entries"].get<int64_t>(), 1) << erased.dump();

  json reads = Reads("Zqvxburg");
  EXPECT_FALSE(Holds(reads, "vxburg")) << reads.dump();
  EXPECT_EQ(Lower(Export()).find("vxburg"), std::string::npos);
  std::vector<std::string> holding = FilesHolding(dir_.path(), "vxburg");
  EXPECT_TRUE(holding.empty()) << holding.front();
}

// Item 3: a reader of another process holds a snapshot from before the
// erasure; the erasure waits for it to end, then empties the log, so it
// returns only once the write-ahead log holds none of the erased text.
TEST_F(ErasureE2e, SessionForgetReturnsOnceTheLogHoldsNoneOfItEvenWithAReaderOpen) {
  Turn("s1", "We met the Zqvxburg delegation today.", 30);
  End("s1");
  sqlite3* reader = nullptr;
  ASSERT_EQ(
      sqlite3_open_v2((dir_.path() + "/mnemo.db").c_str(), &reader, SQLITE_OPEN_READONLY, nullptr),
      SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(reader, "BEGIN; SELECT COUNT(*) FROM turns;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  std::future<json> erased = std::async(std::launch::async, [&] {
    return RpcClient(daemon_->port()).Result("memory.session_forget", {{"session_id", "s1"}});
  });
  EXPECT_EQ(erased.wait_for(std::chrono::milliseconds(500)), std::future_status::timeout)
      << "the erasure returned while a reader held the log";
  ASSERT_EQ(sqlite3_exec(reader, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(reader);
  json result = erased.get();
  EXPECT_EQ(result["erased"]["turns"], 2) << result.dump();
  std::vector<std::string> holding = FilesHolding(dir_.path(), "vxburg");
  EXPECT_TRUE(holding.empty()) << holding.front();
}

// Item 18: the rules captured from a session hold its user's words: they go
// with it, unless another session (still kept) said the same rule.
TEST_F(ErasureE2e, SessionForgetErasesTheRulesCapturedOnlyFromIt) {
  const json calls = json::array({{{"name", "send_email"}, {"success", true}}});
  auto turn = [&](const std::string& session, const std::string& said) {
    return rpc_->Result("memory.turn_complete", {{"session_id", session},
                                                 {"user_message", said},
                                                 {"assistant_response", "Noted."},
                                                 {"tool_calls", calls},
                                                 {"sync", true}});
  };
  json r = turn("gone", "Never email the Zqvxburg office. Never email anyone after midnight.");
  ASSERT_EQ(r["new_rules"].size(), 2u) << r.dump();
  r = turn("kept", "Never email anyone after midnight.");
  ASSERT_EQ(r["refreshed_rules"].size(), 1u) << r.dump();
  auto rules = [&] {
    std::vector<std::string> out;
    for (const json& rule : rpc_->Result("memory.tool_rule_list", {{"tool_name", "send_email"}})) {
      out.push_back(rule["rule"]);
    }
    return out;
  };
  ASSERT_EQ(rules().size(), 2u);

  json erased = rpc_->Result("memory.session_forget", {{"session_id", "gone"}});
  EXPECT_EQ(erased["erased"]["entries"], 1) << erased.dump();
  EXPECT_EQ(rules(), std::vector<std::string>{"Never email anyone after midnight."});
  json prompt = rpc_->Result("memory.tool_rules_for_prompt", {{"tools", {"send_email"}}});
  EXPECT_FALSE(Holds(prompt, "vxburg")) << prompt.dump();
  std::vector<std::string> holding = FilesHolding(dir_.path(), "vxburg");
  EXPECT_TRUE(holding.empty()) << holding.front();

  // The kept session's erasure takes the rule it was the last to speak for.
  erased = rpc_->Result("memory.session_forget", {{"session_id", "kept"}});
  EXPECT_EQ(erased["erased"]["entries"], 1) << erased.dump();
  EXPECT_TRUE(rules().empty());
}

// Item 12: a read right after memory.session_end sees the facet the
// session gave, every time (no "sync" asked for).
TEST_F(ErasureE2e, ProfileRightAfterSessionEndSeesTheSessionsFacet) {
  for (int round = 0; round < 30; ++round) {
    const std::string session = "round-" + std::to_string(round);
    rpc_->Result("memory.turn_complete", {{"session_id", session},
                                          {"user_message", "My favourite tea is sencha."},
                                          {"assistant_response", "Noted."}});
    json ended = rpc_->Result("memory.session_end", {{"session_id", session}});
    ASSERT_EQ(ended["closed"], true) << ended.dump();
    json tea = FacetOf("tea");
    ASSERT_FALSE(tea.is_null()) << "round " << round;
    const json& ids = tea["segment_ids"];
    EXPECT_NE(std::find(ids.begin(), ids.end(), ended["segment_id"]), ids.end())
        << "round " << round << ": " << tea.dump();
  }
}

}  // namespace
}  // namespace mnemo::e2e

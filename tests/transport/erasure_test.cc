// Erasure leaves no trace (spec 10, "Erasure"): after memory.session_forget,
// memory.principal_forget or memory.forget and a WAL checkpoint, the raw
// bytes of every file in the workspace (database, -wal, -shm, vector index
// files, markdown archive, audit log) hold no marker word of what was
// erased, while what was not erased is intact. Runs through the method
// table on a SQLite workspace with the audit log on.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "test_util.h"
#include "transport/rpc/jsonrpc.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

// Every marker word the erased data carries, one per kind of source.
const std::vector<std::string> kMarkers = {
    "xylomarkuser",    // user messages (turns, recap, events, facets, segment document)
    "xylomarkanswer",  // assistant responses
    "xylomarktool",    // tool call arguments and output
    "xylomarkville",   // a place: the graph triple (user lives_in Xylomarkville)
    "xylomarkctx",     // context events and their prune archive document
};

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

class Erasure : public ::testing::Test {
 protected:
  void SetUp() override {
    config_.memory.backend = "sqlite";
    config_.security.audit.enabled = true;
    config_.embedding.provider = "none";
    Open();
  }

  void Open() {
    dispatcher_.reset();
    engine_.reset();
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config_});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(e).value();
    dispatcher_ = std::make_unique<Dispatcher>(*engine_);
  }

  json Call(const std::string& method, const json& params, const Principal& who) {
    auto r = dispatcher_->Call(method, params, who, nullptr);
    EXPECT_TRUE(r.ok()) << method << ": " << r.status().ToString();
    return r.ok() ? *r : json();
  }
  json Call(const std::string& method, const json& params) { return Call(method, params, who_); }

  // A session that says `word` everywhere: turns with tool calls, a closed
  // segment (recap, events, facets, segment document, triple), context
  // events pruned into an archive document.
  void Converse(const std::string& session, const std::string& user, const std::string& answer,
                const std::string& tool, const std::string& place, const std::string& ctx,
                const Principal& who) {
    Call("memory.turn_complete",
         {{"session_id", session},
          {"user_message", "I prefer " + user + " for editing. I live in " + place + "."},
          {"assistant_response", "Noted " + answer},
          {"tool_calls", json::array({{{"name", "shell"},
                                       {"arguments", {{"cmd", "grep " + tool}}},
                                       {"success", true},
                                       {"output", "found " + tool}}})}},
         who);
    Call("memory.turn_complete",
         {{"session_id", session},
          {"user_message", "We decided to use " + user + " for billing."},
          {"assistant_response", "Good choice " + answer}},
         who);
    Call("memory.session_end", {{"session_id", session}, {"sync", true}}, who);
    for (int i = 0; i < 3; ++i) {
      Call("memory.context_append",
           {{"session_id", session},
            {"event",
             {{"input", "context " + ctx + " " + std::to_string(i)}, {"response", "ok " + ctx}}}},
           who);
    }
    Call("memory.context_prune", {{"session_id", session}, {"keep", 1}}, who);
  }

  // WAL checkpoint (TRUNCATE) from another connection, as any process may.
  void Checkpoint() {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((dir_.Sub("ws") + "/mnemo.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    // A new connection learns that the file is in WAL mode from its first read.
    ASSERT_EQ(sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr),
              SQLITE_OK);
    int log = 0;
    int done = 0;
    // The engine's own checkpointer may hold the log a moment: retry.
    int rc = SQLITE_BUSY;
    for (int attempt = 0; attempt < 50 && rc != SQLITE_OK; ++attempt) {
      rc = sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
    }
    EXPECT_EQ(rc, SQLITE_OK) << sqlite3_errmsg(db);
    EXPECT_EQ(log, 0);  // the log is truncated
    sqlite3_close(db);
    EXPECT_EQ(std::filesystem::file_size(dir_.Sub("ws") + "/mnemo.db-wal"), 0u);
  }

  // The files of the workspace whose raw bytes hold `marker` (any case).
  std::vector<std::string> FilesHolding(const std::string& marker) {
    std::vector<std::string> holding;
    files_searched_ = 0;
    for (const auto& f : std::filesystem::recursive_directory_iterator(dir_.Sub("ws"))) {
      if (!f.is_regular_file()) continue;
      ++files_searched_;
      std::ifstream in(f.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
      if (Lower(bytes).find(Lower(marker)) != std::string::npos) {
        holding.push_back(f.path().string());
      }
    }
    return holding;
  }

  void ExpectNoMarker(const std::vector<std::string>& markers) {
    for (const std::string& m : markers) {
      EXPECT_EQ(FilesHolding(m), std::vector<std::string>{}) << m;
    }
    EXPECT_GE(files_searched_, 3);  // at least the database, its -shm and the audit log
  }

  Config config_;
  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  std::unique_ptr<Dispatcher> dispatcher_;
  Principal who_;
  int files_searched_ = 0;
};

TEST_F(Erasure, SessionForgetLeavesNoMarkerInAnyFileAndKeepsTheOtherSession) {
  Converse("secret", "xylomarkuser", "xylomarkanswer", "xylomarktool", "Xylomarkville",
           "xylomarkctx", who_);
  Converse("kept", "helix", "roger", "cargo", "Lisbon", "mango", who_);
  Checkpoint();
  // The markers are really stored (so the search below can fail).
  for (const std::string& m : kMarkers) EXPECT_FALSE(FilesHolding(m).empty()) << m;
  const json events_before = Call("memory.events", {{"query", "helix"}});
  ASSERT_FALSE(events_before.at("events").empty());

  const json erased = Call("memory.session_forget", {{"session_id", "secret"}}).at("erased");
  EXPECT_EQ(erased.at("turns"), 4);
  EXPECT_EQ(erased.at("segments"), 1);
  EXPECT_EQ(erased.at("recaps"), 1);
  EXPECT_GE(erased.at("events"), 1);
  EXPECT_GE(erased.at("facets_removed"), 1);
  EXPECT_EQ(erased.at("documents"), 2);  // the segment document and the prune archive
  EXPECT_GE(erased.at("triples"), 1);
  EXPECT_EQ(erased.at("context_events"), 1);
  EXPECT_EQ(erased.at("archive_files"), 4);
  Checkpoint();
  ExpectNoMarker(kMarkers);

  // Nothing of it is readable; the other session is intact.
  EXPECT_TRUE(Call("memory.session_turns", {{"session_id", "secret"}}).at("turns").empty());
  EXPECT_TRUE(Call("memory.segments", {{"session_id", "secret"}}).at("segments").empty());
  EXPECT_EQ(Call("memory.session_turns", {{"session_id", "kept"}}).at("turns").size(), 4u);
  const json kept = Call("memory.segments", {{"session_id", "kept"}}).at("segments");
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_NE(kept[0].at("recap").get<std::string>(), "");
  // The same events (their scores move with the corpus statistics).
  const json events_after = Call("memory.events", {{"query", "helix"}});
  ASSERT_EQ(events_after.at("events").size(), events_before.at("events").size());
  for (size_t i = 0; i < events_before.at("events").size(); ++i) {
    EXPECT_EQ(events_after.at("events")[i].at("id"), events_before.at("events")[i].at("id"));
    EXPECT_EQ(events_after.at("events")[i].at("text"), events_before.at("events")[i].at("text"));
  }
  const std::string profile = Call("memory.profile_render", json::object()).dump();
  EXPECT_NE(profile.find("helix"), std::string::npos) << profile;
  EXPECT_EQ(Lower(profile).find("xylomark"), std::string::npos) << profile;
  EXPECT_FALSE(Call("memory.graph_query", {{"object", "Lisbon"}}).at("triples").empty());
  EXPECT_EQ(Call("memory.context_window",
                 {{"session_id", "kept"}, {"query", "mango"}, {"budget_chars", 10000}})
                .at("events")
                .size(),
            1u);

  // The audit log has the erasure with its counts.
  std::ifstream audit(dir_.Sub("ws") + "/audit.log");
  std::string line;
  bool audited = false;
  while (std::getline(audit, line)) {
    const json j = json::parse(line);
    if (j.value("method", "") == "memory.session_forget") {
      audited = true;
      EXPECT_EQ(j.at("erased").at("turns"), 4);
    }
  }
  EXPECT_TRUE(audited);

  // After the engine closes (its own final checkpoint) still nothing.
  dispatcher_.reset();
  engine_.reset();
  ExpectNoMarker(kMarkers);
}

TEST_F(Erasure, ForgetOfAnEntryLeavesNoMarkerAndNoVectorHit) {
  Call("memory.store", {{"key", "plan"},
                        {"value", "the xylomarkentry plan is secret"},
                        {"embedding", json::array({1.0, 0.0, 0.0})}});
  Call("memory.store",
       {{"key", "other"}, {"value", "a plain entry"}, {"embedding", json::array({0.0, 1.0, 0.0})}});
  Checkpoint();
  EXPECT_FALSE(FilesHolding("xylomarkentry").empty());
  EXPECT_EQ(Call("memory.forget", {{"key", "plan"}}).at("forgotten"), true);
  const json hits =
      Call("memory.search", {{"query", "plan"}, {"embedding", json::array({1.0, 0.0, 0.0})}});
  for (const json& h : hits.at("results")) EXPECT_NE(h.at("key"), "plan") << hits.dump();
  // The row, its vectors and its index row are gone at once; the keyword
  // index's older segments keep the words until hygiene compacts it.
  Call("memory.hygiene_run", json::object());
  Checkpoint();
  ExpectNoMarker({"xylomarkentry"});
}

TEST_F(Erasure, PrincipalForgetLeavesNoMarkerOfThePrincipal) {
  const Principal alice{.name = "alice", .role = Role::kUser};
  const Principal bob{.name = "bob", .role = Role::kUser};
  config_.memory.acl_enabled = true;
  Open();
  Converse("a1", "xylomarkuser", "xylomarkanswer", "xylomarktool", "Xylomarkville", "xylomarkctx",
           alice);
  Call("memory.store", {{"key", "k"}, {"value", "xylomarkentry of alice"}}, alice);
  Converse("b1", "helix", "roger", "cargo", "Lisbon", "mango", bob);
  Call("memory.store", {{"key", "k"}, {"value", "bob's entry"}}, bob);

  // Only an admin may.
  auto denied =
      dispatcher_->Call("memory.principal_forget", {{"principal", "alice"}}, bob, nullptr);
  EXPECT_EQ(denied.status().code(), StatusCode::kPermissionDenied);
  const json erased = Call("memory.principal_forget", {{"principal", "alice"}}).at("erased");
  EXPECT_GE(erased.at("entries"), 1);  // the entry, and the tool statistics when kept per owner
  EXPECT_EQ(erased.at("turns"), 4);
  EXPECT_EQ(erased.at("documents"), 2);
  Checkpoint();
  std::vector<std::string> markers = kMarkers;
  markers.push_back("xylomarkentry");
  ExpectNoMarker(markers);
  EXPECT_EQ(Call("memory.session_turns", {{"session_id", "b1"}}, bob).at("turns").size(), 4u);
  EXPECT_EQ(Call("memory.get", {{"key", "k"}}, bob).at("content"), "bob's entry");
}

TEST_F(Erasure, UnderAclAUsersSessionForgetOfAnotherUsersSessionErasesNothing) {
  const Principal alice{.name = "alice", .role = Role::kUser};
  const Principal bob{.name = "bob", .role = Role::kUser};
  config_.memory.acl_enabled = true;
  Open();
  Converse("a1", "xylomarkuser", "xylomarkanswer", "xylomarktool", "Xylomarkville", "xylomarkctx",
           alice);
  const json missing = Call("memory.session_forget", {{"session_id", "no-such"}}, bob);
  // Bob names alice's session, even with alice as the owner: exactly the
  // answer of a missing session, and nothing of alice's goes.
  EXPECT_EQ(Call("memory.session_forget", {{"session_id", "a1"}}, bob), missing);
  EXPECT_EQ(Call("memory.session_forget", {{"session_id", "a1"}, {"owner", "alice"}}, bob),
            missing);
  for (const auto& [kind, n] : missing.at("erased").items()) EXPECT_EQ(n, 0) << kind;
  EXPECT_EQ(Call("memory.session_turns", {{"session_id", "a1"}}, alice).at("turns").size(), 4u);
  EXPECT_FALSE(Call("memory.events", json::object(), alice).at("events").empty());
  // An admin may name the owner.
  const json erased =
      Call("memory.session_forget", {{"session_id", "a1"}, {"owner", "alice"}}).at("erased");
  EXPECT_EQ(erased.at("turns"), 4);
  EXPECT_TRUE(Call("memory.session_turns", {{"session_id", "a1"}}, alice).at("turns").empty());
}

}  // namespace
}  // namespace mnemo::transport

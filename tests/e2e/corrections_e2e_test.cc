// Corrections through the real daemon (issue 44 section 3): a profile
// facet, an event and a triple are corrected and deleted with
// memory.profile_correct / profile_delete, memory.event_correct /
// event_delete and memory.graph_correct / graph_delete. A deleted item is
// gone from every read, the export, the context block and every byte of the
// workspace while the daemon runs; a correction survives the erasure of the
// session that said the old value; each call is in the audit log; under
// ACL a principal cannot change another's items.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
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

// The files of `root` (recursively) whose bytes hold `needle`, ASCII
// case-blind (the text indexes keep lower-cased terms).
std::vector<std::string> FilesHolding(const std::string& root, const std::string& needle) {
  std::vector<std::string> out;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (Lower(bytes).find(Lower(needle)) != std::string::npos) out.push_back(e.path().string());
  }
  return out;
}

bool Holds(const json& j, const std::string& needle) {
  return Lower(j.dump()).find(Lower(needle)) != std::string::npos;
}

class CorrectionsE2e : public ::testing::Test {
 protected:
  void Start(const std::string& toml) {
    {
      std::ofstream out(dir_.Sub("mnemo.toml"));
      out << toml;
    }
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
  }

  void TearDown() override {
    if (daemon_ && daemon_->started()) {
      EXPECT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
    }
  }

  static void Turn(RpcClient& rpc, const std::string& session, const std::string& said,
                   int64_t minutes_ago) {
    rpc.Result("memory.turn_complete", {{"session_id", session},
                                        {"user_message", said},
                                        {"assistant_response", "Noted."},
                                        {"timestamp", MinutesAgo(minutes_ago)},
                                        {"sync", true}});
    rpc.Result("memory.session_end", {{"session_id", session}, {"sync", true}});
  }

  static json FacetOf(RpcClient& rpc, const std::string& key) {
    const json facets = rpc.Result("memory.profile", {{"include_history", true}})["facets"];
    for (const json& f : facets) {
      if (f["key"] == key) return f;
    }
    return nullptr;
  }

  // The id of the event whose text holds `word`, or "".
  static std::string EventWith(RpcClient& rpc, const std::string& word) {
    const json events = rpc.Result("memory.events", json::object())["events"];
    for (const json& e : events) {
      if (Holds(e["text"], word)) return e["id"];
    }
    return "";
  }

  // Every read that could show a marker: the profile, its rendering, the
  // events, recall, the graph and the context block.
  static json Reads(RpcClient& rpc, const std::string& marker) {
    return json::array({rpc.Result("memory.profile", {{"include_history", true}}),
                        rpc.Result("memory.profile_render", json::object()),
                        rpc.Result("memory.events", json::object()),
                        rpc.Result("memory.events", {{"query", marker}}),
                        rpc.Result("memory.recall", {{"query", marker}}),
                        rpc.Result("memory.graph_query", {{"include_history", true}}),
                        rpc.Result("memory.context_build",
                                   {{"query", marker + " profile"}, {"preset", "maximum"}})});
  }

  std::string Export() {
    RunResult r = RunMnemo({"--workspace", dir_.path(), "export"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  // Gone from every read, the export and every file of the running daemon's
  // workspace; `marker` is a part of the word no kept text holds.
  void ExpectGone(RpcClient& rpc, const std::string& marker) {
    json reads = Reads(rpc, marker);
    EXPECT_FALSE(Holds(reads, marker)) << reads.dump();
    EXPECT_EQ(Lower(Export()).find(Lower(marker)), std::string::npos) << marker;
    std::vector<std::string> holding = FilesHolding(dir_.path(), marker);
    EXPECT_TRUE(holding.empty()) << marker << " in " << holding.front();
  }

  // The audit log's (method, outcome) pairs.
  std::vector<std::pair<std::string, std::string>> Audited() {
    std::ifstream in(dir_.Sub("audit.log"));
    std::vector<std::pair<std::string, std::string>> out;
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line, nullptr, false);
      if (j.is_object()) out.emplace_back(j.value("method", ""), j.value("outcome", ""));
    }
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
};

TEST_F(CorrectionsE2e, ACorrectedFacetStaysCorrectedWhenTheSessionThatSaidItIsErased) {
  Start("[security.audit]\nenabled = true\n");
  RpcClient rpc(daemon_->port());
  Turn(rpc, "said", "I live in Lisbon.", 30);
  ASSERT_EQ(FacetOf(rpc, "location").value("value", ""), "Lisbon");
  const json facet = FacetOf(rpc, "location");

  json corrected =
      rpc.Result("memory.profile_correct",
                 {{"facet_type", facet["facet_type"]}, {"key", "location"}, {"value", "Porto"}});
  EXPECT_EQ(corrected["value"], "Porto") << corrected.dump();
  ASSERT_EQ(corrected["history"].size(), 1u) << corrected.dump();
  EXPECT_EQ(corrected["history"][0]["value"], "Lisbon");
  EXPECT_NE(rpc.Result("memory.profile_render", json::object())["rendered"].dump().find("Porto"),
            std::string::npos);

  // The erasure folds the facet again from what is left: the correction.
  rpc.Result("memory.session_forget", {{"session_id", "said"}});
  json after = FacetOf(rpc, "location");
  ASSERT_FALSE(after.is_null());
  EXPECT_EQ(after["value"], "Porto") << after.dump();
  EXPECT_EQ(after["history"].size(), 0u) << after.dump();

  // A facet that does not exist is not found; a bad type names the field.
  json missing = rpc.Call("memory.profile_correct",
                          {{"facet_type", "context"}, {"key", "no-such-slot"}, {"value", "x"}});
  EXPECT_EQ(missing["error"]["code"], -32001) << missing.dump();
  EXPECT_NE(missing["error"]["message"].get<std::string>().find("no-such-slot"), std::string::npos);
  json bad = rpc.Call("memory.profile_correct",
                      {{"facet_type", "Not A Type!"}, {"key", "location"}, {"value", "x"}});
  EXPECT_EQ(bad["error"]["code"], -32602) << bad.dump();
  EXPECT_EQ(bad["error"]["data"]["field"], "facet_type") << bad.dump();
}

// The user's triples of a slot follow the profile (issue 44): one reading
// of what was said, and a corrected or deleted facet moves or removes its
// triple.
TEST_F(CorrectionsE2e, TheGraphFollowsTheProfileAndItsCorrections) {
  Start("");
  RpcClient rpc(daemon_->port());
  // "current object" -> whether current, of the user's triples of `predicate`.
  auto triples = [&](const std::string& predicate) {
    std::vector<std::pair<std::string, bool>> out;
    const json rows = rpc.Result(
        "memory.graph_query",
        {{"subject", "user"}, {"predicate", predicate}, {"include_history", true}})["triples"];
    for (const json& t : rows) out.emplace_back(t["object"], t["current"]);
    return out;
  };
  using Rows = std::vector<std::pair<std::string, bool>>;

  Turn(rpc, "moves", "We moved to Cardiff and then to Bristol.", 50);
  ASSERT_EQ(FacetOf(rpc, "location").value("value", ""), "Bristol");
  // Cardiff was current for a moment of the same message: history in both.
  EXPECT_EQ(triples("lives_in"), (Rows{{"Bristol", true}, {"Cardiff", false}}));

  Turn(rpc, "city", "我在杭州工作。", 40);
  EXPECT_TRUE(FacetOf(rpc, "employer").is_null());
  EXPECT_TRUE(triples("works_at").empty());

  Turn(rpc, "job", "I work at Contoso.", 30);
  EXPECT_EQ(triples("works_at"), (Rows{{"Contoso", true}}));
  Turn(rpc, "left", "I don't work at Contoso anymore.", 20);
  const json employer = FacetOf(rpc, "employer");
  EXPECT_TRUE(employer.is_null() || employer.value("value", "").empty()) << employer.dump();
  EXPECT_EQ(triples("works_at"), (Rows{{"Contoso", false}})) << "closed, kept as history";

  // Corrected: the wrong value was never true, so its triple goes.
  rpc.Result("memory.profile_correct",
             {{"facet_type", "context"}, {"key", "location"}, {"value", "Bath"}});
  EXPECT_EQ(triples("lives_in"), (Rows{{"Bath", true}, {"Cardiff", false}}));
  // Deleted: no triple of any value it held is left.
  EXPECT_EQ(rpc.Result("memory.profile_delete",
                       {{"facet_type", "context"}, {"key", "location"}})["deleted"],
            true);
  EXPECT_TRUE(triples("lives_in").empty());
  EXPECT_EQ(rpc.Result("memory.profile_delete",
                       {{"facet_type", "context"}, {"key", "employer"}})["deleted"],
            true);
  EXPECT_TRUE(triples("works_at").empty());

  // An erased session's value leaves the graph as it leaves the profile,
  // and the one it had superseded is current again in both.
  Turn(rpc, "home", "I live in Leeds.", 15);
  Turn(rpc, "away", "I live in Zqyork now.", 10);
  EXPECT_EQ(triples("lives_in"), (Rows{{"Zqyork", true}, {"Leeds", false}}));
  rpc.Result("memory.session_forget", {{"session_id", "away"}});
  EXPECT_EQ(FacetOf(rpc, "location").value("value", ""), "Leeds");
  EXPECT_EQ(triples("lives_in"), (Rows{{"Leeds", true}}));
}

TEST_F(CorrectionsE2e, DeletedFacetEventAndTripleLeaveNoByteAnywhere) {
  Start("[security.audit]\nenabled = true\n");
  RpcClient rpc(daemon_->port());
  // A facet stated directly, an event of a conversation corrected to a
  // marker, a triple corrected from one marker to another.
  rpc.Result("memory.profile_put",
             {{"facet_type", "preference"}, {"key", "colour"}, {"value", "Zqmauvex"}});
  rpc.Result("memory.profile_put",
             {{"facet_type", "preference"}, {"key", "tea"}, {"value", "sencha"}});
  Turn(rpc, "talk", "We decided to use Kafka for the queue.", 20);
  const std::string event = EventWith(rpc, "kafka");
  ASSERT_FALSE(event.empty());
  json fixed = rpc.Result("memory.event_correct",
                          {{"id", event}, {"text", "We decided to use Zqrabbitx for the queue."}});
  EXPECT_EQ(fixed["text"], "We decided to use Zqrabbitx for the queue.") << fixed.dump();
  EXPECT_EQ(fixed["type"], "decision") << fixed.dump();
  EXPECT_EQ(EventWith(rpc, "zqrabbitx"), event);
  EXPECT_EQ(rpc.Result("memory.events", {{"query", "zqrabbitx"}})["events"].size(), 1u);

  json triple =
      rpc.Result("memory.graph_upsert",
                 {{"subject", "user"}, {"predicate", "works at"}, {"object", "Zqheliox"}});
  json restated =
      rpc.Result("memory.graph_correct", {{"id", triple["id"]}, {"object", "Zqacmex Labs"}});
  EXPECT_EQ(restated["object"], "Zqacmex Labs") << restated.dump();
  EXPECT_EQ(restated["replaces"], triple["id"]);
  EXPECT_EQ(restated["current"], true);
  // A wrong fact corrected leaves no history and no byte.
  ExpectGone(rpc, "qheliox");

  for (const char* marker : {"qmauvex", "qrabbitx", "qacmex"}) {
    EXPECT_FALSE(FilesHolding(dir_.path(), marker).empty()) << marker << " was never stored";
  }
  EXPECT_EQ(rpc.Result("memory.profile_delete",
                       {{"facet_type", "preference"}, {"key", "colour"}})["deleted"],
            true);
  EXPECT_EQ(rpc.Result("memory.event_delete", {{"id", event}})["deleted"], true);
  EXPECT_EQ(rpc.Result("memory.graph_delete", {{"id", restated["id"]}})["deleted"], true);
  ExpectGone(rpc, "qmauvex");
  ExpectGone(rpc, "qrabbitx");
  ExpectGone(rpc, "qacmex");
  // The rest stays.
  EXPECT_EQ(FacetOf(rpc, "tea").value("value", ""), "sencha");

  // Deleted twice: not found, naming the id; bad input names the field.
  json again = rpc.Call("memory.event_delete", {{"id", event}});
  EXPECT_EQ(again["error"]["code"], -32001) << again.dump();
  EXPECT_NE(again["error"]["message"].get<std::string>().find(event), std::string::npos);
  EXPECT_EQ(rpc.ErrorCode("memory.graph_delete", {{"id", restated["id"]}}), -32001);
  EXPECT_EQ(
      rpc.ErrorCode("memory.profile_delete", {{"facet_type", "preference"}, {"key", "colour"}}),
      -32001);
  Turn(rpc, "talk2", "I decided to ship on Friday.", 10);
  const std::string other = EventWith(rpc, "friday");
  ASSERT_FALSE(other.empty());
  json nothing = rpc.Call("memory.event_correct", {{"id", other}});
  EXPECT_EQ(nothing["error"]["code"], -32602) << nothing.dump();
  json rumour = rpc.Call("memory.event_correct", {{"id", other}, {"type", "rumour"}});
  EXPECT_EQ(rumour["error"]["code"], -32602) << rumour.dump();
  EXPECT_EQ(rumour["error"]["data"]["field"], "type") << rumour.dump();
  EXPECT_NE(rumour["error"]["message"].get<std::string>().find("decision"), std::string::npos)
      << rumour.dump();

  std::vector<std::pair<std::string, std::string>> audited = Audited();
  for (const auto& expected :
       std::vector<std::pair<std::string, std::string>>{{"memory.profile_delete", "ok"},
                                                        {"memory.event_correct", "ok"},
                                                        {"memory.event_delete", "ok"},
                                                        {"memory.graph_correct", "ok"},
                                                        {"memory.graph_delete", "ok"},
                                                        {"memory.event_delete", "not_found"},
                                                        {"memory.event_correct", "invalid"}}) {
    EXPECT_NE(std::find(audited.begin(), audited.end(), expected), audited.end())
        << expected.first << " " << expected.second;
  }
}

TEST_F(CorrectionsE2e, UnderAclAUserCannotChangeAnotherPrincipalsItems) {
  std::string toml = "[memory]\nacl_enabled = true\n\n[security.audit]\nenabled = true\n\n";
  for (const auto& [who, role] : std::vector<std::pair<std::string, std::string>>{
           {"alice", "user"}, {"bob", "user"}, {"root", "admin"}}) {
    toml += "[[security.tokens]]\nprincipal = \"" + who + "\"\nrole = \"" + role +
            "\"\nsha256 = \"" + internal::Sha256Hex(who + "-token") + "\"\n";
  }
  Start(toml);
  RpcClient alice(daemon_->port(), "alice-token");
  RpcClient bob(daemon_->port(), "bob-token");
  RpcClient root(daemon_->port(), "root-token");
  alice.Result("memory.profile_put",
               {{"facet_type", "preference"}, {"key", "tea"}, {"value", "oolong"}});
  Turn(alice, "alice-s", "We decided to use Kafka for the queue.", 20);
  const std::string event = EventWith(alice, "kafka");
  ASSERT_FALSE(event.empty());
  const std::string triple = alice.Result(
      "memory.graph_upsert",
      {{"subject", "alice"}, {"predicate", "travels_to"}, {"object", "Zanzibar"}})["id"];

  // bob: refused exactly like a missing item, whatever owner he names.
  for (const json& facet :
       {json{{"facet_type", "preference"}, {"key", "tea"}},
        json{{"facet_type", "preference"}, {"key", "tea"}, {"owner", "alice"}}}) {
    EXPECT_EQ(bob.ErrorCode("memory.profile_delete", facet), -32001);
    json with_value = facet;
    with_value["value"] = "builder's";
    EXPECT_EQ(bob.ErrorCode("memory.profile_correct", with_value), -32001);
  }
  EXPECT_EQ(bob.ErrorCode("memory.event_correct", {{"id", event}, {"text", "nothing"}}), -32001);
  EXPECT_EQ(bob.ErrorCode("memory.event_delete", {{"id", event}}), -32001);
  EXPECT_EQ(bob.ErrorCode("memory.graph_correct", {{"id", triple}, {"object", "Oslo"}}), -32001);
  EXPECT_EQ(bob.ErrorCode("memory.graph_delete", {{"id", triple}}), -32001);
  EXPECT_EQ(FacetOf(alice, "tea").value("value", ""), "oolong");
  EXPECT_EQ(EventWith(alice, "kafka"), event);
  EXPECT_EQ(alice.Result("memory.graph_query", {{"object", "Zanzibar"}})["triples"].size(), 1u);

  // alice changes her own; an admin may change anyone's.
  EXPECT_EQ(alice
                .Result("memory.profile_correct",
                        {{"facet_type", "preference"}, {"key", "tea"}, {"value", "sencha"}})
                .value("value", ""),
            "sencha");
  EXPECT_EQ(alice.Result("memory.event_delete", {{"id", event}})["deleted"], true);
  EXPECT_EQ(root.Result("memory.graph_delete", {{"id", triple}})["deleted"], true);
  EXPECT_EQ(
      root.Result("memory.profile_delete",
                  {{"facet_type", "preference"}, {"key", "tea"}, {"owner", "alice"}})["deleted"],
      true);
  EXPECT_TRUE(FacetOf(alice, "tea").is_null());
  EXPECT_TRUE(alice.Result("memory.graph_query", {{"object", "Zanzibar"}})["triples"].empty());

  int bob_refused = 0;
  std::ifstream in(dir_.Sub("audit.log"));
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line, nullptr, false);
    if (j.is_object() && j.value("principal", "") == "bob" && j.value("outcome", "") == "not_found")
      ++bob_refused;
  }
  EXPECT_EQ(bob_refused, 8);
}

}  // namespace
}  // namespace mnemo::e2e

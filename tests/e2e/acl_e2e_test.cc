// Spec 10's ACL through the real daemon with real bearer tokens: every read
// and write method seen by the principal that owns the data, by another user
// (the owner's private and public data) and by an admin; the audit log of
// those requests. Each of alice's artefacts carries its own marker word, so
// "bob cannot see it" is checked on the whole response, whatever its shape.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <memory>
#include <set>
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

// Marker words, one per artefact of alice.
constexpr const char* kPrivateEntry = "walrus";
constexpr const char* kPublicEntry = "narwhal";
constexpr const char* kRule = "Sarah";
constexpr const char* kTurn = "pistachio";
constexpr const char* kProfile = "oolong";
constexpr const char* kTriple = "zanzibar";
constexpr const char* kDocument = "quokka";
constexpr const char* kContextEvent = "kumquat";

bool Has(const json& response, const std::string& word) {
  return response.dump().find(word) != std::string::npos;
}

class AclMatrix : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    {
      std::ofstream toml(dir_->Sub("mnemo.toml"));
      toml << "[memory]\nacl_enabled = true\n\n[security.audit]\nenabled = true\n\n";
      for (const auto& [who, role] : std::vector<std::pair<std::string, std::string>>{
               {"alice", "user"}, {"bob", "user"}, {"root", "admin"}}) {
        toml << "[[security.tokens]]\nprincipal = \"" << who << "\"\nrole = \"" << role
             << "\"\nsha256 = \"" << internal::Sha256Hex(who + "-secret-token") << "\"\n";
      }
    }
    daemon_ = new Daemon(dir_->path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    alice_ = new RpcClient(daemon_->port(), "alice-secret-token");
    bob_ = new RpcClient(daemon_->port(), "bob-secret-token");
    root_ = new RpcClient(daemon_->port(), "root-secret-token");

    RpcClient& a = *alice_;
    a.Result("memory.store", {{"key", "a-private"}, {"value", "Alice keeps a walrus figurine"}});
    a.Result("memory.store", {{"key", "a-public"},
                              {"value", "Alice's narwhal poster is in the lobby"},
                              {"visibility", "public"}});
    rule_id_ = a.Result("memory.tool_rule_put", {{"tool_name", "email"},
                                                 {"rule", "Never email Sarah on weekends"},
                                                 {"priority", "critical"}})
                   .value("id", "");
    a.Result("memory.turn_complete", {{"session_id", "alice-s"},
                                      {"user_message", "My favourite ice cream is pistachio."},
                                      {"assistant_response", "Noted, pistachio it is."},
                                      {"sync", true}});
    a.Result("memory.session_end", {{"session_id", "alice-s"}, {"sync", true}});
    a.Result("memory.profile_put",
             {{"facet_type", "preference"}, {"key", "tea"}, {"value", "oolong"}});
    a.Result("memory.graph_upsert",
             {{"subject", "alice"}, {"predicate", "travels_to"}, {"object", "zanzibar"}});
    doc_id_ =
        a.Result("memory.doc_put", {{"content", "The quokka service runbook."}}).value("id", "");
    a.Result("memory.context_append",
             {{"session_id", "alice-ctx"},
              {"event", {{"input", "buy kumquat jam"}, {"response", "added"}}}});
    bob_->Result("memory.store",
                 {{"key", "b-private"}, {"value", "Bob keeps a porcelain figurine"}});
  }

  static void TearDownTestSuite() {
    delete alice_;
    delete bob_;
    delete root_;
    if (daemon_ != nullptr) {
      EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
    }
    delete daemon_;
    delete dir_;
  }

  // bob's answer for `params` (about alice's thing) equals his answer for
  // `missing` (about nothing): the same result, or the same error code and
  // message with the names swapped.
  static void ExpectSameAsMissing(const std::string& method, const json& params,
                                  const json& missing, const std::string& name,
                                  const std::string& missing_name) {
    json got = bob_->Call(method, params);
    json none = bob_->Call(method, missing);
    if (none.contains("result")) {  // "null when there is none"
      EXPECT_EQ(got, none) << method;
      return;
    }
    ASSERT_TRUE(got.contains("error")) << method << " " << got.dump();
    EXPECT_EQ(got["error"]["code"], none["error"]["code"]) << method;
    std::string message = got["error"]["message"];
    if (const size_t at = message.find(name); at != std::string::npos) {
      message.replace(at, name.size(), missing_name);
    }
    EXPECT_EQ(message, none["error"]["message"].get<std::string>()) << method;
  }

  static testing::TempDir* dir_;
  static Daemon* daemon_;
  static RpcClient* alice_;
  static RpcClient* bob_;
  static RpcClient* root_;
  static std::string rule_id_;
  static std::string doc_id_;
};

testing::TempDir* AclMatrix::dir_ = nullptr;
Daemon* AclMatrix::daemon_ = nullptr;
RpcClient* AclMatrix::alice_ = nullptr;
RpcClient* AclMatrix::bob_ = nullptr;
RpcClient* AclMatrix::root_ = nullptr;
std::string AclMatrix::rule_id_;
std::string AclMatrix::doc_id_;

// Read methods over alice's artefacts: alice sees each marker, bob none, the
// admin the entries (admin sees every entry) but not the per-principal
// artefacts (rules, turns, profile, graph, documents, context: scoped to the
// principal that produced them, an admin included).
TEST_F(AclMatrix, EveryReadMethodShowsAliceHerDataAndBobNoneOfIt) {
  ASSERT_FALSE(rule_id_.empty());
  ASSERT_FALSE(doc_id_.empty());
  struct Read {
    std::string method;
    json params;
    std::string marker;
    bool admin_sees;
  };
  const std::vector<Read> reads = {
      {"memory.get", {{"key", "a-private"}}, kPrivateEntry, true},
      {"memory.search", {{"query", "walrus figurine"}, {"min_score", 0}}, kPrivateEntry, true},
      {"memory.list", json::object(), kPrivateEntry, true},
      {"memory.tool_rule_list", {{"tool_name", "email"}}, kRule, false},
      {"memory.tool_rule_get", {{"tool_name", "email"}, {"id", rule_id_}}, kRule, false},
      {"memory.tool_rules_for_prompt", {{"tools", {"email"}}}, kRule, false},
      {"memory.tool_rules_json", {{"tool_name", "email"}}, kRule, false},
      {"memory.episodic_search", {{"query", "pistachio"}}, kTurn, false},
      {"memory.session_turns", {{"session_id", "alice-s"}}, kTurn, false},
      {"memory.profile", json::object(), kProfile, false},
      {"memory.profile_render", json::object(), kProfile, false},
      {"memory.graph_query", {{"subject", "alice"}}, kTriple, false},
      {"memory.doc_get", {{"id", doc_id_}}, kDocument, false},
      {"memory.doc_search", {{"query", "quokka runbook"}}, kDocument, false},
      {"memory.doc_list", json::object(), kDocument, false},
      {"memory.context_window",
       {{"session_id", "alice-ctx"}, {"query", "kumquat"}, {"budget_chars", 2000}},
       kContextEvent,
       false},
  };
  for (const Read& r : reads) {
    SCOPED_TRACE(r.method);
    EXPECT_TRUE(Has(alice_->Result(r.method, r.params), r.marker));
    EXPECT_FALSE(Has(bob_->Call(r.method, r.params), r.marker));
    EXPECT_EQ(Has(root_->Call(r.method, r.params), r.marker), r.admin_sees);
  }
  // Reads whose answer may or may not hold alice's words for alice herself
  // (summaries, recaps, blocks) never hold them for bob.
  const std::vector<std::pair<std::string, json>> blind = {
      {"memory.segments", json::object()},
      {"memory.segments", {{"session_id", "alice-s"}}},
      {"memory.events", json::object()},
      {"memory.events", {{"query", "pistachio"}}},
      {"memory.context_build", {{"query", "pistachio walrus quokka kumquat zanzibar oolong"}}},
      {"memory.context_build",
       {{"query", "kumquat"}, {"session_id", "alice-ctx"}, {"preset", "maximum"}}},
      {"memory.stats", json::object()},
  };
  for (const auto& [method, params] : blind) {
    SCOPED_TRACE(method + " " + params.dump());
    json r = bob_->Call(method, params);
    EXPECT_TRUE(r.contains("result")) << r.dump();
    for (const char* marker :
         {kPrivateEntry, kRule, kTurn, kProfile, kTriple, kDocument, kContextEvent}) {
      EXPECT_FALSE(Has(r, marker)) << marker << " in " << r.dump();
    }
  }
}

TEST_F(AclMatrix, PublicEntriesAreReadableByOthersButNotWritable) {
  EXPECT_TRUE(Has(bob_->Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
  EXPECT_TRUE(Has(bob_->Result("memory.search", {{"query", "narwhal poster"}}), kPublicEntry));
  EXPECT_TRUE(Has(bob_->Result("memory.list", json::object()), kPublicEntry));
  // Forget deletes only one's own entries: alice's public one is not bob's.
  EXPECT_EQ(bob_->Result("memory.forget", {{"key", "a-public"}})["forgotten"], false);
  // A store under the same key makes bob's own entry; alice's is unchanged.
  EXPECT_EQ(bob_->Result("memory.store", {{"key", "a-public"}, {"value", "bob's own"}})["created"],
            true);
  EXPECT_TRUE(Has(alice_->Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
  EXPECT_EQ(bob_->Result("memory.get", {{"key", "a-public"}})["content"], "bob's own");
  EXPECT_EQ(bob_->Result("memory.forget", {{"key", "a-public"}})["forgotten"], true);
  EXPECT_TRUE(Has(alice_->Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
}

// Another principal's private things answer exactly like things that do not
// exist: same code, same message.
TEST_F(AclMatrix, OthersPrivateThingsAreIndistinguishableFromMissingOnes) {
  ExpectSameAsMissing("memory.get", {{"key", "a-private"}}, {{"key", "zz-none"}}, "a-private",
                      "zz-none");
  ExpectSameAsMissing("memory.get", {{"key", "a-private"}, {"owner", "alice"}},
                      {{"key", "zz-none"}, {"owner", "alice"}}, "a-private", "zz-none");
  ExpectSameAsMissing("memory.mark_useful", {{"key", "a-private"}}, {{"key", "zz-none"}},
                      "a-private", "zz-none");
  ExpectSameAsMissing("memory.tool_rule_get", {{"tool_name", "email"}, {"id", rule_id_}},
                      {{"tool_name", "email"}, {"id", "00000000-0000-4000-8000-000000000000"}},
                      rule_id_, "00000000-0000-4000-8000-000000000000");
  ExpectSameAsMissing("memory.doc_get", {{"id", doc_id_}}, {{"id", "zz-none"}}, doc_id_, "zz-none");
  // Writes that would touch them report "nothing there" and change nothing.
  EXPECT_EQ(bob_->Result("memory.forget", {{"key", "a-private"}})["forgotten"], false);
  EXPECT_EQ(bob_->Result("memory.forget", {{"key", "a-private"}, {"owner", "alice"}})["forgotten"],
            false);
  EXPECT_EQ(bob_->Result("memory.doc_delete", {{"id", doc_id_}})["deleted"], false);
  json del = bob_->Call("memory.tool_rule_delete", {{"tool_name", "email"}, {"id", rule_id_}});
  EXPECT_FALSE(Has(del, "\"deleted\":true")) << del.dump();
  EXPECT_TRUE(Has(alice_->Result("memory.get", {{"key", "a-private"}}), kPrivateEntry));
  EXPECT_TRUE(Has(alice_->Result("memory.doc_get", {{"id", doc_id_}}), kDocument));
  EXPECT_TRUE(Has(alice_->Result("memory.tool_rule_list", {{"tool_name", "email"}}), kRule));
  // bob's search for a word both wrote finds only his own entry.
  json found = bob_->Result("memory.search", {{"query", "figurine"}});
  ASSERT_EQ(found["results"].size(), 1u) << found.dump();
  EXPECT_EQ(found["results"][0]["key"], "b-private");
}

// bob's writes that name alice's things (her rule id, her session ids, her
// graph subject, her profile key) land in bob's own data or nowhere.
TEST_F(AclMatrix, WritesNeverReachAnotherPrincipalsData) {
  // A put with alice's rule id makes bob's own rule, as with any new id.
  json put =
      bob_->Result("memory.tool_rule_put",
                   {{"tool_name", "email"}, {"id", rule_id_}, {"rule", "bob rewrote this rule"}});
  EXPECT_EQ(put["owner"], "bob") << put.dump();
  json rules = alice_->Result("memory.tool_rule_list", {{"tool_name", "email"}});
  EXPECT_TRUE(Has(rules, kRule));
  EXPECT_FALSE(Has(rules, "bob rewrote")) << rules.dump();

  bob_->Result("memory.context_prune", {{"session_id", "alice-ctx"}, {"keep", 0}});
  bob_->Result(
      "memory.context_append",
      {{"session_id", "alice-ctx"}, {"event", {{"input", "bob intrudes"}, {"response", "x"}}}});
  json window = alice_->Result(
      "memory.context_window",
      {{"session_id", "alice-ctx"}, {"query", "kumquat intrudes"}, {"budget_chars", 2000}});
  EXPECT_TRUE(Has(window, kContextEvent));
  EXPECT_FALSE(Has(window, "intrudes")) << window.dump();

  bob_->Result("memory.turn_complete", {{"session_id", "alice-s"},
                                        {"user_message", "bob intrudes here"},
                                        {"assistant_response", "ok"},
                                        {"sync", true}});
  json turns = alice_->Result("memory.session_turns", {{"session_id", "alice-s"}});
  EXPECT_EQ(turns["turns"].size(), 2u) << turns.dump();
  EXPECT_FALSE(Has(turns, "intrudes"));
  bob_->Result("memory.session_end", {{"session_id", "alice-s"}, {"sync", true}});
  EXPECT_TRUE(Has(alice_->Result("memory.episodic_search", {{"query", "pistachio"}}), kTurn));

  bob_->Result("memory.graph_upsert",
               {{"subject", "alice"}, {"predicate", "travels_to"}, {"object", "mars"}});
  json graph = alice_->Result("memory.graph_query", {{"subject", "alice"}});
  EXPECT_TRUE(Has(graph, kTriple));
  EXPECT_FALSE(Has(graph, "mars")) << graph.dump();

  bob_->Result("memory.profile_put",
               {{"facet_type", "preference"}, {"key", "tea"}, {"value", "green"}});
  json profile = alice_->Result("memory.profile", json::object());
  EXPECT_TRUE(Has(profile, kProfile));
  EXPECT_FALSE(Has(profile, "green")) << profile.dump();
}

// The filter runs inside the storage query: alice's many matching entries do
// not crowd bob's out of a small limit.
TEST_F(AclMatrix, OthersEntriesNeverCostACallerResults) {
  for (int i = 0; i < 12; ++i) {
    alice_->Result("memory.store",
                   {{"key", "heron-" + std::to_string(i)}, {"value", "heron heron sighting"}});
  }
  bob_->Result("memory.store", {{"key", "bob-heron-1"}, {"value", "a heron once"}});
  bob_->Result("memory.store", {{"key", "bob-heron-2"}, {"value", "another heron"}});
  json found = bob_->Result("memory.search", {{"query", "heron"}, {"max_results", 2}});
  ASSERT_EQ(found["results"].size(), 2u) << found.dump();
  for (const json& hit : found["results"]) {
    EXPECT_EQ(hit["key"].get<std::string>().rfind("bob-heron-", 0), 0u) << hit.dump();
  }
  json stats = bob_->Result("memory.stats", json::object());
  json list = bob_->Result("memory.list", {{"limit", 1000}});
  // Counts cover what bob may read: his own entries and public ones (the
  // list shows the memory namespaces, stats also counts bob's rules).
  EXPECT_EQ(stats["by_namespace"]["global"], list["items"].size()) << stats.dump() << list.dump();
  for (const json& item : list["items"]) {
    EXPECT_TRUE(item["owner"] == "bob" || item["visibility"] == "public") << item.dump();
  }
}

TEST_F(AclMatrix, AdminReachesEveryEntryAndAdminOnlyMethodsRefuseUsers) {
  EXPECT_TRUE(
      Has(root_->Result("memory.get", {{"key", "a-private"}, {"owner", "alice"}}), kPrivateEntry));
  EXPECT_EQ(bob_->ErrorCode("memory.hygiene_run", json::object()), -32002);
  EXPECT_TRUE(root_->Call("memory.hygiene_run", json::object()).contains("result"));
  EXPECT_EQ(bob_->ErrorCode("memory.tool_register", {{"name", "web_fetch"}}), -32002);
  EXPECT_TRUE(root_->Call("memory.tool_register", {{"name", "web_fetch"}}).contains("result"));
  EXPECT_TRUE(Has(bob_->Result("memory.tool_list", json::object()), "web_fetch"));
  // MEMORY.md is one file every principal's agent reads: only an admin writes it.
  EXPECT_EQ(bob_->ErrorCode("memory.update_memory_md",
                            {{"file", "MEMORY.md"}, {"content", "bob was here"}}),
            -32002);
  EXPECT_TRUE(root_
                  ->Call("memory.update_memory_md",
                         {{"file", "MEMORY.md"}, {"content", "Deploys happen on Tuesdays."}})
                  .contains("result"));
  // An admin's forget by owner removes another principal's entry.
  alice_->Result("memory.store", {{"key", "a-doomed"}, {"value", "temporary"}});
  EXPECT_EQ(root_->Result("memory.forget", {{"key", "a-doomed"}, {"owner", "alice"}})["forgotten"],
            true);
  EXPECT_EQ(alice_->ErrorCode("memory.get", {{"key", "a-doomed"}}), -32001);
}

TEST_F(AclMatrix, RecallIsRemovedEverywhere) {
  for (RpcClient* who : {alice_, root_}) {
    EXPECT_EQ(who->ErrorCode("memory.recall", {{"query", "walrus"}}), -32003);
    // A tool failure is a result with is_error, as for a model's tool call.
    json call = who->Result("memory.tool_call",
                            {{"name", "memory_recall"}, {"arguments", {{"query", "walrus"}}}});
    EXPECT_EQ(call["is_error"], true) << call.dump();
    EXPECT_FALSE(Has(call, kPrivateEntry));
    std::set<std::string> names;
    for (const json& tool : who->Result("memory.tools_schema", json::object())) {
      names.insert(tool["function"]["name"].get<std::string>());
    }
    EXPECT_TRUE(names.count("memory_search"));
    EXPECT_FALSE(names.count("memory_recall"));
  }
  // The tool interface applies the same rules as the methods.
  json via_tool = bob_->Call("memory.tool_call",
                             {{"name", "memory_get"}, {"arguments", {{"key", "a-private"}}}});
  EXPECT_FALSE(Has(via_tool, kPrivateEntry)) << via_tool.dump();
  EXPECT_TRUE(Has(alice_->Result("memory.tool_call",
                                 {{"name", "memory_get"}, {"arguments", {{"key", "a-private"}}}}),
                  kPrivateEntry));
}

TEST_F(AclMatrix, PathGuardAnswersEveryone) {
  for (RpcClient* who : {alice_, bob_, root_}) {
    EXPECT_EQ(who->Result("memory.path_protected", {{"path", dir_->Sub("audit.log")}})["protected"],
              true);
  }
}

// Runs last in the suite's order: the audit log of everything above.
TEST_F(AclMatrix, ZzAuditLogRecordsEveryOutcomeAndNoContent) {
  bob_->Call("memory.store", {{"key", ""}, {"value", "x"}});  // invalid
  std::ifstream in(dir_->Sub("audit.log"));
  ASSERT_TRUE(in) << "no audit.log";
  std::stringstream all;
  all << in.rdbuf();
  const std::string log = all.str();
  std::set<std::string> principals;
  std::set<std::string> outcomes;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << line;
    principals.insert(j.value("principal", ""));
    outcomes.insert(j.value("outcome", ""));
  }
  EXPECT_EQ(principals, (std::set<std::string>{"alice", "bob", "root"}));
  for (const char* outcome : {"ok", "not_found", "denied", "invalid"}) {
    EXPECT_TRUE(outcomes.count(outcome)) << outcome;
  }
  for (const char* secret : {kPrivateEntry, kPublicEntry, kRule, kTurn, kProfile, kTriple,
                             kDocument, kContextEvent, "secret-token"}) {
    EXPECT_EQ(log.find(secret), std::string::npos) << secret << " in the audit log";
  }
}

}  // namespace
}  // namespace mnemo::e2e

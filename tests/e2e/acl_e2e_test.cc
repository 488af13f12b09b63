// Spec 10's ACL through the real binary on every transport (issue 16): the
// same tests run over HTTP with bearer tokens (`mnemo serve`), over stdio
// JSON-RPC (`mnemo --principal P rpc --stdio`) and over MCP stdio
// (`mnemo --principal P mcp`, tools/call; only the methods that are MCP tools).
// Every read and write method is seen by the principal that owns the data, by
// another user (the owner's private and public data) and by an admin; then
// the audit log of those requests. Each of alice's artefacts carries its own
// marker word, so "bob cannot see it" is checked on the whole answer,
// whatever its shape. All transports share one seeded workspace; each child
// process starts once for the suite.
//
// To extend the matrix with a method: call it through alice(), bob() or
// root() in a test below (guarded by Offers() when it is not an MCP tool);
// the per-transport method counts printed at the end follow.
#include <gtest/gtest.h>
#include <signal.h>

#include <array>
#include <fstream>
#include <iostream>
#include <map>
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
#include "transport_client.h"

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

class AclMatrix : public ::testing::TestWithParam<Transport> {
 protected:
  static constexpr std::array kTransports = {Transport::kHttp, Transport::kStdio, Transport::kMcp};
  static constexpr std::array kPrincipals = {"alice", "bob", "root"};

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
    Seed();
    // Every child after the seed, once for the suite.
    clients_ = new std::map<Transport, std::vector<std::unique_ptr<TransportClient>>>();
    for (Transport t : kTransports) {
      for (const char* who : kPrincipals) {
        (*clients_)[t].push_back(MakeTransportClient(t, daemon_->port(), dir_->path(), who));
      }
    }
  }

  // alice's artefacts (and one private entry of bob's), written over HTTP by
  // clients of their own so that the method counts cover the tests only.
  static void Seed() {
    RpcClient a(daemon_->port(), "alice-secret-token");
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
    RpcClient(daemon_->port(), "bob-secret-token")
        .Result("memory.store",
                {{"key", "b-private"}, {"value", "Bob keeps a porcelain figurine"}});
  }

  static void TearDownTestSuite() {
    ReportMethodCounts();
    delete clients_;  // closes every child's stdin; each exits
    if (daemon_ != nullptr) {
      EXPECT_EQ(daemon_->Stop(SIGTERM), 0);
    }
    delete daemon_;
    delete dir_;
  }

  // The methods each transport ran (the counts of the report), and, when the
  // whole suite ran: stdio ran what HTTP ran, MCP what HTTP ran of its tools.
  static void ReportMethodCounts() {
    if (clients_ == nullptr) return;
    std::map<Transport, std::set<std::string>> ran;
    for (auto& [t, clients] : *clients_) {
      for (const auto& c : clients)
        ran[t].insert(c->MethodsCalled().begin(), c->MethodsCalled().end());
      std::cout << "[ ACL matrix ] " << TransportName(t) << ": " << ran[t].size() << " methods\n";
    }
    const ::testing::TestSuite* suite = ::testing::UnitTest::GetInstance()->current_test_suite();
    if (suite == nullptr || suite->test_to_run_count() != suite->total_test_count()) return;
    EXPECT_EQ(ran[Transport::kStdio], ran[Transport::kHttp]);
    std::set<std::string> mcp_tools;
    for (const std::string& m : ran[Transport::kHttp]) {
      for (const auto& c : (*clients_)[Transport::kMcp]) {
        if (c->Offers(m)) mcp_tools.insert(m);
      }
    }
    EXPECT_EQ(ran[Transport::kMcp], mcp_tools);
    EXPECT_GE(mcp_tools.size(), 8u);
  }

  TransportClient& alice() { return *(*clients_)[GetParam()][0]; }
  TransportClient& bob() { return *(*clients_)[GetParam()][1]; }
  TransportClient& root() { return *(*clients_)[GetParam()][2]; }
  // Whether this transport offers every one of `methods`.
  bool Offers(std::initializer_list<const char*> methods) {
    for (const char* m : methods) {
      if (!alice().Offers(m)) return false;
    }
    return true;
  }

  // An error; with the JSON-RPC `code` where the transport reports codes.
  static void ExpectError(TransportClient& who, const std::string& method, const json& params,
                          int code) {
    const int got = who.ErrorCode(method, params);
    EXPECT_NE(got, 0) << method << " succeeded";
    if (who.ReportsCodes()) {
      EXPECT_EQ(got, code) << method;
    }
  }

  // bob's answer for `params` (about alice's thing) equals his answer for
  // `missing` (about nothing): the same result, or the same error code and
  // message with the names swapped.
  void ExpectSameAsMissing(const std::string& method, const json& params, const json& missing,
                           const std::string& name, const std::string& missing_name) {
    json got = bob().Call(method, params);
    json none = bob().Call(method, missing);
    if (none.contains("result")) {  // "null when there is none"
      EXPECT_EQ(got["result"], none["result"]) << method;
      return;
    }
    ASSERT_TRUE(got.contains("error")) << method << " " << got.dump();
    EXPECT_EQ(got["error"].value("code", 0), none["error"].value("code", 0)) << method;
    std::string message = got["error"]["message"];
    if (const size_t at = message.find(name); at != std::string::npos) {
      message.replace(at, name.size(), missing_name);
    }
    EXPECT_EQ(message, none["error"]["message"].get<std::string>()) << method;
  }

  static testing::TempDir* dir_;
  static Daemon* daemon_;
  static std::map<Transport, std::vector<std::unique_ptr<TransportClient>>>* clients_;
  static std::string rule_id_;
  static std::string doc_id_;
};

testing::TempDir* AclMatrix::dir_ = nullptr;
Daemon* AclMatrix::daemon_ = nullptr;
std::map<Transport, std::vector<std::unique_ptr<TransportClient>>>* AclMatrix::clients_ = nullptr;
std::string AclMatrix::rule_id_;
std::string AclMatrix::doc_id_;

// Read methods over alice's artefacts: alice sees each marker, bob none, the
// admin the entries (admin sees every entry) but not the per-principal
// artefacts (rules, turns, profile, graph, documents, context: scoped to the
// principal that produced them, an admin included).
TEST_P(AclMatrix, EveryReadMethodShowsAliceHerDataAndBobNoneOfIt) {
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
      // No query holds its marker: an MCP text answer repeats the query.
      {"memory.search", {{"query", "Alice keeps figurine"}, {"min_score", 0}}, kPrivateEntry, true},
      {"memory.list", json::object(), kPrivateEntry, true},
      {"memory.tool_rule_list", {{"tool_name", "email"}}, kRule, false},
      {"memory.tool_rule_get", {{"tool_name", "email"}, {"id", rule_id_}}, kRule, false},
      {"memory.tool_rules_for_prompt", {{"tools", {"email"}}}, kRule, false},
      {"memory.tool_rules_json", {{"tool_name", "email"}}, kRule, false},
      {"memory.episodic_search", {{"query", "favourite ice cream"}}, kTurn, false},
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
    if (!Offers({r.method.c_str()})) continue;
    SCOPED_TRACE(r.method);
    EXPECT_TRUE(Has(alice().Result(r.method, r.params), r.marker));
    EXPECT_FALSE(Has(bob().Call(r.method, r.params), r.marker));
    EXPECT_EQ(Has(root().Call(r.method, r.params), r.marker), r.admin_sees);
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
    if (!Offers({method.c_str()})) continue;
    SCOPED_TRACE(method + " " + params.dump());
    json r = bob().Call(method, params);
    EXPECT_TRUE(r.contains("result")) << r.dump();
    for (const char* marker :
         {kPrivateEntry, kRule, kTurn, kProfile, kTriple, kDocument, kContextEvent}) {
      EXPECT_FALSE(Has(r, marker)) << marker << " in " << r.dump();
    }
  }
}

TEST_P(AclMatrix, PublicEntriesAreReadableByOthersButNotWritable) {
  EXPECT_TRUE(Has(bob().Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
  EXPECT_TRUE(Has(bob().Result("memory.search", {{"query", "narwhal poster"}}), kPublicEntry));
  if (Offers({"memory.list"})) {
    EXPECT_TRUE(Has(bob().Result("memory.list", json::object()), kPublicEntry));
  }
  // Forget deletes only one's own entries: alice's public one is not bob's.
  EXPECT_EQ(bob().Result("memory.forget", {{"key", "a-public"}})["forgotten"], false);
  // A store under the same key makes bob's own entry; alice's is unchanged.
  EXPECT_EQ(bob().Result("memory.store", {{"key", "a-public"}, {"value", "bob's own"}})["created"],
            true);
  EXPECT_TRUE(Has(alice().Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
  EXPECT_EQ(bob().Result("memory.get", {{"key", "a-public"}})["content"], "bob's own");
  EXPECT_EQ(bob().Result("memory.forget", {{"key", "a-public"}})["forgotten"], true);
  EXPECT_TRUE(Has(alice().Result("memory.get", {{"key", "a-public"}}), kPublicEntry));
}

// Another principal's private things answer exactly like things that do not
// exist: same code, same message.
TEST_P(AclMatrix, OthersPrivateThingsAreIndistinguishableFromMissingOnes) {
  ExpectSameAsMissing("memory.get", {{"key", "a-private"}}, {{"key", "zz-none"}}, "a-private",
                      "zz-none");
  ExpectSameAsMissing("memory.get", {{"key", "a-private"}, {"owner", "alice"}},
                      {{"key", "zz-none"}, {"owner", "alice"}}, "a-private", "zz-none");
  if (Offers({"memory.mark_useful", "memory.tool_rule_get", "memory.doc_get"})) {
    ExpectSameAsMissing("memory.mark_useful", {{"key", "a-private"}}, {{"key", "zz-none"}},
                        "a-private", "zz-none");
    ExpectSameAsMissing("memory.tool_rule_get", {{"tool_name", "email"}, {"id", rule_id_}},
                        {{"tool_name", "email"}, {"id", "00000000-0000-4000-8000-000000000000"}},
                        rule_id_, "00000000-0000-4000-8000-000000000000");
    ExpectSameAsMissing("memory.doc_get", {{"id", doc_id_}}, {{"id", "zz-none"}}, doc_id_,
                        "zz-none");
  }
  // Writes that would touch them report "nothing there" and change nothing.
  EXPECT_EQ(bob().Result("memory.forget", {{"key", "a-private"}})["forgotten"], false);
  EXPECT_EQ(bob().Result("memory.forget", {{"key", "a-private"}, {"owner", "alice"}})["forgotten"],
            false);
  if (Offers({"memory.doc_delete", "memory.tool_rule_delete", "memory.doc_get"})) {
    EXPECT_EQ(bob().Result("memory.doc_delete", {{"id", doc_id_}})["deleted"], false);
    json del = bob().Call("memory.tool_rule_delete", {{"tool_name", "email"}, {"id", rule_id_}});
    EXPECT_FALSE(Has(del, "\"deleted\":true")) << del.dump();
    EXPECT_TRUE(Has(alice().Result("memory.doc_get", {{"id", doc_id_}}), kDocument));
  }
  EXPECT_TRUE(Has(alice().Result("memory.get", {{"key", "a-private"}}), kPrivateEntry));
  EXPECT_TRUE(Has(alice().Result("memory.tool_rule_list", {{"tool_name", "email"}}), kRule));
  // bob's search for a word both wrote finds only his own entry.
  json found = bob().Result("memory.search", {{"query", "figurine"}});
  ASSERT_EQ(found["results"].size(), 1u) << found.dump();
  EXPECT_EQ(found["results"][0]["key"], "b-private");
}

// bob's writes that name alice's things (her rule id, her session ids, her
// graph subject, her profile key) land in bob's own data or nowhere.
TEST_P(AclMatrix, WritesNeverReachAnotherPrincipalsData) {
  // A put with alice's rule id makes bob's own rule, as with any new id.
  json put =
      bob().Result("memory.tool_rule_put",
                   {{"tool_name", "email"}, {"id", rule_id_}, {"rule", "bob rewrote this rule"}});
  EXPECT_EQ(put["owner"], "bob") << put.dump();
  json rules = alice().Result("memory.tool_rule_list", {{"tool_name", "email"}});
  EXPECT_TRUE(Has(rules, kRule));
  EXPECT_FALSE(Has(rules, "bob rewrote")) << rules.dump();

  if (Offers({"memory.context_prune", "memory.context_append", "memory.context_window"})) {
    bob().Result("memory.context_prune", {{"session_id", "alice-ctx"}, {"keep", 0}});
    bob().Result(
        "memory.context_append",
        {{"session_id", "alice-ctx"}, {"event", {{"input", "bob intrudes"}, {"response", "x"}}}});
    json window = alice().Result(
        "memory.context_window",
        {{"session_id", "alice-ctx"}, {"query", "kumquat intrudes"}, {"budget_chars", 2000}});
    EXPECT_TRUE(Has(window, kContextEvent));
    EXPECT_FALSE(Has(window, "intrudes")) << window.dump();
  }

  if (Offers({"memory.turn_complete", "memory.session_turns", "memory.session_end"})) {
    bob().Result("memory.turn_complete", {{"session_id", "alice-s"},
                                          {"user_message", "bob intrudes here"},
                                          {"assistant_response", "ok"},
                                          {"sync", true}});
    json turns = alice().Result("memory.session_turns", {{"session_id", "alice-s"}});
    EXPECT_EQ(turns["turns"].size(), 2u) << turns.dump();
    EXPECT_FALSE(Has(turns, "intrudes"));
    bob().Result("memory.session_end", {{"session_id", "alice-s"}, {"sync", true}});
    // A turn id is claimed per principal: bob's turn with alice's session
    // and turn id is his own turn, never a replay of hers.
    alice().Result("memory.turn_complete", {{"session_id", "alice-t"},
                                            {"turn_id", "t-1"},
                                            {"user_message", "The pistachio tin is empty."},
                                            {"assistant_response", "Noted."}});
    json replay = bob().Result("memory.turn_complete", {{"session_id", "alice-t"},
                                                        {"turn_id", "t-1"},
                                                        {"user_message", "bob intrudes again"},
                                                        {"assistant_response", "ok"}});
    EXPECT_FALSE(Has(replay, kTurn)) << replay.dump();
    json hers = alice().Result("memory.session_turns", {{"session_id", "alice-t"}});
    EXPECT_EQ(hers["turns"].size(), 2u) << hers.dump();
    EXPECT_FALSE(Has(hers, "intrudes")) << hers.dump();
  }
  if (Offers({"memory.session_forget", "memory.session_turns", "memory.turn_complete"})) {
    // bob's erasure of alice's session (even naming her) erases nothing and
    // answers like that of a missing session.
    alice().Result("memory.turn_complete", {{"session_id", "alice-only"},
                                            {"user_message", "Buy pistachio gelato."},
                                            {"assistant_response", "Added."}});
    const json missing = bob().Result("memory.session_forget", {{"session_id", "zz-none"}});
    EXPECT_EQ(bob().Result("memory.session_forget", {{"session_id", "alice-only"}}), missing);
    EXPECT_EQ(
        bob().Result("memory.session_forget", {{"session_id", "alice-only"}, {"owner", "alice"}}),
        missing);
    EXPECT_TRUE(Has(alice().Result("memory.session_turns", {{"session_id", "alice-only"}}), kTurn));
  }
  EXPECT_TRUE(Has(alice().Result("memory.episodic_search", {{"query", "pistachio"}}), kTurn));

  if (Offers({"memory.graph_upsert", "memory.graph_query"})) {
    bob().Result("memory.graph_upsert",
                 {{"subject", "alice"}, {"predicate", "travels_to"}, {"object", "mars"}});
    json graph = alice().Result("memory.graph_query", {{"subject", "alice"}});
    EXPECT_TRUE(Has(graph, kTriple));
    EXPECT_FALSE(Has(graph, "mars")) << graph.dump();
  }

  if (Offers({"memory.profile_put", "memory.profile"})) {
    bob().Result("memory.profile_put",
                 {{"facet_type", "preference"}, {"key", "tea"}, {"value", "green"}});
    json profile = alice().Result("memory.profile", json::object());
    EXPECT_TRUE(Has(profile, kProfile));
    EXPECT_FALSE(Has(profile, "green")) << profile.dump();
  }
}

// The filter runs inside the storage query: alice's many matching entries do
// not crowd bob's out of a small limit.
TEST_P(AclMatrix, OthersEntriesNeverCostACallerResults) {
  for (int i = 0; i < 12; ++i) {
    alice().Result("memory.store",
                   {{"key", "heron-" + std::to_string(i)}, {"value", "heron heron sighting"}});
  }
  bob().Result("memory.store", {{"key", "bob-heron-1"}, {"value", "a heron once"}});
  bob().Result("memory.store", {{"key", "bob-heron-2"}, {"value", "another heron"}});
  json found = bob().Result("memory.search", {{"query", "heron"}, {"max_results", 2}});
  ASSERT_EQ(found["results"].size(), 2u) << found.dump();
  for (const json& hit : found["results"]) {
    EXPECT_EQ(hit["key"].get<std::string>().rfind("bob-heron-", 0), 0u) << hit.dump();
  }
  if (!Offers({"memory.stats", "memory.list"})) return;
  json stats = bob().Result("memory.stats", json::object());
  json list = bob().Result("memory.list", {{"limit", 1000}});
  // Counts cover what bob may read: his own entries and public ones (the
  // list shows the memory namespaces, stats also counts bob's rules).
  EXPECT_EQ(stats["by_namespace"]["global"], list["items"].size()) << stats.dump() << list.dump();
  for (const json& item : list["items"]) {
    EXPECT_TRUE(item["owner"] == "bob" || item["visibility"] == "public") << item.dump();
  }
}

TEST_P(AclMatrix, AdminReachesEveryEntryAndAdminOnlyMethodsRefuseUsers) {
  EXPECT_TRUE(
      Has(root().Result("memory.get", {{"key", "a-private"}, {"owner", "alice"}}), kPrivateEntry));
  if (Offers({"memory.hygiene_run", "memory.tool_register", "memory.tool_list"})) {
    ExpectError(bob(), "memory.hygiene_run", json::object(), -32002);
    EXPECT_TRUE(root().Call("memory.hygiene_run", json::object()).contains("result"));
    ExpectError(bob(), "memory.tool_register", {{"name", "web_fetch"}}, -32002);
    EXPECT_TRUE(root().Call("memory.tool_register", {{"name", "web_fetch"}}).contains("result"));
    EXPECT_TRUE(Has(bob().Result("memory.tool_list", json::object()), "web_fetch"));
  }
  if (Offers({"memory.principal_forget"})) {
    ExpectError(bob(), "memory.principal_forget", {{"principal", "alice"}}, -32002);
    ExpectError(alice(), "memory.principal_forget", {{"principal", "alice"}}, -32002);
    EXPECT_TRUE(
        root().Call("memory.principal_forget", {{"principal", "nobody"}}).contains("result"));
    EXPECT_TRUE(Has(root().Result("memory.get", {{"key", "a-private"}, {"owner", "alice"}}),
                    kPrivateEntry));
  }
  // MEMORY.md is one file every principal's agent reads: only an admin writes
  // it, and MCP does not offer its tool to a user (issue 42, item 9).
  if (bob().Offers("memory.update_memory_md")) {
    ExpectError(bob(), "memory.update_memory_md",
                {{"file", "MEMORY.md"}, {"content", "bob was here"}}, -32002);
  } else {
    EXPECT_EQ(GetParam(), Transport::kMcp);
  }
  EXPECT_TRUE(root()
                  .Call("memory.update_memory_md",
                        {{"file", "MEMORY.md"}, {"content", "Deploys happen on Tuesdays."}})
                  .contains("result"));
  // An admin's forget by owner removes another principal's entry.
  alice().Result("memory.store", {{"key", "a-doomed"}, {"value", "temporary"}});
  EXPECT_EQ(root().Result("memory.forget", {{"key", "a-doomed"}, {"owner", "alice"}})["forgotten"],
            true);
  ExpectError(alice(), "memory.get", {{"key", "a-doomed"}}, -32001);
}

TEST_P(AclMatrix, RecallIsRemovedEverywhere) {
  if (!Offers({"memory.recall", "memory.tool_call", "memory.tools_schema"})) {
    // MCP: memory_recall is not in tools/list under ACL.
    EXPECT_FALSE(alice().Offers("memory.recall"));
    EXPECT_TRUE(alice().Offers("memory.search"));
    return;
  }
  for (TransportClient* who : {&alice(), &root()}) {
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
  json via_tool = bob().Call("memory.tool_call",
                             {{"name", "memory_get"}, {"arguments", {{"key", "a-private"}}}});
  EXPECT_FALSE(Has(via_tool, kPrivateEntry)) << via_tool.dump();
  EXPECT_TRUE(Has(alice().Result("memory.tool_call",
                                 {{"name", "memory_get"}, {"arguments", {{"key", "a-private"}}}}),
                  kPrivateEntry));
}

TEST_P(AclMatrix, PathGuardAnswersEveryone) {
  if (!Offers({"memory.path_protected"})) return;
  for (TransportClient* who : {&alice(), &bob(), &root()}) {
    EXPECT_EQ(who->Result("memory.path_protected", {{"path", dir_->Sub("audit.log")}})["protected"],
              true);
  }
}

// Runs last in the suite's order: the audit log of everything above.
TEST_P(AclMatrix, ZzAuditLogRecordsEveryOutcomeAndNoContent) {
  bob().Call("memory.store", {{"key", ""}, {"value", "x"}});  // invalid
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

INSTANTIATE_TEST_SUITE_P(Transports, AclMatrix,
                         ::testing::Values(Transport::kHttp, Transport::kStdio, Transport::kMcp),
                         [](const ::testing::TestParamInfo<Transport>& info) {
                           return TransportName(info.param);
                         });

}  // namespace
}  // namespace mnemo::e2e

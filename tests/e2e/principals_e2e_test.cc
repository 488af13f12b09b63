// Principals on stdio, the CLI and `mnemo mcp` under ACL (spec 10, issue 16):
// --principal P acts with the role the configuration grants P
// ([[security.principals]], else a [[security.tokens]] entry naming P, else
// user, whatever the name); without --principal the process acts as
// security.default_principal with security.default_role (default admin).
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "process.h"
#include "test_util.h"
#include "transport_client.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

// bob's private entry; each test looks for this word in whole answers.
constexpr const char* kBobsSecret = "porcelain";

class PrincipalRoles : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ofstream(dir_.Sub("mnemo.toml"))
        << "[memory]\nacl_enabled = true\n\n"
           "[[security.principals]]\nname = \"ops\"\nrole = \"admin\"\n\n"
           "[[security.principals]]\nname = \"alice\"\nrole = \"user\"\n\n"
           "[[security.tokens]]\nprincipal = \"root\"\nrole = \"admin\"\nsha256 = \""
        << internal::Sha256Hex("root-token") << "\"\n";
    RunResult r = Cli("bob", {"memory", "store", "b-secret", "Bob keeps a porcelain figurine"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  RunResult Cli(const std::string& principal, std::vector<std::string> command,
                const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> args = {"--workspace", dir_.path(), "--json"};
    if (!principal.empty()) args.insert(args.end(), {"--principal", principal});
    args.insert(args.end(), command.begin(), command.end());
    return RunMnemo(args, {}, env);
  }

  testing::TempDir dir_;
};

TEST_F(PrincipalRoles, McpUserCannotForgetAnotherPrincipalsEntryButAListedAdminCan) {
  auto alice = McpTransportClient(dir_.path(), "alice");
  json denied = alice->Call("memory.forget", {{"key", "b-secret"}, {"owner", "bob"}});
  EXPECT_EQ(denied["result"]["forgotten"], false) << denied.dump();
  EXPECT_FALSE(
      alice->Call("memory.get", {{"key", "b-secret"}, {"owner", "bob"}}).dump().find(kBobsSecret) !=
      std::string::npos);
  EXPECT_EQ(alice->Call("memory.search", {{"query", "keeps figurine"}, {"min_score", 0}})
                .dump()
                .find(kBobsSecret),
            std::string::npos);

  auto ops = McpTransportClient(dir_.path(), "ops");
  EXPECT_NE(
      ops->Call("memory.get", {{"key", "b-secret"}, {"owner", "bob"}}).dump().find(kBobsSecret),
      std::string::npos);
  EXPECT_EQ(ops->Result("memory.forget", {{"key", "b-secret"}, {"owner", "bob"}})["forgotten"],
            true);
}

TEST_F(PrincipalRoles, StdioPrincipalsActWithTheirConfiguredRoleAndUnlistedOnesAsUsers) {
  const json get_bobs = {{"key", "b-secret"}, {"owner", "bob"}};
  // Not listed anywhere: a user.
  auto mallory = StdioTransportClient(dir_.path(), "mallory");
  EXPECT_EQ(mallory->ErrorCode("memory.get", get_bobs), -32001);
  EXPECT_EQ(mallory->ErrorCode("memory.hygiene_run", json::object()), -32002);
  // Named by a token only: the token's role.
  auto root = StdioTransportClient(dir_.path(), "root");
  EXPECT_NE(root->Result("memory.get", get_bobs).dump().find(kBobsSecret), std::string::npos);
  // Listed as a user.
  auto alice = StdioTransportClient(dir_.path(), "alice");
  EXPECT_EQ(alice->ErrorCode("memory.get", get_bobs), -32001);
  EXPECT_EQ(alice->Result("memory.store", {{"key", "mine"}, {"value", "x"}})["key"], "mine");
  EXPECT_EQ(alice->Result("memory.get", {{"key", "mine"}})["owner"], "alice");
}

// Issue 42 item 8: rights come from the configuration only, never from a
// name. `--principal local` spells the default principal's name; it acted
// with security.default_role (admin) and read and erased everyone's memory.
TEST_F(PrincipalRoles, NamingTheDefaultPrincipalBuysNoRights) {
  const std::vector<std::string> get = {"rpc", "memory.get", R"({"key":"b-secret","owner":"bob"})"};
  RunResult local = Cli("local", get);
  EXPECT_EQ(local.exit_code, 1) << local.out;
  EXPECT_EQ(local.out.find(kBobsSecret), std::string::npos) << local.out;
  RunResult forget = Cli("local", {"rpc", "memory.forget", R"({"key":"b-secret","owner":"bob"})"});
  EXPECT_EQ(forget.out.find("true"), std::string::npos) << forget.out;
  auto mcp = McpTransportClient(dir_.path(), "local");
  EXPECT_EQ(
      mcp->Call("memory.get", {{"key", "b-secret"}, {"owner", "bob"}}).dump().find(kBobsSecret),
      std::string::npos);
  auto stdio = StdioTransportClient(dir_.path(), "local");
  EXPECT_EQ(stdio->ErrorCode("memory.get", {{"key", "b-secret"}, {"owner", "bob"}}), -32001);
  // The same name under another default is no different.
  RunResult carol = Cli("carol", get, {{"MNEMO_SECURITY_DEFAULT_PRINCIPAL", "carol"}});
  EXPECT_EQ(carol.out.find(kBobsSecret), std::string::npos) << carol.out;
  // The owner of the workspace (no --principal) keeps the default role.
  RunResult owner = Cli("", get);
  EXPECT_NE(owner.out.find(kBobsSecret), std::string::npos) << owner.out;
  EXPECT_EQ(Cli("bob", {"memory", "get", "b-secret"}).exit_code, 0);
}

// Issue 42, item 9: each principal is offered exactly the tools it may call.
// update_memory_md (MEMORY.md is every principal's) is an admin's under ACL:
// a user's call of it answers -32002, so a user's lists leave it out.
TEST_F(PrincipalRoles, EachPrincipalIsOfferedExactlyTheToolsItMayCall) {
  auto tool_names = [](TransportClient& who) {
    std::set<std::string> names;
    for (const json& t : who.Result("memory.tools_schema", json::object())) {
      names.insert(t["function"]["name"].get<std::string>());
    }
    return names;
  };
  auto alice = StdioTransportClient(dir_.path(), "alice");
  const std::set<std::string> alices = tool_names(*alice);
  EXPECT_TRUE(alices.count("memory_search"));
  EXPECT_FALSE(alices.count("update_memory_md"));
  EXPECT_FALSE(alices.count("memory_recall"));
  EXPECT_EQ(alice->ErrorCode("memory.update_memory_md", {{"file", "MEMORY.md"}, {"content", "x"}}),
            -32002);
  auto ops = StdioTransportClient(dir_.path(), "ops");
  EXPECT_TRUE(tool_names(*ops).count("update_memory_md"));
  // MCP tools/list, over stdio.
  auto mcp_alice = McpTransportClient(dir_.path(), "alice");
  EXPECT_TRUE(mcp_alice->Offers("memory.search"));
  EXPECT_FALSE(mcp_alice->Offers("memory.update_memory_md"));
  EXPECT_TRUE(McpTransportClient(dir_.path(), "ops")->Offers("memory.update_memory_md"));
}

TEST_F(PrincipalRoles, CliCommandsActAsThePrincipal) {
  RunResult alice = Cli("alice", {"memory", "search", "keeps figurine"});
  ASSERT_EQ(alice.exit_code, 0) << alice.err;
  EXPECT_EQ(alice.out.find(kBobsSecret), std::string::npos) << alice.out;
  RunResult alice_list = Cli("alice", {"memory", "list"});
  EXPECT_EQ(alice_list.out.find(kBobsSecret), std::string::npos) << alice_list.out;
  RunResult ops = Cli("ops", {"memory", "search", "keeps figurine"});
  ASSERT_EQ(ops.exit_code, 0) << ops.err;
  EXPECT_NE(ops.out.find(kBobsSecret), std::string::npos) << ops.out;
  // The one-shot rpc command too.
  RunResult forget = Cli("alice", {"rpc", "memory.forget", R"({"key":"b-secret","owner":"bob"})"});
  ASSERT_EQ(forget.exit_code, 0) << forget.err;
  EXPECT_NE(forget.out.find("false"), std::string::npos) << forget.out;
  EXPECT_EQ(Cli("bob", {"memory", "get", "b-secret"}).exit_code, 0);
}

TEST_F(PrincipalRoles, WithoutPrincipalTheProcessActsAsTheDefaultPrincipalWithTheDefaultRole) {
  const std::vector<std::string> get = {"rpc", "memory.get", R"({"key":"b-secret","owner":"bob"})"};
  RunResult owner = Cli("", get);  // local, admin: the owner of the workspace
  ASSERT_EQ(owner.exit_code, 0) << owner.err;
  EXPECT_NE(owner.out.find(kBobsSecret), std::string::npos) << owner.out;
  RunResult user = Cli("", get, {{"MNEMO_SECURITY_DEFAULT_ROLE", "user"}});
  EXPECT_EQ(user.exit_code, 1) << user.out;
  EXPECT_EQ(user.out.find(kBobsSecret), std::string::npos) << user.out;
  RunResult bad = Cli("", get, {{"MNEMO_SECURITY_DEFAULT_ROLE", "root"}});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("security.default_role"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("admin, user"), std::string::npos) << bad.err;
  // The default principal's name comes from the configuration too.
  RunResult named = Cli("", {"rpc", "memory.store", R"({"key":"k","value":"v"})"},
                        {{"MNEMO_SECURITY_DEFAULT_PRINCIPAL", "carol"}});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_EQ(Cli("carol", {"memory", "get", "k"}).exit_code, 0);
}

TEST_F(PrincipalRoles, ABadPrincipalsTableIsAnErrorNamingTheField) {
  std::ofstream(dir_.Sub("mnemo.toml"))
      << "[memory]\nacl_enabled = true\n\n[[security.principals]]\nname = \"ops\"\nrole = "
         "\"superuser\"\n";
  RunResult r = Cli("ops", {"memory", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      r.err.find("[[security.principals]] #1: role is \"superuser\"; it must be admin or user"),
      std::string::npos)
      << r.err;
}

TEST_F(PrincipalRoles, APrincipalNameIsCheckedByTheRuleOfEveryDoor) {
  // --principal, the configuration and memory.principal_forget refuse the
  // same names: one line of 1-128 bytes, not blank.
  const std::string rule = "a principal name is 1-128 bytes of UTF-8 text on one line";
  RunResult tab = Cli("ali\tce", {"rpc", "memory.store", R"({"key":"k","value":"v"})"});
  EXPECT_EQ(tab.exit_code, 1) << tab.out;
  EXPECT_NE(tab.err.find("--principal contains a control character: " + rule), std::string::npos)
      << tab.err;
  RunResult long_name = Cli(std::string(129, 'p'), {"memory", "list"});
  EXPECT_EQ(long_name.exit_code, 1) << long_name.out;
  EXPECT_NE(long_name.err.find("--principal is 129 bytes long: " + rule), std::string::npos)
      << long_name.err;
  RunResult configured = Cli("", {"memory", "list"}, {{"MNEMO_SECURITY_DEFAULT_PRINCIPAL", "   "}});
  EXPECT_EQ(configured.exit_code, 1) << configured.out;
  EXPECT_NE(configured.err.find("security.default_principal must not be blank: " + rule),
            std::string::npos)
      << configured.err;
  RunResult forget = Cli("", {"rpc", "memory.principal_forget", R"({"principal":"bo\u0001b"})"});
  EXPECT_EQ(forget.exit_code, 1) << forget.out;
  EXPECT_NE(forget.err.find("principal contains a control character: " + rule), std::string::npos)
      << forget.err;
  // Nothing was stored or erased on the way.
  EXPECT_EQ(Cli("bob", {"memory", "get", "b-secret"}).exit_code, 0);
}

}  // namespace
}  // namespace mnemo::e2e

#include "transport/rpc/method_table.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "rpc_fixture.h"
#include "transport/mcp/mcp.h"
#include "transport/rpc/param_schema.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

using Methods = RpcTest;

TEST_F(Methods, StoreSearchGetForgetRoundTrip) {
  json stored =
      Ok("memory.store", {{"key", "lang"}, {"value", "User prefers Rust"}, {"tags", {"pref"}}});
  EXPECT_EQ(stored["key"], "lang");
  EXPECT_EQ(stored["namespace"], "global");
  EXPECT_EQ(stored["category"], "core");
  EXPECT_EQ(stored["created"], true);
  EXPECT_FALSE(stored["id"].get<std::string>().empty());

  json found = Ok("memory.search", {{"query", "Rust"}, {"min_score", 0}});
  ASSERT_FALSE(found["results"].empty()) << found.dump();
  json hit = found["results"][0];
  for (const char* f : {"key", "namespace", "category", "owner", "content", "snippet", "score",
                        "keyword_score", "vector_score"}) {
    EXPECT_TRUE(hit.contains(f)) << f;
  }
  EXPECT_TRUE(found.contains("degraded"));

  json entry = Ok("memory.get", {{"key", "lang"}});
  EXPECT_EQ(entry["content"], "User prefers Rust");
  EXPECT_EQ(entry["tags"], json::array({"pref"}));

  EXPECT_EQ(Ok("memory.forget", {{"key", "lang"}})["forgotten"], true);
  EXPECT_EQ(Ok("memory.forget", {{"key", "lang"}})["forgotten"], false);
  EXPECT_EQ(Err("memory.get", {{"key", "lang"}})["code"], -32001);
}

TEST_F(Methods, ContentIsAnAliasOfValueAndLimitOfMaxResults) {
  EXPECT_EQ(Ok("memory.store", {{"key", "k"}, {"content", "via alias"}})["created"], true);
  EXPECT_EQ(Ok("memory.get", {{"key", "k"}})["content"], "via alias");
  json r = Ok("memory.search", {{"query", "alias"}, {"limit", 1}, {"min_score", 0}});
  EXPECT_LE(r["results"].size(), 1u);
  json e = Err("memory.store", {{"key", "k"}, {"value", "a"}, {"content", "b"}});
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["data"]["field"], "value");
}

TEST_F(Methods, MissingBlankWrongTypedAndOversizedParamsAre32602WithTheField) {
  struct Case {
    const char* method;
    json params;
    const char* field;
  };
  const std::string big_key(257, 'k');
  const std::string big_value((1 << 20) + 1, 'v');
  std::vector<Case> cases = {
      {"memory.store", {{"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}}, "value"},
      {"memory.store", {{"key", "  "}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}, {"value", " \n"}}, "value"},
      {"memory.store", {{"key", big_key}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}, {"value", big_value}}, "value"},
      {"memory.store", {{"key", 7}, {"value", "v"}}, "key"},
      {"memory.store", {{"key", "k"}, {"value", json::array()}}, "value"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"embedding", {1, "x"}}}, "embedding"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"embedding", json::array()}}, "embedding"},
      {"memory.search", {{"query", "q"}, {"embedding", "0.1,0.2"}}, "embedding"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"tags", "a,b"}}, "tags"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"tags", {1, 2}}}, "tags"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"visibility", "secret"}}, "visibility"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"category", "Core!"}}, "category"},
      {"memory.store", {{"key", "k"}, {"value", "v"}, {"colour", "red"}}, "colour"},
      {"memory.search", {{"query", ""}}, "query"},
      {"memory.search", {{"query", "x"}, {"max_results", 0}}, "max_results"},
      {"memory.search", {{"query", "x"}, {"max_results", 101}}, "max_results"},
      {"memory.search", {{"query", "x"}, {"max_results", "5"}}, "max_results"},
      {"memory.search", {{"query", "x"}, {"max_results", 2.5}}, "max_results"},
      {"memory.search", {{"query", "x"}, {"include_archived", "true"}}, "include_archived"},
      {"memory.search", {{"query", "x"}, {"min_score", 2}}, "min_score"},
      {"memory.recall", {{"query", 5}}, "query"},
      {"memory.list", {{"limit", 0}}, "limit"},
      {"memory.list", {{"offset", -1}}, "offset"},
      {"memory.get", json::object(), "key"},
      {"memory.tool_call", {{"arguments", json::object()}}, "name"},
  };
  for (const Case& c : cases) {
    json e = Err(c.method, c.params);
    EXPECT_EQ(e["code"], -32602) << c.method << " " << c.params.dump().substr(0, 200);
    EXPECT_EQ(e["data"].value("field", ""), c.field) << c.method << " " << e.dump().substr(0, 300);
  }
  EXPECT_EQ(Ok("memory.stats", nullptr)["entries"], 0);
}

TEST_F(Methods, BringYourOwnVectorsTravelThroughStoreAndSearch) {
  Ok("memory.store", {{"key", "v1"}, {"value", "unrelated words"}, {"embedding", {1, 0, 0}}});
  json r = Ok("memory.search",
              {{"query", "something else"}, {"embedding", {1, 0.1, 0}}, {"min_score", 0}});
  ASSERT_EQ(r["results"].size(), 1u) << r.dump();
  EXPECT_EQ(r["results"][0]["key"], "v1");
  EXPECT_GT(r["results"][0]["vector_score"].get<double>(), 0.9);
}

TEST_F(Methods, UnknownParamErrorNamesTheAllowedOnes) {
  json e = Err("memory.get", {{"key", "k"}, {"nme", "x"}});
  std::string msg = e["message"];
  EXPECT_NE(msg.find("nme"), std::string::npos);
  EXPECT_NE(msg.find("key, namespace, owner"), std::string::npos) << msg;
}

TEST_F(Methods, IntegralFloatsCountAsIntegers) {
  Ok("memory.store", {{"key", "k"}, {"value", "v"}});
  EXPECT_EQ(Ok("memory.list", {{"limit", 5.0}})["items"].size(), 1u);
}

TEST_F(Methods, QueriesWithFtsAndSqlSyntaxAreJustText) {
  Ok("memory.store", {{"key", "k"}, {"value", "plain words"}});
  for (const char* q : {"\"", "*", "NEAR(", "OR", ")", "a OR b AND NOT c",
                        "'; DROP TABLE entries; --", "(((", "key:value", "^x"}) {
    json r = Request("memory.search", {{"query", q}});
    EXPECT_TRUE(r.contains("result")) << q << " -> " << r.dump();
  }
  EXPECT_EQ(Ok("memory.get", {{"key", "k"}})["content"], "plain words");
}

TEST_F(Methods, ListPagesWithNextOffset) {
  for (int i = 0; i < 3; ++i)
    Ok("memory.store", {{"key", "k" + std::to_string(i)}, {"value", "v"}});
  json page = Ok("memory.list", {{"limit", 2}});
  EXPECT_EQ(page["items"].size(), 2u);
  EXPECT_EQ(page["next_offset"], 2);
  json rest = Ok("memory.list", {{"limit", 2}, {"offset", 2}});
  EXPECT_EQ(rest["items"].size(), 1u);
  EXPECT_TRUE(rest["next_offset"].is_null());
}

TEST_F(Methods, MarkUsefulCountsAndStatsCount) {
  Ok("memory.store", {{"key", "k"}, {"value", "v"}, {"category", "daily"}});
  EXPECT_EQ(Ok("memory.mark_useful", {{"key", "k"}})["useful_count"], 1);
  json s = Ok("memory.stats", json::object());
  EXPECT_EQ(s["entries"], 1);
  EXPECT_EQ(s["by_category"]["daily"], 1);
  EXPECT_EQ(Err("memory.mark_useful", {{"key", "nope"}})["code"], -32001);
}

TEST_F(Methods, MethodsListingMatchesTheTable) {
  json listed = Ok("memory.methods", nullptr)["methods"];
  const auto& table = DefaultMethodTable().All();
  ASSERT_EQ(listed.size(), table.size());
  for (size_t i = 0; i < table.size(); ++i) {
    EXPECT_EQ(listed[i]["name"], table[i].name);
    EXPECT_EQ(listed[i]["params"], ParamsSchema(table[i]));
    EXPECT_EQ(listed[i]["result"], table[i].result_schema);
    EXPECT_EQ(listed[i]["tool"],
              table[i].tool_name.empty() ? json(nullptr) : json(table[i].tool_name));
  }
  json store = listed[0];
  EXPECT_EQ(store["aliases"]["content"], "value");
  for (const char* m : {"memory.store", "memory.get", "memory.recall", "memory.search",
                        "memory.forget", "memory.mark_useful", "memory.list", "memory.stats",
                        "memory.methods", "memory.tools_schema", "memory.tool_call"}) {
    EXPECT_NE(DefaultMethodTable().Find(m), nullptr) << m;
  }
}

TEST_F(Methods, ToolsSchemaIsOpenAiFunctionForm) {
  json tools = Ok("memory.tools_schema", nullptr);
  ASSERT_TRUE(tools.is_array());
  std::set<std::string> names;
  for (const json& t : tools) {
    EXPECT_EQ(t["type"], "function");
    names.insert(t["function"]["name"]);
    EXPECT_FALSE(t["function"]["description"].get<std::string>().empty());
    EXPECT_EQ(t["function"]["parameters"]["type"], "object");
    EXPECT_TRUE(t["function"]["parameters"]["properties"].is_object());
  }
  // Spec 60's table, plus tool_rule_put (issue 21: an OpenAI-style harness
  // pins rules through tool calls); tool_rule_list stays an MCP tool.
  EXPECT_EQ(names, (std::set<std::string>{"memory_store", "memory_get", "memory_recall",
                                          "memory_search", "memory_forget", "tool_rule_put",
                                          "episodic_search", "update_memory_md"}));
  json r = Ok("memory.tool_call", {{"name", "tool_rule_put"},
                                   {"arguments", {{"tool_name", "email"}, {"rule", "never cc"}}}});
  EXPECT_EQ(r["is_error"], false) << r.dump();
  EXPECT_EQ(Ok("memory.tool_rule_list", {{"tool_name", "email"}}).size(), 1U);
  r = Ok("memory.tool_call", {{"name", "tool_rule_list"}, {"arguments", json::object()}});
  EXPECT_EQ(r["is_error"], true) << r.dump();
  json store = tools[0]["function"]["parameters"];
  EXPECT_EQ(store["required"], json::array({"key", "value"}));
  EXPECT_EQ(store["properties"]["category"]["default"], "core");
}

TEST_F(Methods, ToolsSchemaLeavesRecallOutUnderAcl) {
  Config c;
  c.memory.acl_enabled = true;
  Open(c);
  json tools = Ok("memory.tools_schema", nullptr);
  EXPECT_EQ(tools.size(), 7u);
  for (const json& t : tools) EXPECT_NE(t["function"]["name"], "memory_recall");
  json r = Ok("memory.tool_call", {{"name", "memory_recall"}, {"arguments", {{"query", "x"}}}});
  EXPECT_EQ(r["is_error"], true);
}

// Issue 42, item 9: each principal sees exactly the tools it may call. Every
// tool of the table is called by a user and by an admin, under ACL and with
// memory off: a tool is listed for that caller exactly when its call is not
// refused for who the caller is (-32002) or what is switched off (-32003).
TEST_F(Methods, EachPrincipalIsOfferedExactlyTheToolsItMayCall) {
  const std::map<std::string, json> valid_arguments = {
      {"memory_store", {{"key", "k"}, {"value", "v"}}},
      {"memory_get", {{"key", "k"}}},
      {"memory_recall", {{"query", "v"}}},
      {"memory_search", {{"query", "v"}}},
      {"memory_forget", {{"key", "nothing"}}},
      {"tool_rule_put", {{"tool_name", "email"}, {"rule", "never cc"}}},
      {"tool_rule_list", {{"tool_name", "email"}}},
      {"episodic_search", {{"query", "v"}}},
      {"update_memory_md", {{"file", "MEMORY.md"}, {"content", "Deploys on Tuesdays."}}}};
  struct Setting {
    const char* name;
    bool acl;
    bool enabled;
  };
  for (const Setting setting : {Setting{"acl", true, true}, Setting{"no acl", false, true},
                                Setting{"memory off", true, false}}) {
    Config c;
    c.memory.acl_enabled = setting.acl;
    c.memory.enabled = setting.enabled;
    Open(c);
    for (const Principal& who :
         {Principal{"alice", Role::kUser}, Principal{"root", Role::kAdmin}}) {
      who_ = who;
      std::set<std::string> listed;
      for (const json& t : Ok("memory.tools_schema", nullptr)) listed.insert(t["function"]["name"]);
      McpServer mcp(*engine_);
      McpSession session;
      mcp.HandleJson({{"jsonrpc", "2.0"},
                      {"id", 1},
                      {"method", "initialize"},
                      {"params", {{"protocolVersion", "2025-11-25"}}}},
                     who_, session);
      std::set<std::string> mcp_listed;
      const json tools = mcp.HandleJson({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}},
                                        who_, session)["result"]["tools"];
      for (const json& t : tools) mcp_listed.insert(t["name"]);
      for (const MethodSpec& m : DefaultMethodTable().All()) {
        if (m.tool_name.empty()) continue;
        const auto args = valid_arguments.find(m.tool_name);
        ASSERT_NE(args, valid_arguments.end()) << "give tool " << m.tool_name << " valid arguments";
        json r = dispatcher_->HandleJson(
            {{"jsonrpc", "2.0"}, {"id", 1}, {"method", m.name}, {"params", args->second}}, who_);
        const bool refused =
            r.contains("error") && (r["error"]["code"] == -32002 || r["error"]["code"] == -32003);
        const std::string where = std::string(setting.name) + ", " + who.name + ", " + m.tool_name;
        EXPECT_NE(refused, mcp_listed.count(m.tool_name) == 1) << where << ": " << r.dump();
        if (!m.tool_mcp_only) {
          EXPECT_NE(refused, listed.count(m.tool_name) == 1) << where << ": " << r.dump();
        }
      }
    }
  }
}

TEST_F(Methods, ToolCallRendersTheSpecTexts) {
  json r = Ok("memory.tool_call",
              {{"name", "memory_store"}, {"arguments", {{"key", "color"}, {"content", "blue"}}}});
  EXPECT_EQ(r["is_error"], false);
  EXPECT_EQ(r["content"], "Stored memory: color");
  EXPECT_EQ(r["data"]["key"], "color");

  r = Ok("memory.tool_call", {{"name", "memory_recall"}, {"arguments", {{"query", "blue"}}}});
  EXPECT_EQ(r["is_error"], false);
  ASSERT_FALSE(r["data"]["results"].empty()) << r.dump();
  json hit = r["data"]["results"][0];
  std::string expected = "- [" + hit["source"].get<std::string>() + "/core] color: blue [" +
                         std::to_string(std::lround(hit["score"].get<double>() * 100)) + "%]";
  EXPECT_EQ(r["content"].get<std::string>().substr(0, expected.size()), expected);

  r = Ok("memory.tool_call", {{"name", "memory_forget"}, {"arguments", R"({"key":"color"})"}});
  EXPECT_EQ(r["content"], "Forgot memory: color");
  r = Ok("memory.tool_call", {{"name", "memory_forget"}, {"arguments", {{"key", "color"}}}});
  EXPECT_EQ(r["content"], "No memory found with key: color");
}

TEST_F(Methods, FailingToolIsAnErrorResultNotARpcError) {
  json r = Ok("memory.tool_call", {{"name", "memory_get"}, {"arguments", {{"key", "nope"}}}});
  EXPECT_EQ(r["is_error"], true);
  EXPECT_EQ(r["content"], "No memory entry found for key: nope");
  r = Ok("memory.tool_call", {{"name", "memory_store"}, {"arguments", {{"key", "k"}}}});
  EXPECT_EQ(r["is_error"], true);
  EXPECT_NE(r["content"].get<std::string>().find("value"), std::string::npos);
  r = Ok("memory.tool_call", {{"name", "memory_nope"}, {"arguments", json::object()}});
  EXPECT_EQ(r["is_error"], true);
  EXPECT_NE(r["content"].get<std::string>().find("memory_store"), std::string::npos);
}

// Malformed arguments are the model's mistake: a failed tool it can retry,
// naming what was wrong, never a -32602 that ends the harness's loop.
TEST_F(Methods, MalformedToolArgumentsAreAFailedToolTheModelCanRetry) {
  for (const json& bad : {json(5), json("{\"key\": "), json("[1, 2]"), json::array({"key"})}) {
    json r = Ok("memory.tool_call", {{"name", "memory_get"}, {"arguments", bad}});
    EXPECT_EQ(r["is_error"], true) << bad.dump();
    EXPECT_EQ(r["data"], nullptr);
    const std::string text = r["content"].get<std::string>();
    EXPECT_NE(text.find("Tool memory_get was not run"), std::string::npos) << text;
    EXPECT_NE(text.find("\"arguments\""), std::string::npos) << text;
  }
  // An unknown tool still says which tools exist, whatever the arguments.
  json r = Ok("memory.tool_call", {{"name", "memory_nope"}, {"arguments", "{"}});
  EXPECT_NE(r["content"].get<std::string>().find("memory_store"), std::string::npos);
  // The call itself still needs a tool name.
  EXPECT_EQ(Err("memory.tool_call", {{"arguments", json::object()}})["code"], -32602);
}

// A namespace tree (the LangGraph store's): namespace_prefix keeps the
// subtree in search and list, hits say when they were written, and a
// prefix with a namespace is refused by name.
TEST_F(Methods, NamespacePrefixSearchesAndListsASubtree) {
  Ok("memory.store", {{"key", "a"}, {"value", "tea at noon"}, {"namespace", "users.alice"}});
  Ok("memory.store", {{"key", "b"}, {"value", "tea at five"}, {"namespace", "users.alice.work"}});
  Ok("memory.store", {{"key", "c"}, {"value", "tea at two"}, {"namespace", "users.bob"}});
  json found = Ok("memory.search",
                  {{"query", "tea"}, {"namespace_prefix", "users.alice"}, {"min_score", 0}});
  std::set<std::string> keys;
  for (const json& hit : found["results"]) {
    keys.insert(hit["key"].get<std::string>());
    EXPECT_EQ(hit["created_at"].get<std::string>().size(), 24U) << hit.dump();
    EXPECT_EQ(hit["updated_at"], hit["created_at"]);
  }
  EXPECT_EQ(keys, (std::set<std::string>{"a", "b"}));
  json listed = Ok("memory.list", {{"namespace_prefix", "users."}});
  EXPECT_EQ(listed["items"].size(), 3U) << listed.dump();
  EXPECT_EQ(Ok("memory.list", {{"namespace_prefix", "users.alice."}})["items"].size(), 1U);
  json both = Err("memory.search",
                  {{"query", "tea"}, {"namespace", "users.bob"}, {"namespace_prefix", "users."}});
  EXPECT_EQ(both["code"], -32602);
  EXPECT_EQ(both["data"]["field"], "namespace_prefix");
  json bad = Err("memory.list", {{"namespace_prefix", "users/alice"}});
  EXPECT_EQ(bad["data"]["field"], "namespace_prefix");
  EXPECT_NE(bad["message"].get<std::string>().find("[A-Za-z0-9_.:*-]"), std::string::npos);
}

// The parameter schema and the engine share one blank test (text::IsBlank).
TEST_F(Methods, AKeyOfUnicodeSpacesIsRefusedAsBlank) {
  json e = Err("memory.store", {{"key", "\xE3\x80\x80"}, {"value", "v"}});
  EXPECT_EQ(e["code"], -32602) << e.dump();
  EXPECT_NE(e["message"].get<std::string>().find("blank"), std::string::npos) << e.dump();
}

TEST_F(Methods, ToolRuleCountCountsWhatTheListGives) {
  EXPECT_EQ(Ok("memory.tool_rule_count", json::object())["count"], 0);
  Ok("memory.tool_rule_put", {{"tool_name", "send_email"}, {"rule", "never email Sarah"}});
  Ok("memory.tool_rule_put", {{"tool_name", "Send_Email"}, {"rule", "cc the team lead"}});
  Ok("memory.tool_rule_put", {{"tool_name", "shell"}, {"rule", "no sudo"}});
  EXPECT_EQ(Ok("memory.tool_rule_count", {{"tool_name", "SEND_EMAIL"}})["count"], 2);
  EXPECT_EQ(Ok("memory.tool_rule_count", {{"tool_name", "shell"}})["count"], 1);
  EXPECT_EQ(Ok("memory.tool_rule_count", {{"tool_name", "calendar"}})["count"], 0);
  EXPECT_EQ(Ok("memory.tool_rule_count", json::object())["count"], 3);
  // The service checks the name, as for the other rule methods.
  EXPECT_EQ(Err("memory.tool_rule_count", {{"tool_name", "bad name!"}})["data"]["field"],
            "tool_name");
  // The C++ caller gets the same method with the same checks.
  Result<int64_t> direct = engine_->rules().Count(who_, "send_email");
  ASSERT_TRUE(direct.ok()) << direct.status().ToString();
  EXPECT_EQ(*direct, 2);
  Config off;
  off.memory.enabled = false;
  Open(off);
  EXPECT_EQ(engine_->rules().Count(who_, std::nullopt).status().code(), StatusCode::kDisabled);
}

TEST(RenderText, RecallRoundsScoresToPercent) {
  const MethodSpec* recall = DefaultMethodTable().Find("memory.recall");
  json result = {{"results",
                  {{{"source", "entry"},
                    {"category", "core"},
                    {"key", "k"},
                    {"content", "c"},
                    {"score", 0.85}}}}};
  EXPECT_EQ(RenderText(*recall, {{"query", "q"}}, result), "- [entry/core] k: c [85%]");
  EXPECT_EQ(RenderText(*recall, {{"query", "q"}}, {{"results", json::array()}}),
            "No memories found for: q");
}

TEST(RenderText, SearchUsesTheSnippet) {
  const MethodSpec* search = DefaultMethodTable().Find("memory.search");
  json result = {{"results",
                  {{{"namespace", "global"},
                    {"category", "core"},
                    {"key", "k"},
                    {"content", "long content"},
                    {"snippet", "**long**"},
                    {"score", 0.5}}}}};
  EXPECT_EQ(RenderText(*search, {{"query", "long"}}, result), "- [global/core] k: **long** [50%]");
}

}  // namespace
}  // namespace mnemo::transport

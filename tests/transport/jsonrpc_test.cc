#include "transport/rpc/jsonrpc.h"

#include <gtest/gtest.h>

#include "rpc_fixture.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

using JsonRpc = RpcTest;

TEST(JsonRpcErrorCode, MapsEveryStatusCode) {
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kInvalidArgument), -32602);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kNotFound), -32001);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kPermissionDenied), -32002);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kDisabled), -32003);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kConflict), -32004);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kUnavailable), -32005);
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kInternal), -32000);
}

TEST(ErrorObject, InternalErrorsHideTheirMessage) {
  json e = ErrorObject(Internal("SELECT * FROM entries failed: disk I/O error"), "memory.get");
  EXPECT_EQ(e["code"], -32000);
  std::string msg = e["message"];
  EXPECT_EQ(msg.find("SELECT"), std::string::npos) << msg;
  ASSERT_TRUE(e["data"].contains("request_id"));
  EXPECT_NE(msg.find(e["data"]["request_id"].get<std::string>()), std::string::npos);
}

// Issue 19: damaged stored data is its own code, answered like an internal
// error (logged, details hidden) but saying what happened.
TEST(ErrorObject, DamagedDataIsNamedWithoutItsDetails) {
  EXPECT_EQ(JsonRpcErrorCode(StatusCode::kCorruption), -32000);
  json e = ErrorObject(Corruption("index file /srv/ws/x.idx is corrupt: checksum mismatch"),
                       "memory.search");
  EXPECT_EQ(e["code"], -32000);
  std::string msg = e["message"];
  EXPECT_EQ(msg.find("/srv/ws"), std::string::npos) << msg;
  EXPECT_NE(msg.find("stored data is damaged"), std::string::npos) << msg;
  EXPECT_NE(msg.find(e["data"]["request_id"].get<std::string>()), std::string::npos);
}

TEST(ErrorObject, CarriesTheField) {
  json e = ErrorObject(InvalidArgument("key must not be blank", "key"));
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["data"]["field"], "key");
  EXPECT_TRUE(e["data"].contains("request_id"));
}

TEST_F(JsonRpc, MalformedJsonIsAParseError) {
  json r = Raw("{\"jsonrpc\": \"2.0\", \"method\": ");
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_TRUE(r["id"].is_null());
}

TEST_F(JsonRpc, InvalidUtf8IsAParseError) {
  json r =
      Raw("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"memory.store\",\"params\":{\"key\":\"k\","
          "\"value\":\"\xff\xfe\"}}");
  EXPECT_EQ(r["error"]["code"], -32700);
  EXPECT_EQ(Ok("memory.stats", nullptr)["entries"], 0);
}

TEST_F(JsonRpc, DeepNestingIsRefusedNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  json r = Raw(R"({"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":)" + deep +
               R"(,"value":"v"}})");
  EXPECT_EQ(r["error"]["code"], -32600);
  // Inside tool arguments the same limit fails the tool, not the call.
  json args_text = Ok("memory.tool_call", {{"name", "memory_store"}, {"arguments", deep}});
  EXPECT_EQ(args_text["is_error"], true);
  EXPECT_NE(args_text["content"].get<std::string>().find("nests deeper"), std::string::npos);
  // Brackets inside strings do not count.
  EXPECT_EQ(Ok("memory.store", {{"key", "k"}, {"value", std::string(1000, '[')}})["created"], true);
}

// Issue 42, item 7: RFC 8259 leaves duplicate names to the reader; two
// readers of one request (a proxy, mnemo) must not see two requests.
TEST_F(JsonRpc, DuplicateKeysAreRefusedNamingTheKey) {
  json r = Raw(R"({"jsonrpc":"2.0","id":1,"method":"memory.store",)"
               R"("params":{"key":"a","value":"v","key":"b"}})");
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find(R"(the key "key" appears twice)"),
            std::string::npos)
      << r.dump();
  r = Raw(R"({"jsonrpc":"2.0","id":1,"id":2,"method":"memory.stats"})");
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  // Deep inside, and in a batch member.
  r = Raw(R"([{"jsonrpc":"2.0","id":1,"method":"memory.stats","params":{"x":[{"a":1,"a":2}]}}])");
  EXPECT_EQ(r["error"]["code"], -32600) << r.dump();
  EXPECT_EQ(Ok("memory.stats", nullptr)["entries"], 0);
  // The same name in sibling or nested objects is not a duplicate.
  r = Raw(R"({"jsonrpc":"2.0","id":1,"method":"memory.store",)"
          R"("params":{"key":"k","value":"v","tags":["a"],"meta":{"key":{"key":1}}}})");
  EXPECT_FALSE(r.contains("error") && r["error"]["code"] == -32600) << r.dump();
  // Control characters in a duplicate name are escaped in the message.
  r = Raw("{\"a\\u0001\":1,\"a\\u0001\":2}");
  EXPECT_NE(r["error"]["message"].get<std::string>().find("\\u0001"), std::string::npos)
      << r.dump();
}

TEST_F(JsonRpc, WrongEnvelopesAreInvalidRequests) {
  for (const char* body : {
           R"({"id":1,"method":"memory.stats"})",                        // no jsonrpc
           R"({"jsonrpc":"1.0","id":1,"method":"memory.stats"})",        // wrong version
           R"({"jsonrpc":2.0,"id":1,"method":"memory.stats"})",          // version not a string
           R"({"jsonrpc":"2.0","id":1})",                                // no method
           R"({"jsonrpc":"2.0","id":1,"method":7})",                     // method not a string
           R"({"jsonrpc":"2.0","id":{"a":1},"method":"memory.stats"})",  // bad id type
           R"({"jsonrpc":"2.0","id":[1],"method":"memory.stats"})",
           R"({"jsonrpc":"2.0","id":1,"method":"memory.stats","params":"x"})",
           R"([])",    // empty batch
           R"("hi")",  // not an object
           R"(42)",
       }) {
    json r = Raw(body);
    ASSERT_TRUE(r.is_object()) << body << " -> " << r.dump();
    EXPECT_EQ(r["error"]["code"], -32600) << body << " -> " << r.dump();
    EXPECT_EQ(r["jsonrpc"], "2.0");
  }
}

TEST_F(JsonRpc, InvalidRequestKeepsAValidId) {
  json r = Raw(R"({"id":"abc","method":"memory.stats"})");
  EXPECT_EQ(r["id"], "abc");
  EXPECT_EQ(r["error"]["code"], -32600);
}

TEST_F(JsonRpc, UnknownMethodNamesItAndPointsAtMethods) {
  json e = Err("memory.nope", json::object());
  EXPECT_EQ(e["code"], -32601);
  std::string msg = e["message"];
  EXPECT_NE(msg.find("memory.nope"), std::string::npos);
  EXPECT_NE(msg.find("memory.methods"), std::string::npos);
}

TEST_F(JsonRpc, EchoesIdsOfEveryAllowedType) {
  for (json id : {json(1), json("x-1"), json(nullptr), json(2.5)}) {
    json req = {{"jsonrpc", "2.0"}, {"id", id}, {"method", "memory.stats"}};
    json r = Raw(req.dump());
    EXPECT_EQ(r["id"], id);
    EXPECT_TRUE(r.contains("result"));
  }
}

TEST_F(JsonRpc, NotificationsGetNoResponseButRun) {
  EXPECT_TRUE(Raw(R"({"jsonrpc":"2.0","method":"memory.store","params":{"key":"n","value":"v"}})")
                  .is_null());
  EXPECT_TRUE(Raw(R"({"jsonrpc":"2.0","method":"memory.nope"})").is_null());
  EXPECT_EQ(Ok("memory.get", {{"key", "n"}})["content"], "v");
}

TEST_F(JsonRpc, BatchAnswersEachRequestAndSkipsNotifications) {
  json r = Raw(R"([
    {"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":"a","value":"alpha"}},
    {"jsonrpc":"2.0","method":"memory.store","params":{"key":"b","value":"beta"}},
    {"jsonrpc":"2.0","id":2,"method":"memory.nope"},
    17,
    {"jsonrpc":"2.0","id":3,"method":"memory.get","params":{"key":"b"}}
  ])");
  ASSERT_TRUE(r.is_array()) << r.dump();
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0]["id"], 1);
  EXPECT_EQ(r[0]["result"]["created"], true);
  EXPECT_EQ(r[1]["error"]["code"], -32601);
  EXPECT_EQ(r[2]["error"]["code"], -32600);
  EXPECT_EQ(r[3]["result"]["content"], "beta");
}

TEST_F(JsonRpc, BatchOfNotificationsHasNoResponse) {
  EXPECT_TRUE(Raw(R"([{"jsonrpc":"2.0","method":"memory.stats"}])").is_null());
}

TEST_F(JsonRpc, NotFoundIs32001WithTheSpecText) {
  json e = Err("memory.get", {{"key", "missing"}});
  EXPECT_EQ(e["code"], -32001);
  EXPECT_EQ(e["message"], "No memory entry found for key: missing");
  EXPECT_TRUE(e["data"].contains("request_id"));
}

TEST_F(JsonRpc, RecallUnderAclIsDisabled) {
  Config c;
  c.memory.acl_enabled = true;
  Open(c);
  json e = Err("memory.recall", {{"query", "x"}});
  EXPECT_EQ(e["code"], -32003);
}

// Issue 45: the handlers call the engine's public services, which check
// memory.enabled once, as they do for a C++ caller; the methods about the
// table and the path guard answer.
TEST_F(JsonRpc, DisabledMemoryRefusesEveryMemoryMethodInItsService) {
  Config c;
  c.memory.enabled = false;
  Open(c);
  for (const auto& [method, params] : std::vector<std::pair<std::string, json>>{
           {"memory.stats", json::object()},
           {"memory.store", {{"key", "k"}, {"value", "v"}}},
           {"memory.search", {{"query", "x"}}},
           {"memory.tool_list", json::object()},
           {"memory.tool_rule_list", {{"tool_name", "send_email"}}},
           {"memory.profile", json::object()},
           {"memory.doc_list", json::object()},
           {"memory.graph_query", json::object()},
           {"memory.context_build", {{"query", "x"}}}}) {
    json e = Err(method, params);
    EXPECT_EQ(e["code"], -32003) << method << ": " << e.dump();
    EXPECT_NE(e["message"].get<std::string>().find("memory.enabled = false"), std::string::npos)
        << method;
  }
  EXPECT_FALSE(Ok("memory.methods", json::object())["methods"].empty());
  EXPECT_TRUE(Ok("memory.path_protected", {{"path", "/etc/passwd"}}).contains("protected"));
  // A tool run through memory.tool_call fails as a tool, not as the call.
  json tool = Ok("memory.tool_call", {{"name", "memory_search"}, {"arguments", {{"query", "x"}}}});
  EXPECT_TRUE(tool["is_error"].get<bool>()) << tool.dump();
}

TEST_F(JsonRpc, PositionalParamsAreRejected) {
  json e = Err("memory.get", json::array({"k"}));
  EXPECT_EQ(e["code"], -32602);
  EXPECT_EQ(e["data"]["field"], "params");
}

TEST_F(JsonRpc, CallWithoutEnvelopeRejectsUnknownMethods) {
  auto r = dispatcher_->Call("memory.nope", json::object(), who_);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("memory.store"), std::string::npos);
}

TEST_F(JsonRpc, ObserverSeesEveryCall) {
  std::vector<std::string> seen;
  std::mutex mu;
  Dispatcher d(
      *engine_, DefaultMethodTable(),
      DispatcherOptions{.observer = [&](std::string_view m, std::string_view outcome, double) {
        std::lock_guard lock(mu);
        seen.push_back(std::string(m) + ":" + std::string(outcome));
      }});
  (void)d.HandleText(R"({"jsonrpc":"2.0","id":1,"method":"memory.get","params":{"key":"x"}})",
                     who_);
  (void)d.HandleText("nope", who_);
  EXPECT_EQ(seen, (std::vector<std::string>{"memory.get:not_found", ":parse_error"}));
}

}  // namespace
}  // namespace mnemo::transport

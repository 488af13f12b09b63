// Spec 50, "Graph", end to end through the real daemon: facts stated over
// memory.graph_upsert and facts distilled from a conversation's segment
// document, with supersession kept as history.
#include <gtest/gtest.h>
#include <httplib.h>

#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

class GraphE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    http_->set_read_timeout(20, 0);
  }

  json Call(const std::string& method, const json& params) {
    auto r = http_->Post(
        "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
        "application/json");
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    return json::parse(r->body, nullptr, false);
  }

  json Result(const std::string& method, const json& params) {
    json r = Call(method, params);
    EXPECT_TRUE(r.contains("result")) << method << ": " << r.dump();
    return r.contains("result") ? r["result"] : json();
  }

  json Triples(const json& params) { return Result("memory.graph_query", params)["triples"]; }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(GraphE2e, AStatedMoveSupersedesTheOldPlaceAndKeepsItAsHistory) {
  json berlin = Result("memory.graph_upsert",
                       {{"subject", "user"}, {"predicate", "lives in"}, {"object", "Berlin"}});
  EXPECT_EQ(berlin["predicate"], "lives_in");
  EXPECT_EQ(berlin["id"].get<std::string>().size(), 36u);
  EXPECT_TRUE(berlin["valid_to"].is_null());
  EXPECT_TRUE(berlin["created"].get<bool>());
  EXPECT_DOUBLE_EQ(berlin["confidence"].get<double>(), 0.9);
  json lisbon = Result("memory.graph_upsert", {{"subject", "user"},
                                               {"predicate", "lives_in"},
                                               {"object", "Lisbon"},
                                               {"confidence", 0.7},
                                               {"source", "chat"}});
  ASSERT_EQ(lisbon["superseded"].size(), 1u) << lisbon.dump();
  EXPECT_EQ(lisbon["superseded"][0], berlin["id"]);
  EXPECT_EQ(lisbon["source"], "chat");

  json current = Triples({{"subject", "User"}, {"predicate", "Lives In"}});
  ASSERT_EQ(current.size(), 1u) << current.dump();
  EXPECT_EQ(current[0]["object"], "Lisbon");
  EXPECT_TRUE(current[0]["current"].get<bool>());

  json history = Triples({{"subject", "user"}, {"include_history", true}});
  ASSERT_EQ(history.size(), 2u) << history.dump();
  EXPECT_EQ(history[0]["object"], "Lisbon");
  EXPECT_EQ(history[1]["object"], "Berlin");
  EXPECT_EQ(history[1]["id"], berlin["id"]);
  EXPECT_FALSE(history[1]["current"].get<bool>());
  EXPECT_TRUE(history[1]["valid_to"].is_string());

  // A multi-valued predicate keeps both objects; a repeat is refreshed.
  Result("memory.graph_upsert", {{"subject", "user"}, {"predicate", "likes"}, {"object", "tea"}});
  Result("memory.graph_upsert",
         {{"subject", "user"}, {"predicate", "likes"}, {"object", "coffee"}});
  json again = Result("memory.graph_upsert",
                      {{"subject", "user"}, {"predicate", "likes"}, {"object", "Tea"}});
  EXPECT_FALSE(again["created"].get<bool>());
  EXPECT_EQ(Triples({{"predicate", "likes"}}).size(), 2u);
  EXPECT_EQ(Triples({{"object", "TEA"}}).size(), 1u);
}

TEST_F(GraphE2e, InvalidFactsAreRejectedNamingTheField) {
  json blank =
      Call("memory.graph_upsert", {{"subject", "  "}, {"predicate", "uses"}, {"object", "vim"}});
  ASSERT_TRUE(blank.contains("error")) << blank.dump();
  EXPECT_EQ(blank["error"]["code"], -32602);
  EXPECT_EQ(blank["error"]["data"]["field"], "subject");
  json big = Call("memory.graph_upsert",
                  {{"subject", "user"}, {"predicate", "uses"}, {"object", std::string(1025, 'x')}});
  ASSERT_TRUE(big.contains("error")) << big.dump();
  EXPECT_EQ(big["error"]["data"]["field"], "object");
  json confidence =
      Call("memory.graph_upsert",
           {{"subject", "user"}, {"predicate", "uses"}, {"object", "vim"}, {"confidence", 1.5}});
  ASSERT_TRUE(confidence.contains("error")) << confidence.dump();
  EXPECT_EQ(confidence["error"]["data"]["field"], "confidence");
  json missing = Call("memory.graph_upsert", {{"subject", "user"}, {"object", "vim"}});
  ASSERT_TRUE(missing.contains("error")) << missing.dump();
  EXPECT_EQ(missing["error"]["data"]["field"], "predicate");
  EXPECT_TRUE(Triples(json::object()).empty());
}

TEST_F(GraphE2e, AConversationIsDistilledIntoTriplesWhenItsSegmentCloses) {
  // Turn times just behind the real clock keep both turns in one segment
  // (process.h, MinutesAgo).
  auto turn = [&](const std::string& user, const std::string& assistant, const std::string& ts) {
    Result("memory.turn_complete", {{"session_id", "move"},
                                    {"user_message", user},
                                    {"assistant_response", assistant},
                                    {"timestamp", ts},
                                    {"sync", true}});
  };
  turn("I live in Berlin.", "Noted. I am a helpful assistant.", MinutesAgo(2));
  turn("I moved to Lisbon last month. 我喜欢咖啡。", "Lisbon is a lovely city.", MinutesAgo(1));
  json ended = Result("memory.session_end", {{"session_id", "move"}, {"sync", true}});
  ASSERT_TRUE(ended["closed"].get<bool>()) << ended.dump();

  json current = Triples({{"subject", "user"}, {"predicate", "lives_in"}});
  ASSERT_EQ(current.size(), 1u) << current.dump();
  EXPECT_EQ(current[0]["object"], "Lisbon");
  EXPECT_EQ(current[0]["sentence"], "I moved to Lisbon last month.");
  EXPECT_DOUBLE_EQ(current[0]["confidence"].get<double>(), 0.6);

  json history =
      Triples({{"subject", "user"}, {"predicate", "lives_in"}, {"include_history", true}});
  ASSERT_EQ(history.size(), 2u) << history.dump();
  EXPECT_EQ(history[1]["object"], "Berlin");
  EXPECT_FALSE(history[1]["current"].get<bool>());
  // Both come from the segment's document.
  const std::string source = current[0]["source"];
  EXPECT_FALSE(source.empty());
  EXPECT_EQ(history[1]["source"], source);

  EXPECT_EQ(Triples({{"subject", "user"}, {"predicate", "likes"}})[0]["object"], "咖啡");
  EXPECT_EQ(Triples({{"subject", "Lisbon"}})[0]["object"], "lovely city");
  // The assistant's "I" is not the user.
  EXPECT_TRUE(Triples({{"subject", "user"}, {"predicate", "is"}}).empty());
}

}  // namespace
}  // namespace mnemo::e2e

// Spec 50, documents and the context window, end to end through the real
// daemon: doc_put/get/search/list/delete, their ACL scope with bearer
// tokens, context_append/window/prune, and documents in memory_recall.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

using Rpc = RpcClient;

class DocumentsE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    rpc_ = std::make_unique<Rpc>(daemon_->port(), "");
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<Rpc> rpc_;
};

TEST_F(DocumentsE2e, PutGetSearchListDelete) {
  const std::string content =
      "Runbook: restart the billing service with systemctl restart billing.service.";
  json put = rpc_->Result("memory.doc_put", {{"content", content},
                                             {"source", "wiki://runbooks/billing"},
                                             {"meta", {{"team", "payments"}}}});
  ASSERT_TRUE(put["created"].get<bool>()) << put.dump();
  const std::string id = put["id"];
  json again = rpc_->Result("memory.doc_put", {{"content", content}});
  EXPECT_FALSE(again["created"].get<bool>());
  EXPECT_EQ(again["id"], id);

  json got = rpc_->Result("memory.doc_get", {{"id", id}});
  EXPECT_EQ(got["content"], content);
  EXPECT_EQ(got["source"], "wiki://runbooks/billing");
  EXPECT_EQ(got["meta"]["team"], "payments");
  EXPECT_EQ(got["access_count"], 1);
  EXPECT_EQ(got["content_hash"].get<std::string>().size(), 64u);
  EXPECT_TRUE(got["entities"].is_array());
  EXPECT_FALSE(got["summary"].get<std::string>().empty());
  EXPECT_EQ(rpc_->Result("memory.doc_get", {{"id", id}})["access_count"], 2);

  json zh = rpc_->Result("memory.doc_put", {{"content", "数据库迁移计划：周五切换到新集群。"}});
  json en_hits = rpc_->Result("memory.doc_search", {{"query", "restart billing"}})["results"];
  ASSERT_EQ(en_hits.size(), 1u) << en_hits.dump();
  EXPECT_EQ(en_hits[0]["id"], id);
  EXPECT_NE(en_hits[0]["snippet"].get<std::string>().find("**billing**"), std::string::npos);
  json zh_hits = rpc_->Result("memory.doc_search", {{"query", "数据库迁移"}})["results"];
  ASSERT_EQ(zh_hits.size(), 1u) << zh_hits.dump();
  EXPECT_EQ(zh_hits[0]["id"], zh["id"]);

  json list = rpc_->Result("memory.doc_list", {{"source", "wiki://"}});
  ASSERT_EQ(list["documents"].size(), 1u);
  EXPECT_FALSE(list["documents"][0].contains("content"));
  EXPECT_TRUE(list["next_offset"].is_null());

  EXPECT_TRUE(rpc_->Result("memory.doc_delete", {{"id", id}})["deleted"].get<bool>());
  EXPECT_FALSE(rpc_->Result("memory.doc_delete", {{"id", id}})["deleted"].get<bool>());
  json missing = rpc_->Call("memory.doc_get", {{"id", id}});
  ASSERT_TRUE(missing.contains("error")) << missing.dump();
  EXPECT_TRUE(rpc_->Result("memory.doc_search", {{"query", "restart billing"}})["results"].empty());
}

TEST_F(DocumentsE2e, ValidationErrorsNameTheField) {
  json bad_meta = rpc_->Call("memory.doc_put", {{"content", "x"}, {"meta", json::array()}});
  ASSERT_TRUE(bad_meta.contains("error")) << bad_meta.dump();
  EXPECT_EQ(bad_meta["error"]["data"]["field"], "meta");
  json empty = rpc_->Call("memory.doc_put", {{"content", ""}});
  EXPECT_EQ(empty["error"]["data"]["field"], "content");
  json source =
      rpc_->Call("memory.doc_put", {{"content", "x"}, {"source", std::string(1025, 's')}});
  EXPECT_EQ(source["error"]["data"]["field"], "source");
  json event =
      rpc_->Call("memory.context_append",
                 {{"session_id", "s"}, {"event", {{"tool_results", {{{"output", "x"}}}}}}});
  EXPECT_EQ(event["error"]["data"]["field"], "event.tool_results[0].name") << event.dump();
}

TEST_F(DocumentsE2e, ContextWindowPruneAndRecall) {
  for (int i = 0; i < 8; ++i) {
    json event = {
        {"input", i == 0 ? "The staging database password rotates on Mondays"
                         : "small talk number " + std::to_string(i)},
        {"response", "ok"},
        {"tool_results",
         {{{"name", "shell"}, {"output", "exit " + std::to_string(i)}, {"success", true}}}}};
    json r = rpc_->Result("memory.context_append", {{"session_id", "w"}, {"event", event}});
    EXPECT_EQ(r["seq"], i);
  }
  const std::string raw = R"({"input": "raw  text kept", "response":"sure"})";
  json r = rpc_->Result("memory.context_append", {{"session_id", "w"}, {"event_json", raw}});
  EXPECT_EQ(r["seq"], 8);

  json w =
      rpc_->Result("memory.context_window", {{"session_id", "w"},
                                             {"query", "when does the database password rotate"},
                                             {"budget_chars", 400},
                                             {"protected", 3}});
  int64_t used = 0;
  int64_t last_seq = -1;
  bool has_relevant = false;
  for (const json& e : w["events"]) {
    used += e["chars"].get<int64_t>();
    EXPECT_GT(e["seq"].get<int64_t>(), last_seq);
    last_seq = e["seq"];
    if (e["seq"] == 0) has_relevant = true;
  }
  EXPECT_LE(used, 400);
  EXPECT_EQ(w["used_chars"], used);
  EXPECT_EQ(last_seq, 8);
  EXPECT_TRUE(has_relevant) << w.dump();
  EXPECT_EQ(w["events"].back()["text"], "user: raw  text kept\nassistant: sure");
  EXPECT_EQ(w["events"].back()["event"]["input"], "raw  text kept");

  json pruned = rpc_->Result("memory.context_prune", {{"session_id", "w"}, {"keep", 4}});
  EXPECT_EQ(pruned["pruned"], 5);
  EXPECT_EQ(pruned["kept"], 4);
  ASSERT_EQ(pruned["documents"].size(), 1u);
  EXPECT_EQ(pruned["documents"][0]["source"], "context:w#seq0-4");

  json after = rpc_->Result("memory.context_window",
                            {{"session_id", "w"}, {"query", "password"}, {"budget_chars", 100000}});
  EXPECT_EQ(after["total_events"], 4);
  EXPECT_EQ(after["events"][0]["seq"], 5);

  json hits = rpc_->Result("memory.doc_search", {{"query", "staging password"}})["results"];
  ASSERT_EQ(hits.size(), 1u) << hits.dump();
  json doc = rpc_->Result("memory.doc_get", {{"id", hits[0]["id"]}});
  EXPECT_EQ(doc["source"], "context:w#seq0-4");
  EXPECT_NE(doc["content"].get<std::string>().find("[tool] shell: exit 0"), std::string::npos);
  EXPECT_EQ(doc["meta"]["last_seq"], 4);

  json recall = rpc_->Result("memory.recall", {{"query", "staging database password"}});
  ASSERT_FALSE(recall["results"].empty()) << recall.dump();
  EXPECT_EQ(recall["results"][0]["source"], "document") << recall.dump();
}

TEST(DocumentsAclE2e, AnotherPrincipalsDocumentsAreNotFound) {
  testing::TempDir dir;
  {
    std::ofstream toml(dir.Sub("mnemo.toml"));
    toml << "[memory]\nacl_enabled = true\n\n";
    for (const char* who : {"alice", "bob"}) {
      toml << "[[security.tokens]]\nprincipal = \"" << who << "\"\nrole = \"user\"\nsha256 = \""
           << internal::Sha256Hex(std::string(who) + "-token") << "\"\n";
    }
  }
  Daemon daemon(dir.path());
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  Rpc alice(daemon.port(), "alice-token");
  Rpc bob(daemon.port(), "bob-token");
  const std::string id =
      alice.Result("memory.doc_put", {{"content", "Alice's plan for the heron migration."}})["id"];
  json steal = bob.Call("memory.doc_get", {{"id", id}});
  json missing = bob.Call("memory.doc_get", {{"id", "no-such-document"}});
  ASSERT_TRUE(steal.contains("error")) << steal.dump();
  EXPECT_EQ(steal["error"]["code"], missing["error"]["code"]);
  EXPECT_EQ(steal["error"]["message"].get<std::string>().find("denied"), std::string::npos);
  EXPECT_TRUE(bob.Result("memory.doc_search", {{"query", "heron migration"}})["results"].empty());
  EXPECT_TRUE(bob.Result("memory.doc_list", json::object())["documents"].empty());
  EXPECT_FALSE(bob.Result("memory.doc_delete", {{"id", id}})["deleted"].get<bool>());
  json mine = alice.Result("memory.doc_get", {{"id", id}});
  EXPECT_EQ(mine["access_count"], 1);
  EXPECT_EQ(alice.Result("memory.doc_search", {{"query", "heron"}})["results"].size(), 1u);
  EXPECT_EQ(daemon.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace mnemo::e2e

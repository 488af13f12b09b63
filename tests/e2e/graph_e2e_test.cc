// Spec 50, "Graph", end to end through the real daemon: facts stated over
// memory.graph_upsert and facts distilled from a conversation's segment
// document, with supersession kept as history.
#include <gtest/gtest.h>
#include <httplib.h>

#include <signal.h>

#include <fstream>
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

// A user's deletion and correction of triples distilled from a document
// survive `mnemo reindex` (docs/storage.md, "Reindex"): reindex keeps the
// stored triples instead of extracting the document's triples again.
TEST_F(GraphE2e, ReindexKeepsDeletedTriplesGoneAndCorrectedOnesCorrected) {
  json put = Result("memory.doc_put",
                    {{"content", "I live in Qoslo. Alice uses Qvimx. Bob works for Qacme Corp."}});
  ASSERT_TRUE(put.contains("id")) << put.dump();
  json vim = Triples({{"subject", "Alice"}, {"predicate", "uses"}});
  ASSERT_EQ(vim.size(), 1u) << vim.dump();
  EXPECT_EQ(vim[0]["object"], "Qvimx");
  EXPECT_EQ(vim[0]["source"], put["id"]);
  json job = Triples({{"subject", "Bob"}, {"predicate", "works_at"}});
  ASSERT_EQ(job.size(), 1u) << job.dump();
  EXPECT_EQ(job[0]["object"], "Qacme Corp");

  EXPECT_EQ(Result("memory.graph_delete", {{"id", vim[0]["id"]}})["deleted"], true);
  json fixed = Result("memory.graph_correct", {{"id", job[0]["id"]}, {"object", "Qinitech"}});
  EXPECT_EQ(fixed["object"], "Qinitech") << fixed.dump();

  http_.reset();
  ASSERT_EQ(daemon_->Stop(SIGTERM), 0) << daemon_->Stderr();
  RunResult reindex = RunMnemo({"--workspace", dir_.path(), "--json", "reindex"});
  ASSERT_EQ(reindex.exit_code, 0) << reindex.err;
  json report = json::parse(reindex.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << reindex.out;
  EXPECT_EQ(report["documents_reindexed"], 1) << reindex.out;
  SetUp();

  const json all = Triples({{"include_history", true}});
  ASSERT_EQ(all.size(), 2u) << all.dump();
  EXPECT_EQ(all.dump().find("Qvimx"), std::string::npos) << all.dump();
  // The corrected triple keeps its provenance (the sentence); no triple
  // states the wrong object.
  for (const json& t : all) EXPECT_NE(t["object"], "Qacme Corp") << all.dump();
  json corrected = Triples({{"subject", "Bob"}, {"predicate", "works_at"}});
  ASSERT_EQ(corrected.size(), 1u) << corrected.dump();
  EXPECT_EQ(corrected[0]["object"], "Qinitech");
  EXPECT_EQ(corrected[0]["id"], fixed["id"]);
  json home = Triples({{"subject", "user"}, {"predicate", "lives_in"}});
  ASSERT_EQ(home.size(), 1u) << home.dump();
  EXPECT_EQ(home[0]["object"], "Qoslo");
}

// What reindex still takes away: a triple whose sentence the document's
// text no longer yields a triple from (here one an older extraction read
// into a question), while the others keep their ids.
TEST(GraphReindex, DropsATripleItsSentenceNoLongerYieldsAndKeepsTheRest) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  const std::string doc_id = "d0c0e2e0-0000-4000-8000-000000000001";
  const json doc = {{"type", "document"}, {"id", doc_id},
                    {"owner", "local"},   {"source", "notes"},
                    {"meta", "{}"},       {"content", "Do you live in Qberlin? Alice uses Qvimx."},
                    {"created_at", 1000}, {"updated_at", 1000}};
  auto triple = [&](const std::string& id, const std::string& subject, const std::string& predicate,
                    const std::string& object, const std::string& sentence) {
    return json{
        {"type", "triple"},       {"id", id},           {"owner", "local"},  {"subject", subject},
        {"predicate", predicate}, {"object", object},   {"confidence", 0.6}, {"source", doc_id},
        {"sentence", sentence},   {"valid_from", 1000}, {"valid_to", 0},     {"created_at", 1000}};
  };
  const std::string kept = "7e000000-0000-4000-8000-000000000001";
  const std::string file = dir.Sub("old.jsonl");
  std::ofstream(file, std::ios::binary)
      << json{{"mnemo_export", 2}, {"counts", {{"documents", 1}, {"triples", 2}}}}.dump() << "\n"
      << doc.dump() << "\n"
      << triple("7e000000-0000-4000-8000-000000000002", "user", "lives_in", "Qberlin",
                "Do you live in Qberlin?")
             .dump()
      << "\n"
      << triple(kept, "Alice", "uses", "Qvimx", "Alice uses Qvimx.").dump() << "\n";
  RunResult imported = RunMnemo({"--workspace", ws, "--json", "import", file});
  ASSERT_EQ(imported.exit_code, 0) << imported.err << imported.out;
  RunResult reindex = RunMnemo({"--workspace", ws, "--json", "reindex"});
  ASSERT_EQ(reindex.exit_code, 0) << reindex.err;
  RunResult query = RunMnemo(
      {"--workspace", ws, "--json", "rpc", "memory.graph_query", R"({"include_history":true})"});
  ASSERT_EQ(query.exit_code, 0) << query.err;
  const json triples = json::parse(query.out, nullptr, false)["triples"];
  ASSERT_EQ(triples.size(), 1u) << query.out;
  EXPECT_EQ(triples[0]["object"], "Qvimx");
  EXPECT_EQ(triples[0]["id"], kept);
}

}  // namespace
}  // namespace mnemo::e2e

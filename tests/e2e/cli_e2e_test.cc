// The real `mnemo` CLI and `mnemo rpc --stdio` against temp workspaces.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

class Cli : public ::testing::Test {
 protected:
  RunResult Mnemo(std::vector<std::string> args, const std::string& workspace = {}) {
    args.insert(args.begin(), {"--workspace", workspace.empty() ? ws_ : workspace});
    return RunMnemo(args);
  }

  json Json(std::vector<std::string> args, const std::string& workspace = {}) {
    args.insert(args.begin(), "--json");
    RunResult r = Mnemo(args, workspace);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }

  static void Write(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
  }

  testing::TempDir dir_;
  std::string ws_ = dir_.Sub("ws");
};

TEST_F(Cli, StoreSearchGetExportImportForget) {
  RunResult r =
      Mnemo({"memory", "store", "editor", "The user edits with Helix", "--tags", "tools,pref"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "Stored memory: editor\n");
  ASSERT_EQ(Mnemo({"memory", "store", "shell", "fish shell", "--category", "daily", "--namespace",
                   "work"})
                .exit_code,
            0);

  json found = Json({"memory", "search", "Helix"});
  ASSERT_FALSE(found["results"].empty()) << found.dump();
  EXPECT_EQ(found["results"][0]["key"], "editor");
  r = Mnemo({"memory", "search", "Helix"});
  EXPECT_NE(r.out.find("SCORE"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("editor"), std::string::npos);

  json got = Json({"memory", "get", "editor"});
  EXPECT_EQ(got["content"], "The user edits with Helix");
  EXPECT_EQ(got["tags"], json::array({"tools", "pref"}));
  EXPECT_EQ(Json({"memory", "get", "shell", "--namespace", "work"})["category"], "daily");

  const std::string file = dir_.Sub("export.jsonl");
  r = Mnemo({"export", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  RunResult to_stdout = Mnemo({"export"});
  // The header, then the two entries.
  EXPECT_EQ(std::count(to_stdout.out.begin(), to_stdout.out.end(), '\n'), 3) << to_stdout.out;

  const std::string fresh = dir_.Sub("fresh");
  r = Mnemo({"import", file}, fresh);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << "no progress bar without a terminal: " << r.err;
  json before = Json({"memory", "list"});
  json after = Json({"memory", "list"}, fresh);
  EXPECT_EQ(before["items"].size(), 2u);
  EXPECT_EQ(before, after);

  r = Mnemo({"memory", "forget", "editor"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "Forgot memory: editor\n");
  r = Mnemo({"memory", "forget", "editor"});
  EXPECT_EQ(r.out, "No memory found with key: editor\n");
  EXPECT_EQ(Json({"memory", "list"})["items"].size(), 1u);
}

TEST_F(Cli, ListStatsAndHumanOutput) {
  ASSERT_EQ(Mnemo({"memory", "store", "a", "alpha"}).exit_code, 0);
  ASSERT_EQ(Mnemo({"memory", "store", "b", "beta", "--category", "daily"}).exit_code, 0);
  json page = Json({"memory", "list", "--category", "daily", "--limit", "5"});
  ASSERT_EQ(page["items"].size(), 1u);
  EXPECT_EQ(page["items"][0]["key"], "b");
  EXPECT_TRUE(page["next_offset"].is_null());
  RunResult r = Mnemo({"memory", "list"});
  EXPECT_NE(r.out.find("KEY"), std::string::npos);
  EXPECT_NE(r.out.find("alpha"), std::string::npos);
  EXPECT_EQ(Json({"memory", "stats"})["entries"], 2);
  r = Mnemo({"memory", "get", "a"});
  EXPECT_NE(r.out.find("alpha"), std::string::npos);
}

TEST_F(Cli, ExitCodesForUserErrors) {
  RunResult r = Mnemo({"memory", "get", "missing"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("No memory entry found for key: missing"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  r = Mnemo({"memory", "store", " ", "v"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("key"), std::string::npos);
  r = Mnemo({"memory", "store", "k", "v", "--category", "Core!"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Core!"), std::string::npos) << r.err;
  r = Mnemo({"memory", "list", "--limit", "0"});
  EXPECT_EQ(r.exit_code, 1);
  r = Mnemo({"memory", "list", "--limit", "many"});
  EXPECT_EQ(r.exit_code, 1);
  r = Mnemo({"memory", "list", "--bogus"});
  EXPECT_EQ(r.exit_code, 1);
  r = Mnemo({"frobnicate"});
  EXPECT_EQ(r.exit_code, 1);
  r = RunMnemo({});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(Json({"memory", "stats"})["entries"], 0);
}

TEST_F(Cli, HelpAtEveryLevelAndVersion) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"memory", "--help"},
                                        {"memory", "store", "--help"},
                                        {"serve", "--help"},
                                        {"rpc", "--help"},
                                        {"import", "--help"},
                                        {"bench", "--help"}}) {
    RunResult r = RunMnemo(args);
    EXPECT_EQ(r.exit_code, 0) << args.back() << r.err;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << r.out;
  }
  RunResult v = RunMnemo({"version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.out.rfind("mnemo ", 0), 0u) << v.out;
}

// An answer that could not be written is not a success: a store through a
// full disk (/dev/full) exits 2 and says so, and what it stored is there.
TEST_F(Cli, UnwritableOutputIsAnError) {
  const std::string command = std::string(kBinary) + " --workspace " + ws_ +
                              " memory store k v > /dev/full 2> " + dir_.Sub("err.txt");
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  std::ifstream err(dir_.Sub("err.txt"));
  std::stringstream text;
  text << err.rdbuf();
  EXPECT_NE(text.str().find("cannot write the output"), std::string::npos) << text.str();
  EXPECT_EQ(Json({"memory", "get", "k"})["content"], "v");
}

TEST_F(Cli, CorruptConfigIsAClearUserError) {
  std::filesystem::create_directories(ws_);
  Write(ws_ + "/mnemo.toml", "[memory\nbackend = ");
  RunResult r = Mnemo({"memory", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("configuration"), std::string::npos) << r.err;
  Write(ws_ + "/mnemo.toml", "[memory]\nbackend = \"floppy\"\n");
  r = Mnemo({"memory", "list"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("backend"), std::string::npos) << r.err;
  r = RunMnemo({"--workspace", ws_, "--config", dir_.Sub("nope.toml"), "memory", "list"});
  EXPECT_EQ(r.exit_code, 1);
}

TEST_F(Cli, MissingWorkspaceIsCreatedAndUnusableOneIsRefused) {
  RunResult r = Mnemo({"memory", "store", "k", "v"}, dir_.Sub("new/nested"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Write(dir_.Sub("plainfile"), "x");
  r = Mnemo({"memory", "store", "k", "v"}, dir_.Sub("plainfile/ws"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.exit_code, 2) << "an unusable workspace is the user's to fix: " << r.err;
  EXPECT_FALSE(r.err.empty());
}

TEST_F(Cli, InternalErrorsExitWith2) {
  std::filesystem::create_directories(ws_);
  Write(ws_ + "/mnemo.db", std::string(8192, '\x5a'));
  RunResult r = Mnemo({"memory", "list"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(r.err.empty());
}

TEST_F(Cli, ExportAndImportCarryTurnsSegmentsAndDocuments) {
  for (int t = 0; t < 3; ++t) {
    json turn = {{"session_id", "s1"},
                 {"user_message", "We deploy the billing service, step " + std::to_string(t)},
                 {"assistant_response", "Deploying step " + std::to_string(t)},
                 {"tool_calls", json::array({{{"name", "shell"},
                                              {"arguments", {{"cmd", "make"}}},
                                              {"success", t != 1},
                                              {"output", "built"}}})},
                 {"sync", true}};
    RunResult r = Mnemo({"rpc", "memory.turn_complete", turn.dump()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  ASSERT_EQ(Mnemo({"rpc", "memory.session_end", R"({"session_id":"s1","sync":true})"}).exit_code,
            0);
  const std::string file = dir_.Sub("backup.jsonl");
  RunResult r = Mnemo({"export", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(file);
  std::string first;
  std::getline(in, first);
  json header = json::parse(first);
  EXPECT_EQ(header["mnemo_export"], 2);
  EXPECT_EQ(header["counts"]["turns"], 6);

  const std::string fresh = dir_.Sub("fresh");
  r = Mnemo({"--json", "import", file}, fresh);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["records"]["turns"], 6) << r.out;
  for (const char* method : {"memory.session_turns", "memory.segments", "memory.doc_list"}) {
    const std::string params = R"({"session_id":"s1"})";
    RunResult want =
        Mnemo({"rpc", method, std::string(method) == "memory.doc_list" ? "{}" : params});
    RunResult got =
        Mnemo({"rpc", method, std::string(method) == "memory.doc_list" ? "{}" : params}, fresh);
    EXPECT_EQ(want.exit_code, 0) << want.err;
    EXPECT_EQ(want.out, got.out) << method;
  }
  // Not into a workspace that holds something, unless --merge.
  r = Mnemo({"import", file}, fresh);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--merge"), std::string::npos) << r.err;
  r = Mnemo({"import", "--merge", file}, fresh);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(Cli, TruncatedImportLineImportsNothing) {
  const std::string file = dir_.Sub("bad.jsonl");
  Write(file,
        "{\"key\":\"a\",\"content\":\"one\"}\n{\"key\":\"b\",\"content\":\"tw\n"
        "{\"key\":\"c\",\"content\":\"three\"}\n");
  RunResult r = Mnemo({"import", file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_EQ(Json({"memory", "stats"})["entries"], 0);
  r = Mnemo({"import", dir_.Sub("absent.jsonl")});
  EXPECT_EQ(r.exit_code, 1);
}

TEST_F(Cli, RpcOneCall) {
  RunResult r = Mnemo({"rpc", "memory.store", R"({"key":"k","content":"v"})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["created"], true);
  r = Mnemo({"rpc", "memory.get", R"({"key":"nope"})"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("-32001"), std::string::npos) << r.err;
  r = Mnemo({"rpc", "memory.get", "{not json"});
  EXPECT_EQ(r.exit_code, 1);
  r = Mnemo({"rpc", "memory.nope"});
  EXPECT_EQ(r.exit_code, 1);
  json methods = json::parse(Mnemo({"rpc", "memory.methods"}).out);
  EXPECT_GE(methods["methods"].size(), 11u);
}

TEST_F(Cli, RpcStdioAnswersLineByLine) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":"k","value":"v"}})"
      "\n"
      R"({"jsonrpc":"2.0","method":"memory.stats"})"
      "\n{broken\n"
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"memory.store\",\"params\":{\"key\":\"\xff\","
      "\"value\":\"v\"}}\n"
      R"([{"jsonrpc":"2.0","id":3,"method":"memory.get","params":{"key":"k"}}])"
      "\n" +
      std::string(50000, '[') + "\n";
  RunResult r = RunMnemo({"--workspace", ws_, "rpc", "--stdio"}, input);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<json> out;
  for (std::string line; std::getline(lines, line);) out.push_back(json::parse(line));
  ASSERT_EQ(out.size(), 5u) << r.out;
  EXPECT_EQ(out[0]["result"]["created"], true);
  EXPECT_EQ(out[1]["error"]["code"], -32700);
  EXPECT_EQ(out[2]["error"]["code"], -32700);
  EXPECT_EQ(out[3][0]["result"]["content"], "v");
  EXPECT_EQ(out[4]["error"]["code"], -32600);
}

// `mnemo hygiene run` archives a daily note and deletes a conversation entry
// last written years ago, keeps core, and reports it; archived entries leave
// search but --include-archived and get still reach them.
// Issue 20: `mnemo inspect` points at the daemon that answers at the
// configured address, and does not start a second one.
TEST(CliInspect, PrintsTheUrlOfTheRunningDaemon) {
  testing::TempDir dir;
  Daemon daemon(dir.path());
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  {
    std::ofstream toml(dir.path() + "/mnemo.toml");
    toml << "[server]\nlisten = \"127.0.0.1:" << daemon.port() << "\"\n";
  }
  RunResult r = RunMnemo({"--workspace", dir.path(), "inspect"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "inspector: http://127.0.0.1:" + std::to_string(daemon.port()) + "/\n");
}

TEST(CliHygiene, RunArchivesAndDeletesOldEntriesAndReports) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  // The first open of a workspace runs hygiene (due: never ran); let that
  // happen on the empty store so the explicit run below does the work.
  ASSERT_EQ(RunMnemo({"--workspace", ws, "memory", "stats"}).exit_code, 0);
  const std::string old =
      R"(,"created_at":"2020-01-01T00:00:00Z","updated_at":"2020-01-01T00:00:00Z"})";
  const std::string file = dir.File("old.jsonl");
  std::ofstream(file) << R"({"key":"note","content":"pelican daily note","category":"daily")" << old
                      << "\n"
                      << R"({"key":"chat","content":"pelican chat","category":"conversation")"
                      << old << "\n"
                      << R"({"key":"fact","content":"pelican fact","category":"core")" << old
                      << "\n";
  RunResult imported = RunMnemo({"--workspace", ws, "import", file});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  RunResult run = RunMnemo({"--workspace", ws, "--json", "hygiene", "run"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  auto j = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(j.is_object()) << run.out;
  EXPECT_EQ(j["archived"], 1);
  EXPECT_EQ(j["deleted"], 1);
  EXPECT_GE(j["scanned"].get<int>(), 3);
  RunResult human = RunMnemo({"--workspace", ws, "hygiene", "run"});
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("0 archived, 0 deleted"), std::string::npos) << human.out;

  RunResult found = RunMnemo({"--workspace", ws, "--json", "memory", "search", "pelican"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  EXPECT_EQ(found.out.find("\"note\""), std::string::npos) << found.out;
  EXPECT_NE(found.out.find("\"fact\""), std::string::npos) << found.out;
  RunResult archived =
      RunMnemo({"--workspace", ws, "--json", "memory", "search", "pelican", "--include-archived"});
  ASSERT_EQ(archived.exit_code, 0) << archived.err;
  EXPECT_NE(archived.out.find("\"note\""), std::string::npos) << archived.out;
  EXPECT_EQ(archived.out.find("\"chat\""), std::string::npos) << archived.out;
  EXPECT_EQ(RunMnemo({"--workspace", ws, "memory", "get", "note"}).exit_code, 0);
  EXPECT_NE(RunMnemo({"--workspace", ws, "memory", "get", "chat"}).exit_code, 0);
}

}  // namespace
}  // namespace mnemo::e2e

namespace mnemo::e2e {
namespace {

TEST(CliReindex, FillsVectorsForANewEmbedderSignature) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  ASSERT_EQ(RunMnemo({"--workspace", ws, "memory", "store", "k1", "kites fly high"}).exit_code, 0);
  ASSERT_EQ(RunMnemo({"--workspace", ws, "memory", "store", "k2", "boats float"}).exit_code, 0);
  // Stored with the default hash-v2-384: nothing is missing.
  RunResult same = RunMnemo({"--workspace", ws, "--json", "reindex"});
  ASSERT_EQ(same.exit_code, 0) << same.err;
  auto j = nlohmann::json::parse(same.out);
  EXPECT_EQ(j["signature"], "hash-v2-384");
  EXPECT_EQ(j["embedded"], 0);
  EXPECT_EQ(j["indexed"], 2);
  // A new signature: every entry is embedded again, in its own space, by
  // the open itself (a workspace indexed with another embedder is reindexed
  // at open, progress on stderr), so reindex finds nothing left to embed.
  RunResult other = RunMnemo({"--workspace", ws, "--json", "reindex"}, "",
                             {{"MNEMO_EMBEDDING_DIMENSIONS", "128"}});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_THAT(other.err, ::testing::HasSubstr("reindexing: 2 of 2 entries"));
  auto k = nlohmann::json::parse(other.out);
  EXPECT_EQ(k["signature"], "hash-v2-128");
  EXPECT_EQ(k["embedded"], 0);
  EXPECT_EQ(k["indexed"], 2);
}

// A dataset without the exact neighbours its vector run scores against is
// refused by name, not read past its end.
TEST_F(Cli, BenchRefusesADatasetWithoutItsExactNeighbours) {
  const std::string ds = dir_.Sub("ds");
  std::filesystem::create_directories(ds);
  Write(ds + "/meta.json", R"({"dim": 2})");
  Write(ds + "/memories.jsonl", R"({"key": "m1", "content": "a golden retriever"})"
                                "\n");
  Write(ds + "/queries.jsonl", R"({"text": "dog", "relevant": ["m1"]})"
                               "\n");
  const float one[2] = {1.0F, 0.0F};
  const std::string vec(reinterpret_cast<const char*>(one), sizeof one);
  Write(ds + "/vectors.f32", vec);
  Write(ds + "/query_vectors.f32", vec);
  RunResult r = RunMnemo({"bench", "--dataset", ds, "--mode", "vector"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("gt_knn.jsonl"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("one per query"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mnemo::e2e

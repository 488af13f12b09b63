// The markdown backend through the real binary (issue 9): a daemon on
// `memory.backend = "markdown"` writes entries as files a person can read,
// sees a person's edits on its next request, reports a malformed line and
// keeps serving, and the CLI in a second process reads what it wrote.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "process.h"
#include "rpc_client.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(MarkdownE2e, FilesAreTheMemoryAndHandEditsAreSeenByTheDaemon) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  std::filesystem::create_directories(ws);
  std::ofstream(ws + "/mnemo.toml") << "[memory]\nbackend = \"markdown\"\n";
  Daemon daemon(ws);
  ASSERT_TRUE(daemon.started()) << daemon.Stderr();
  RpcClient client(daemon.port());

  ASSERT_TRUE(client
                  .Call("memory.store",
                        {{"key", "user_editor"}, {"value", "The user prefers Helix over Vim"}})
                  .contains("result"));
  ASSERT_TRUE(
      client
          .Call("memory.store",
                {{"key", "standup"}, {"value", "Standup moved to 10:00"}, {"category", "daily"}})
          .contains("result"));
  const std::string core = ws + "/memory/core.md";
  std::string text = ReadFile(core);
  EXPECT_NE(text.find("- **user_editor**: The user prefers Helix over Vim <!-- mnemo: "),
            std::string::npos)
      << text;
  bool daily_found = false;
  for (const auto& e : std::filesystem::directory_iterator(ws + "/memory/daily")) {
    daily_found = daily_found || ReadFile(e.path()).find("Standup moved") != std::string::npos;
  }
  EXPECT_TRUE(daily_found);

  // A person edits core.md: changes the editor, adds an item and a broken line.
  const size_t at = text.find("Helix over Vim");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("Helix over Vim").size(), "Zed over Helix");
  text += "- **tea**: The user drinks green tea in the afternoon\n- broken line without a key\n";
  std::ofstream(core, std::ios::trunc) << text;

  json got = client.Result("memory.get", {{"key", "user_editor"}});
  EXPECT_EQ(got["content"], "The user prefers Zed over Helix") << got.dump();
  json found = client.Result("memory.search", {{"query", "green tea"}});
  ASSERT_FALSE(found["results"].empty()) << found.dump();
  EXPECT_EQ(found["results"][0]["key"], "tea");
  EXPECT_NE(daemon.Stderr().find("core.md:"), std::string::npos) << daemon.Stderr();
  EXPECT_NE(ReadFile(core).find("- broken line without a key"), std::string::npos)
      << "a line that does not parse stays in the file";

  // Forget rewrites the file; a second process (the CLI) reads the same memory.
  ASSERT_EQ(client.Result("memory.forget", {{"key", "user_editor"}})["forgotten"], true);
  EXPECT_EQ(ReadFile(core).find("user_editor"), std::string::npos) << ReadFile(core);
  RunResult cli = RunMnemo({"--workspace", ws, "--json", "memory", "get", "tea"});
  ASSERT_EQ(cli.exit_code, 0) << cli.err;
  EXPECT_EQ(json::parse(cli.out)["content"], "The user drinks green tea in the afternoon");
  EXPECT_EQ(daemon.Stop(SIGTERM), 0);
}

}  // namespace
}  // namespace mnemo::e2e

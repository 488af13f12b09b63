// `mnemo import --from FORMAT PATH` through the real binary.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

const std::string kMemoryJsonl =
    std::string(MNEMO_SOURCE_DIR) + "/tests/fixtures/import/mcp-memory/memory.jsonl";

TEST(CliImportFrom, McpMemoryReportsSkippedLinesAndASecondRunAddsNothing) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  RunResult r = RunMnemo({"--workspace", ws, "import", "--from", "mcp-memory", kMemoryJsonl});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("entries:   3 new, 0 updated, 0 unchanged"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("triples:   5 new, 0 already stored"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(kMemoryJsonl + ":6: not valid JSON"), std::string::npos) << r.out;

  r = RunMnemo({"--workspace", ws, "--json", "import", "--from", "mcp-memory", kMemoryJsonl});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json report = json::parse(r.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << r.out;
  EXPECT_EQ(report["entries"]["created"], 0);
  EXPECT_EQ(report["entries"]["unchanged"], 3);
  EXPECT_EQ(report["triples"]["created"], 0);
  EXPECT_EQ(report["skipped_count"], 3);
  EXPECT_EQ(report["skipped"][1]["line"], 7);

  r = RunMnemo(
      {"--workspace", ws, "--json", "memory", "get", "Anthropic", "--namespace", "mcp-memory"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out, nullptr, false)["content"],
            "Anthropic (organization)\n- Builds AI assistants");

  r = RunMnemo({"--workspace", ws, "import", "--from", "letta", kMemoryJsonl});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("use mcp-memory, mem0, basic-memory, markdown or jsonl"), std::string::npos)
      << r.err;
  r = RunMnemo({"--workspace", ws, "import", "--dry-run", kMemoryJsonl});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("need --from"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mnemo::e2e

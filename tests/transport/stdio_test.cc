#include "transport/stdio.h"

#include <gtest/gtest.h>

#include <sstream>

#include "rpc_fixture.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;
using Stdio = RpcTest;

TEST_F(Stdio, OneResponseLinePerRequestLineAndNoneForNotifications) {
  std::istringstream in(
      R"({"jsonrpc":"2.0","id":1,"method":"memory.store","params":{"key":"k","value":"v"}})"
      "\n\n"
      R"({"jsonrpc":"2.0","method":"memory.stats"})"
      "\r\nnot json\n"
      R"({"jsonrpc":"2.0","id":2,"method":"memory.get","params":{"key":"k"}})");
  std::ostringstream out;
  EXPECT_EQ(RunStdioLoop(*dispatcher_, who_, in, out, 1 << 20), 0);
  std::istringstream lines(out.str());
  std::vector<json> responses;
  for (std::string line; std::getline(lines, line);) responses.push_back(json::parse(line));
  ASSERT_EQ(responses.size(), 3u) << out.str();
  EXPECT_EQ(responses[0]["result"]["created"], true);
  EXPECT_EQ(responses[1]["error"]["code"], -32700);
  EXPECT_EQ(responses[2]["result"]["content"], "v");
}

TEST(ReadBoundedLine, SplitsLinesDropsCrAndDrainsTooLongOnes) {
  std::istringstream in("ab\r\n" + std::string(10, 'x') + "\nabcd\r\n\nlast");
  std::string line;
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kLine);
  EXPECT_EQ(line, "ab");
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kTooLong);
  EXPECT_EQ(line, "");
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kLine);  // 4 bytes + "\r" fit
  EXPECT_EQ(line, "abcd");
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kLine);
  EXPECT_EQ(line, "");
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kLine);  // no final "\n"
  EXPECT_EQ(line, "last");
  EXPECT_EQ(ReadBoundedLine(in, 4, line), LineRead::kEnd);
  std::istringstream five("abcde\n");
  EXPECT_EQ(ReadBoundedLine(five, 4, line), LineRead::kTooLong);
}

TEST_F(Stdio, ATooLongLineIsAnsweredAndTheNextOneServed) {
  std::istringstream in(std::string(5000, '{') + "\n" +
                        R"({"jsonrpc":"2.0","id":7,"method":"memory.stats"})" + "\n");
  std::ostringstream out;
  EXPECT_EQ(RunStdioLoop(*dispatcher_, who_, in, out, 1000), 0);
  std::istringstream lines(out.str());
  std::string first, second;
  ASSERT_TRUE(std::getline(lines, first));
  ASSERT_TRUE(std::getline(lines, second));
  EXPECT_EQ(json::parse(first)["error"]["code"], -32600);
  EXPECT_NE(first.find("longer than 1000 bytes"), std::string::npos) << first;
  EXPECT_EQ(json::parse(second)["id"], 7);
  EXPECT_TRUE(json::parse(second).contains("result"));
}

}  // namespace
}  // namespace mnemo::transport

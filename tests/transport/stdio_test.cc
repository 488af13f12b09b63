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
  EXPECT_EQ(RunStdioLoop(*dispatcher_, who_, in, out), 0);
  std::istringstream lines(out.str());
  std::vector<json> responses;
  for (std::string line; std::getline(lines, line);) responses.push_back(json::parse(line));
  ASSERT_EQ(responses.size(), 3u) << out.str();
  EXPECT_EQ(responses[0]["result"]["created"], true);
  EXPECT_EQ(responses[1]["error"]["code"], -32700);
  EXPECT_EQ(responses[2]["result"]["content"], "v");
}

}  // namespace
}  // namespace mnemo::transport

// Issue 17, item 1: every JSON that enters the engine as text and is stored
// (context events, tool call arguments, document meta, cleaner specs,
// import lines, saved tool registrations) gets a request body's limits on
// the way in: at most internal::kMaxJsonDepth levels and
// server.max_body_bytes bytes, refused with an error naming the field.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "base/json_limits.h"
#include "core/services/tool_specs.h"
#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

// Deeper than a request body may nest, shallow enough for any recursion:
// the test shows the refusal, not a crash.
constexpr int kTooDeep = internal::kMaxJsonDepth + 1;

std::string DeepArray(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(JsonLimits, DepthIsCountedOutsideStringsOnly) {
  EXPECT_TRUE(internal::JsonDepthWithin(DeepArray(64)));
  EXPECT_FALSE(internal::JsonDepthWithin(DeepArray(65)));
  EXPECT_TRUE(internal::JsonDepthWithin("[\"" + std::string(1000, '[') + "\"]"));
  EXPECT_TRUE(internal::JsonDepthWithin(R"(["\"[[[[", 1])", 1));
}

TEST(JsonLimits, MessagesNameTheFieldAndTheLimit) {
  Status deep = internal::CheckJsonLimits(DeepArray(kTooDeep), "event_json", 1000);
  EXPECT_EQ(deep.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(deep.field(), "event_json");
  EXPECT_EQ(deep.message(),
            "event_json nests deeper than 64 levels: a JSON value may nest at most 64 levels (the "
            "limit of a request body)");
  Status big = internal::CheckJsonLimits(std::string(1025, ' '), "meta", 1024);
  EXPECT_EQ(big.field(), "meta");
  EXPECT_EQ(big.message(),
            "meta is 1025 bytes of JSON: at most 1024 bytes are allowed (server.max_body_bytes, "
            "the limit of a request body)");
  EXPECT_TRUE(internal::CheckJsonLimits(DeepArray(64), "x", 1024).ok());
}

class JsonLimitsEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Config config;
    config.embedding.provider = "none";
    config.server.max_body_bytes = 4096;
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  static void ExpectRefused(const Status& s, const std::string& field) {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_EQ(s.field(), field) << s.ToString();
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  Principal me_;
  Principal admin_{"admin", Role::kAdmin};
};

TEST_F(JsonLimitsEngineTest, ContextAppendRefusesDeepOrLargeEventJson) {
  const std::string deep = R"({"input":"hi","x":)" + DeepArray(kTooDeep) + "}";
  ExpectRefused(engine_->context().Append(me_, {.session_id = "s", .raw_json = deep}).status(),
                "event_json");
  const std::string large = R"({"input":")" + std::string(5000, 'a') + R"("})";
  ExpectRefused(engine_->context().Append(me_, {.session_id = "s", .raw_json = large}).status(),
                "event_json");
  EXPECT_TRUE(
      engine_->context().Append(me_, {.session_id = "s", .raw_json = R"({"input":"hi"})"}).ok());
}

TEST_F(JsonLimitsEngineTest, TurnCompleteRefusesDeepToolArguments) {
  Turn turn{.session_id = "s", .user_message = "run it"};
  turn.tool_calls.push_back({.name = "ok", .arguments_json = "{}"});
  turn.tool_calls.push_back({.name = "shell", .arguments_json = DeepArray(kTooDeep)});
  ExpectRefused(engine_->archivist().TurnComplete(me_, turn).status(), "tool_calls[1].arguments");
  turn.tool_calls[1].arguments_json = DeepArray(internal::kMaxJsonDepth);
  EXPECT_TRUE(engine_->archivist().TurnComplete(me_, turn).ok());
}

TEST_F(JsonLimitsEngineTest, DocPutRefusesDeepMeta) {
  ExpectRefused(
      engine_->documents()
          .Put(me_, {.content = "a runbook", .meta = R"({"x":)" + DeepArray(kTooDeep) + "}"})
          .status(),
      "meta");
}

TEST_F(JsonLimitsEngineTest, RegisterToolRefusesADeepCleaner) {
  Result<ToolInfo> r =
      engine_->tools().Register(admin_, {.name = "files_read", .cleaner = DeepArray(kTooDeep)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().field(), "cleaner");
  EXPECT_NE(r.status().message().find("nests deeper than 64 levels"), std::string::npos)
      << r.status().ToString();
}

TEST_F(JsonLimitsEngineTest, ImportRefusesADeepLine) {
  std::istringstream in(R"({"key":"a","content":"fine"})"
                        "\n"
                        R"({"key":"b","content":"deep","x":)" +
                        DeepArray(kTooDeep) + "}\n");
  Result<ImportReport> r = engine_->admin().ImportJsonl(admin_, in, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("line 2: the line nests deeper than 64 levels"),
            std::string::npos)
      << r.status().ToString();
}

TEST(StoredTool, ADeepRegistrationIsRefusedBeforeItIsDumped) {
  Result<ToolSpec> r =
      internal::DecodeStoredTool(R"({"name":"t","cleaner":[)" + DeepArray(kTooDeep) + "]}");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "a stored tool nests deeper than 64 levels");
}

}  // namespace
}  // namespace mnemo

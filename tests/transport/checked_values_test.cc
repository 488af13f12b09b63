// Every door refuses a bad value alike (issue 45, item 2): a value is checked
// once, by the service that the C++ API and the method table both call, so
// the refusal is the same code, field and message by either door.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mnemo/limits.h"
#include "rpc_fixture.h"

namespace mnemo::transport {
namespace {

using nlohmann::json;

using CheckedValues = RpcTest;

void ExpectSameRefusal(const Status& api, const Result<json>& wire, const std::string& field) {
  ASSERT_FALSE(api.ok());
  ASSERT_FALSE(wire.ok()) << wire->dump();
  EXPECT_EQ(api.code(), StatusCode::kInvalidArgument) << api.message();
  EXPECT_EQ(wire.status().code(), api.code());
  EXPECT_EQ(wire.status().message(), api.message());
  EXPECT_EQ(api.field(), field) << api.message();
  EXPECT_EQ(wire.status().field(), field);
}

// Names a parameter's shape admits (valid UTF-8, not blank, short enough)
// and the principal rule refuses.
const std::vector<std::string> kBadNames = {"ali\nce", "ali\tce",
                                            "ali\x01"
                                            "ce"};

TEST_F(CheckedValues, ApiAndWireRefuseABadPrincipalWithOneMessage) {
  for (const std::string& bad : kBadNames) {
    SCOPED_TRACE(bad);
    ExpectSameRefusal(
        engine_->admin().PrincipalForget(who_, bad).status(),
        dispatcher_->Call("memory.principal_forget", {{"principal", bad}}, who_, nullptr),
        "principal");
    ExpectSameRefusal(
        engine_->admin().SessionForget(who_, {.session_id = "s1", .owner = bad}).status(),
        dispatcher_->Call("memory.session_forget", {{"session_id", "s1"}, {"owner", bad}}, who_,
                          nullptr),
        "owner");
    ExpectSameRefusal(
        engine_->memory().Get(who_, {.key = "k", .owner = bad}).status(),
        dispatcher_->Call("memory.get", {{"key", "k"}, {"owner", bad}}, who_, nullptr), "owner");
    ExpectSameRefusal(
        engine_->memory().Forget(who_, {.key = "k", .owner = bad}).status(),
        dispatcher_->Call("memory.forget", {{"key", "k"}, {"owner", bad}}, who_, nullptr), "owner");
    ExpectSameRefusal(
        engine_->knowledge()
            .ProfileCorrect(who_, {.facet_type = "preference", .key = "k", .owner = bad}, "v")
            .status(),
        dispatcher_->Call(
            "memory.profile_correct",
            {{"facet_type", "preference"}, {"key", "k"}, {"owner", bad}, {"value", "v"}}, who_,
            nullptr),
        "owner");
  }
}

TEST_F(CheckedValues, APrincipalPastTheLimitIsRefusedByEveryDoorNamingTheLimit) {
  const std::string at(kMaxPrincipalBytes, 'p');
  const std::string past(kMaxPrincipalBytes + 1, 'p');
  const std::string limit = std::to_string(kMaxPrincipalBytes);
  // At the limit: accepted (nothing to erase).
  EXPECT_TRUE(engine_->admin().PrincipalForget(who_, at).ok());
  EXPECT_TRUE(
      dispatcher_->Call("memory.principal_forget", {{"principal", at}}, who_, nullptr).ok());
  // One past: the service says it, and the wire's schema declares the same
  // limit (maxLength) and says it before.
  const Status api = engine_->admin().PrincipalForget(who_, past).status();
  EXPECT_EQ(api.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(api.field(), "principal");
  EXPECT_NE(api.message().find(limit), std::string::npos) << api.message();
  for (const auto& [method, params] : std::vector<std::pair<std::string, json>>{
           {"memory.principal_forget", {{"principal", past}}},
           {"memory.session_forget", {{"session_id", "s1"}, {"owner", past}}},
           {"memory.get", {{"key", "k"}, {"owner", past}}},
           {"memory.forget", {{"key", "k"}, {"owner", past}}}}) {
    const Result<json> wire = dispatcher_->Call(method, params, who_, nullptr);
    ASSERT_FALSE(wire.ok()) << method;
    EXPECT_EQ(wire.status().code(), StatusCode::kInvalidArgument) << method;
    EXPECT_NE(wire.status().message().find(limit), std::string::npos) << wire.status().message();
  }
  EXPECT_FALSE(engine_->memory().Get(who_, {.key = "k", .owner = past}).ok());
  EXPECT_FALSE(engine_->memory().Forget(who_, {.key = "k", .owner = past}).ok());
  EXPECT_FALSE(engine_->admin().SessionForget(who_, {.session_id = "s1", .owner = past}).ok());
}

TEST_F(CheckedValues, ApiAndWireRefuseABadWindowRecencyAndNamespaceFilterWithOneMessage) {
  // until before since, by the wire's RFC 3339 and the API's milliseconds.
  const json window = {{"since", "2026-02-01T00:00:00Z"}, {"until", "2026-01-01T00:00:00Z"}};
  const TimeWindow bad{.since = 1'769'904'000'000, .until = 1'767'225'600'000};
  auto with = [&](json params) {
    params.update(window);
    return params;
  };
  ExpectSameRefusal(engine_->memory().Search(who_, {.query = "q", .window = bad}).status(),
                    dispatcher_->Call("memory.search", with({{"query", "q"}}), who_, nullptr),
                    "until");
  ExpectSameRefusal(engine_->memory().Recall(who_, {.query = "q", .window = bad}).status(),
                    dispatcher_->Call("memory.recall", with({{"query", "q"}}), who_, nullptr),
                    "until");
  ExpectSameRefusal(
      engine_->context().Build(who_, {.query = "q", .window = bad}).status(),
      dispatcher_->Call("memory.context_build", with({{"query", "q"}}), who_, nullptr), "until");

  // The wire's schema declares recency_weight's range (minimum, maximum)
  // and says it in its own words first: the same code and field.
  const Status api = engine_->memory().Search(who_, {.query = "q", .recency_weight = 1.5}).status();
  const Result<json> wire =
      dispatcher_->Call("memory.search", {{"query", "q"}, {"recency_weight", 1.5}}, who_, nullptr);
  ASSERT_FALSE(api.ok());
  ASSERT_FALSE(wire.ok());
  EXPECT_EQ(api.code(), wire.status().code());
  EXPECT_EQ(api.field(), "recency_weight");
  EXPECT_EQ(wire.status().field(), "recency_weight");
  ExpectSameRefusal(
      engine_->memory().Search(who_, {.query = "q", .ns = "a", .ns_prefix = "b"}).status(),
      dispatcher_->Call("memory.search",
                        {{"query", "q"}, {"namespace", "a"}, {"namespace_prefix", "b"}}, who_,
                        nullptr),
      "namespace_prefix");
}

}  // namespace
}  // namespace mnemo::transport

// The audit of the services themselves (spec 10, "Audit"; issue 45 item 1):
// a program that uses the C++ API with [security.audit] on gets the same
// lines as a client of the wire, one per operation — ok, not_found, denied,
// invalid, an erasure with its counts, a turn's redactions by count — and
// never any content.
#include "core/audit_record.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

using nlohmann::json;

class ServiceAudit : public ::testing::Test {
 protected:
  void SetUp() override {
    Config config;
    config.memory.acl_enabled = true;
    config.security.audit.enabled = true;
    auto opened = Engine::Open({.workspace = dir_.path(), .config = config});
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    engine_ = std::move(opened).value();
  }

  std::string Text() const {
    std::ifstream in(dir_.File("audit.log"));
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  std::vector<json> Lines() const {
    std::vector<json> out;
    std::ifstream in(dir_.File("audit.log"));
    for (std::string line; std::getline(in, line);) out.push_back(json::parse(line));
    return out;
  }

  // "method outcome" of each line.
  std::vector<std::string> Outcomes() const {
    std::vector<std::string> out;
    for (const json& l : Lines()) {
      out.push_back(l.at("method").get<std::string>() + " " + l.at("outcome").get<std::string>());
    }
    return out;
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  const Principal alice_{.name = "alice", .role = Role::kUser};
};

TEST_F(ServiceAudit, EachOperationOfTheCppApiIsOneLineWithTheAddressAndNoContent) {
  Memory& memory = engine_->memory();
  ASSERT_TRUE(memory
                  .Store(alice_, {.key = "trip",
                                  .content = "the pelican flies to Lisbon",
                                  .category = "daily",
                                  .ns = "travel"})
                  .ok());
  EXPECT_TRUE(memory.Get(alice_, {.key = "trip", .ns = "travel"}).ok());
  EXPECT_EQ(memory.Get(alice_, {.key = "nothing-here"}).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(memory.Store(alice_, {.key = "", .content = "no key given"}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(engine_->admin().RunHygiene(alice_).status().code(),
            StatusCode::kPermissionDenied);  // a user is not an admin
  Result<bool> missed = memory.Forget(alice_, {.key = "nothing-here"});
  ASSERT_TRUE(missed.ok() && !*missed);
  Result<bool> forgotten = memory.Forget(alice_, {.key = "trip", .ns = "travel"});
  ASSERT_TRUE(forgotten.ok() && *forgotten);
  Result<TurnResult> turn = engine_->archivist().TurnComplete(
      alice_, {.session_id = "s1",
               .user_message = "my key is sk-live-4eC39HqLyjWDarjtT1zdp7dc ok",
               .assistant_response = "noted",
               .sync = true});
  ASSERT_TRUE(turn.ok()) << turn.status().ToString();
  ASSERT_EQ(turn->redactions, 1);
  Result<ErasureCounts> erased = engine_->admin().SessionForget(alice_, {.session_id = "s1"});
  ASSERT_TRUE(erased.ok()) << erased.status().ToString();
  ASSERT_EQ(erased->turns, 2);

  EXPECT_EQ(
      Outcomes(),
      (std::vector<std::string>{
          "memory.store ok", "memory.get ok", "memory.get not_found", "memory.store invalid",
          "memory.hygiene_run denied", "memory.forget not_found", "memory.forget ok",
          "memory.turn_complete ok", "memory.turn_complete redacted", "memory.session_forget ok"}))
      << Text();
  std::vector<json> lines = Lines();
  ASSERT_EQ(lines.size(), 10u);
  for (const json& l : lines) {
    EXPECT_EQ(l.at("principal"), "alice");
    EXPECT_TRUE(l.at("time").is_string());
    EXPECT_TRUE(l.at("duration_ms").is_number());
  }
  EXPECT_EQ(lines[0].at("namespace"), "travel");
  EXPECT_EQ(lines[0].at("key"), "trip");
  EXPECT_EQ(lines[0].at("category"), "daily");
  EXPECT_EQ(lines[2].at("namespace"), "global");
  EXPECT_EQ(lines[2].at("key"), "nothing-here");
  EXPECT_FALSE(lines[4].contains("key"));
  EXPECT_EQ(lines[8].at("count"), 1);
  EXPECT_EQ(lines[9].at("erased").at("turns"), 2);
  // Content, messages and secrets never reach the log.
  const std::string text = Text();
  for (const char* never : {"pelican", "Lisbon", "no key given", "sk-live", "noted"}) {
    EXPECT_EQ(text.find(never), std::string::npos) << never;
  }
}

// A service that hands the request to another (the profile to the
// Archivist, the context block to recall, a rule count to the rule list)
// is still one operation: one line, under its own name.
TEST_F(ServiceAudit, AnOperationThatCallsAnotherServiceIsOneLine) {
  ASSERT_TRUE(engine_->knowledge().ProfilePut(alice_, "preference", "tea", "oolong").ok());
  ASSERT_TRUE(engine_->context().Build(alice_, {.query = "tea"}).ok());
  ASSERT_TRUE(engine_->rules().Count(alice_, std::nullopt).ok());
  EXPECT_EQ(Outcomes(),
            (std::vector<std::string>{"memory.profile_put ok", "memory.context_build ok",
                                      "memory.tool_rule_count ok"}))
      << Text();
  EXPECT_EQ(Lines()[0].at("key"), "tea");
  EXPECT_EQ(Text().find("oolong"), std::string::npos);
}

TEST(ServiceAuditOff, NothingIsWrittenWhenAuditIsOff) {
  testing::TempDir dir;
  auto engine = Engine::Open({.workspace = dir.path()});
  ASSERT_TRUE(engine.ok()) << engine.status().ToString();
  ASSERT_TRUE((*engine)->memory().Store(Principal{}, {.key = "k", .content = "v"}).ok());
  EXPECT_FALSE(std::filesystem::exists(dir.File("audit.log")));
}

TEST(AuditOutcome, OneNamePerStatus) {
  EXPECT_EQ(internal::AuditOutcome(Status::Ok()), "ok");
  EXPECT_EQ(internal::AuditOutcome(NotFound("x")), "not_found");
  EXPECT_EQ(internal::AuditOutcome(PermissionDenied("x")), "denied");
  EXPECT_EQ(internal::AuditOutcome(InvalidArgument("x")), "invalid");
  EXPECT_EQ(internal::AuditOutcome(Unavailable("x")), "error");
}

}  // namespace
}  // namespace mnemo

// The tool registry through the engine (spec 50): the three sources,
// persistence across engines of one workspace, cleaner failures in the tool
// statistics and reindex of turn search text.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mnemo/config.h"
#include "mnemo/engine.h"
#include "mnemo/types.h"
#include "test_util.h"

namespace mnemo {
namespace {

using nlohmann::json;
using testing::TempDir;

class EngineTools : public ::testing::Test {
 protected:
  void SetUp() override { engine_ = Open(); }

  std::unique_ptr<Engine> Open(Config config = {}) {
    config.memory.backend = "sqlite";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(*e) : nullptr;
  }

  static Turn FilesTurn(std::string output) {
    return Turn{.session_id = "s",
                .user_message = "what is in the app folder",
                .assistant_response = "three python files",
                .tool_calls = {ToolCall{.name = "files_read", .output = std::move(output)}}};
  }

  // The rows that match `q` by their own indexed text: their snippet
  // highlights a match (rows ranked through a matching neighbour do not).
  std::vector<std::string> Found(Engine& engine, const std::string& q) {
    auto hits = engine.archivist().EpisodicSearch(me_, {.query = q});
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> out;
    if (hits.ok()) {
      for (const EpisodicHit& h : *hits) {
        if (h.snippet.find("**") != std::string::npos) out.push_back(h.turn.role);
      }
    }
    return out;
  }

  TempDir dir_;
  Principal me_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(EngineTools, RegistrationsAreValidatedNamingTheFailingStep) {
  Result<ToolInfo> bad_step = engine_->tools().Register(
      me_, {.name = "grep", .cleaner = R"([{"strip_ansi": true}, {"regex_extract": "("}])"});
  ASSERT_FALSE(bad_step.ok());
  EXPECT_EQ(bad_step.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_step.status().message().find("step 2 (regex_extract)"), std::string::npos)
      << bad_step.status().message();
  EXPECT_FALSE(engine_->tools().Register(me_, {.name = "bad name!"}).ok());
  EXPECT_FALSE(engine_->tools().Register(me_, {.name = "*"}).ok());
  EXPECT_FALSE(engine_->tools().Register({.name = " "}).ok());
  // A function cannot be persisted.
  ToolSpec fn{.name = "t", .cleaner_fn = [](std::string_view s) -> Result<std::string> {
                return std::string(s);
              }};
  EXPECT_EQ(engine_->tools().Register(me_, fn).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(engine_->tools().Register(fn).ok());
}

TEST_F(EngineTools, PersistedRegistrationsSurviveARestartAndAreSharedByEngines) {
  Result<ToolInfo> info = engine_->tools().Register(
      me_, {.name = "Files_Read", .plugin = "fs", .cleaner = R"([{"json_field":"content"}])"});
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  EXPECT_EQ(info->name, "files_read");
  EXPECT_EQ(info->source, "registered");
  EXPECT_EQ(info->cleaner, R"([{"json_field":"content"}])");
  // A second engine of the same workspace (another process) sees it, and a
  // later registration by the first reaches it without a restart.
  std::unique_ptr<Engine> other = Open();
  ASSERT_NE(other, nullptr);
  auto listed = other->tools().List(me_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].plugin, "fs");
  ASSERT_TRUE(engine_->tools().Register(me_, {.name = "cmd_run", .no_memory = true}).ok());
  ASSERT_TRUE(other->archivist()
                  .TurnComplete(me_, {.session_id = "s",
                                      .assistant_response = "done",
                                      .tool_calls = {{.name = "cmd_run", .output = "zebra"}}})
                  .ok());
  EXPECT_TRUE(Found(*other, "zebra").empty());
  // Registrations are no memories: unfiltered list leaves them out.
  auto page = engine_->memory().List(me_, {});
  ASSERT_TRUE(page.ok());
  EXPECT_TRUE(page->items.empty());
  EXPECT_FALSE(
      engine_->memory().Store(me_, {.key = "x", .content = "y", .ns = "tool_registry"}).ok());
}

TEST_F(EngineTools, CodeRegistrationsHideStoredOnesAndConfigIsLowest) {
  Config config;
  config.tools.push_back({.name = "files_read", .no_memory = true});
  engine_.reset();
  engine_ = Open(config);
  auto listed = engine_->tools().List(me_);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].source, "config");
  ASSERT_TRUE(engine_->tools().Register(me_, {.name = "files_read"}).ok());
  EXPECT_EQ(engine_->tools().List(me_)->at(0).source, "registered");
  ASSERT_TRUE(engine_->tools().Register({.name = "files_read", .no_memory = true}).ok());
  EXPECT_EQ(engine_->tools().List(me_)->at(0).source, "code");
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, FilesTurn("walrus")).ok());
  EXPECT_TRUE(Found(*engine_, "walrus").empty());
}

TEST_F(EngineTools, CleanerFailuresFallBackAndAreCountedInTheToolStatistics) {
  ASSERT_TRUE(engine_->tools()
                  .Register(me_, {.name = "files_read", .cleaner = R"([{"json_field":"content"}])"})
                  .ok());
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, FilesTurn("plain walrus text")).ok());
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, FilesTurn(R"({"content":"deploy.py"})")).ok());
  EXPECT_EQ(Found(*engine_, "walrus").size(), 1u);  // the raw output took part
  auto stats = engine_->memory().Get(me_, {.key = "tool/files_read", .ns = "tool_effectiveness"});
  ASSERT_TRUE(stats.ok()) << stats.status().ToString();
  json j = json::parse(stats->content);
  EXPECT_EQ(j["total_calls"], 2);
  EXPECT_EQ(j["cleaner_failures"], 1);
}

TEST_F(EngineTools, ACxxCleanerTakesPart) {
  ASSERT_TRUE(engine_->tools()
                  .Register({.name = "files_read",
                             .cleaner_fn = [](std::string_view) -> Result<std::string> {
                               return std::string("narwhal");
                             }})
                  .ok());
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, FilesTurn("octopus")).ok());
  // The cleaned text is indexed but not stored, so no snippet shows it: the
  // assistant row ranks first, its user row after it through the neighbour.
  auto hits = engine_->archivist().EpisodicSearch(me_, {.query = "narwhal"});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ((*hits)[0].turn.role, "assistant");
  EXPECT_TRUE(Found(*engine_, "octopus").empty());
}

TEST_F(EngineTools, ReindexAppliesARegistryChangeAndKeepsStoredText) {
  const std::string output = R"({"path":"/srv/app","content":"main.py, deploy.py"})";
  ASSERT_TRUE(engine_->archivist().TurnComplete(me_, FilesTurn(output)).ok());
  EXPECT_EQ(Found(*engine_, "srv").size(), 1u);  // raw: the path is indexed
  ASSERT_TRUE(engine_->tools()
                  .Register(me_, {.name = "files_read", .cleaner = R"([{"json_field":"content"}])"})
                  .ok());
  EXPECT_EQ(Found(*engine_, "srv").size(), 1u);  // not until reindex
  auto report = engine_->admin().Reindex(me_);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->turns_reindexed, 1);
  EXPECT_EQ(report->cleaner_failures, 0);
  EXPECT_TRUE(Found(*engine_, "srv").empty());
  EXPECT_EQ(Found(*engine_, "deploy.py").size(), 1u);
  EXPECT_EQ(Found(*engine_, "python").size(), 1u);  // the response still takes part
  auto rows = engine_->archivist().SessionTurns(me_, "s");
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 2u);
  json calls = json::parse(rows->at(1).tool_calls_json);
  EXPECT_EQ(calls[0]["output"], output);
}

}  // namespace
}  // namespace mnemo

#include "context/tool_registry.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <stdexcept>
#include <thread>
#include <vector>

namespace mnemo::context {
namespace {

std::string Lower(std::string_view name) {
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

ToolSpec Spec(std::string name, bool no_memory = false, std::string_view cleaner = "") {
  ToolSpec spec{.name = std::move(name), .no_memory = no_memory};
  if (!cleaner.empty()) spec.cleaner = text::Cleaner::Parse(cleaner).value();
  return spec;
}

TEST(ToolRegistry, UnknownToolsAreNotFound) {
  ToolRegistry registry;
  EXPECT_EQ(registry.Find("cmd_run"), nullptr);
  EXPECT_TRUE(registry.All().empty());
}

TEST(ToolRegistry, FindsByNormalisedName) {
  ToolRegistry registry(Lower);
  registry.Put(ToolSource::kConfig, Spec("CMD_Run", true));
  std::shared_ptr<const ToolSpec> spec = registry.Find("cmd_RUN");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->name, "cmd_run");
  EXPECT_TRUE(spec->no_memory);
}

TEST(ToolRegistry, LaterSourcesHideEarlierOnesOfTheSameName) {
  ToolRegistry registry;
  registry.Put(ToolSource::kCode, Spec("t", false, R"([{"strip_ansi": true}])"));
  registry.Put(ToolSource::kConfig, Spec("t", true));
  registry.Put(ToolSource::kStored, Spec("t", true));
  EXPECT_FALSE(registry.Find("t")->no_memory);  // code wins
  std::vector<ToolRegistry::Listed> all = registry.All();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].source, ToolSource::kCode);
}

TEST(ToolRegistry, ReplaceAllDropsWhatASourceNoLongerHas) {
  ToolRegistry registry;
  registry.Put(ToolSource::kConfig, Spec("a", true));
  registry.ReplaceAll(ToolSource::kStored, {Spec("a", false), Spec("b", true)});
  EXPECT_FALSE(registry.Find("a")->no_memory);
  registry.ReplaceAll(ToolSource::kStored, {});
  EXPECT_TRUE(registry.Find("a")->no_memory);  // the config's again
  EXPECT_EQ(registry.Find("b"), nullptr);
}

TEST(ToolRegistry, AHeldSpecSurvivesItsReplacement) {
  ToolRegistry registry;
  registry.Put(ToolSource::kStored, Spec("a", true));
  std::shared_ptr<const ToolSpec> held = registry.Find("a");
  registry.Put(ToolSource::kStored, Spec("a", false));
  EXPECT_TRUE(held->no_memory);
  EXPECT_FALSE(registry.Find("a")->no_memory);
}

TEST(ToolRegistry, ConcurrentPutsAndFindsAreSafe) {
  ToolRegistry registry;
  std::atomic<int> found{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        registry.Put(ToolSource::kStored, Spec("tool" + std::to_string(i % 7), (i + t) % 2 == 0));
        if (registry.Find("tool" + std::to_string(i % 7)) != nullptr) ++found;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(found.load(), 2000);
  EXPECT_EQ(registry.All().size(), 7u);
}

TEST(CleanToolOutput, WithoutACleanerTheOutputIsKept) {
  text::CleanedOutput out = CleanToolOutput(Spec("t"), "raw output");
  EXPECT_EQ(out.text, "raw output");
  EXPECT_FALSE(out.failed);
}

TEST(CleanToolOutput, AFailingStepFallsBackToTheRawOutput) {
  text::CleanedOutput out =
      CleanToolOutput(Spec("t", false, R"([{"json_field": "content"}])"), "not json");
  EXPECT_EQ(out.text, "not json");
  EXPECT_TRUE(out.failed);
  EXPECT_NE(out.reason.find("json_field"), std::string::npos) << out.reason;
}

TEST(CleanToolOutput, ACxxCleanerIsUsedAndItsFailuresFallBack) {
  ToolSpec spec = Spec("t", false, R"([{"json_field": "content"}])");
  spec.cleaner_fn = [](std::string_view output) -> Result<std::string> {
    if (output == "bad") return InvalidArgument("no");
    if (output == "throw") throw std::runtime_error("boom");
    if (output == "blank") return std::string(" \n");
    return "fn:" + std::string(output);
  };
  EXPECT_EQ(CleanToolOutput(spec, "x").text, "fn:x");
  EXPECT_FALSE(CleanToolOutput(spec, "x").failed);
  for (const char* input : {"bad", "throw", "blank"}) {
    text::CleanedOutput out = CleanToolOutput(spec, input);
    EXPECT_TRUE(out.failed) << input;
    EXPECT_EQ(out.text, input);
  }
}

TEST(ToolSourceName, NamesEverySource) {
  EXPECT_EQ(ToolSourceName(ToolSource::kConfig), "config");
  EXPECT_EQ(ToolSourceName(ToolSource::kStored), "registered");
  EXPECT_EQ(ToolSourceName(ToolSource::kCode), "code");
}

}  // namespace
}  // namespace mnemo::context

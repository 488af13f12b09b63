// The context window (spec 50) through the Engine and its selection rule:
// the budget is never exceeded, protected events are kept, order is time
// order, and pruned events become documents.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

#include "context/context_window.h"
#include "mnemo/engine.h"
#include "test_util.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

ContextEvent Ev(std::string input, std::string response = "",
                std::vector<ContextToolResult> tools = {}) {
  return {
      .input = std::move(input), .response = std::move(response), .tool_results = std::move(tools)};
}

TEST(RenderEvent, UsesOneLinePerPartAndRawToolOutputs) {
  ContextEvent e = Ev("list files", "Here they are.",
                      {{.name = "shell", .output = "a.txt\nb.txt", .clean_output = "a.txt"},
                       {.name = "empty", .output = ""}});
  EXPECT_EQ(context::RenderEvent(e),
            "user: list files\nassistant: Here they are.\n[tool] shell: a.txt\nb.txt");
  const context::ToolRegistry no_tools;
  EXPECT_EQ(context::EventComputationText(no_tools, e), "list files\nHere they are.\na.txt");
  EXPECT_EQ(context::RenderEvent(Ev("", "only an answer")), "assistant: only an answer");
}

TEST(SelectWindow, RandomizedTableNeverExceedsTheBudgetAndKeepsTheRules) {
  std::mt19937 rng(20261129);
  for (int round = 0; round < 2000; ++round) {
    const size_t n = std::uniform_int_distribution<size_t>(0, 30)(rng);
    std::vector<context::WindowItem> items(n);
    for (auto& item : items) {
      item.chars = std::uniform_int_distribution<int64_t>(0, 400)(rng);
      item.score = std::uniform_int_distribution<int>(0, 3)(rng) == 0
                       ? 0.0
                       : std::uniform_real_distribution<double>(0.01, 1.0)(rng);
    }
    const size_t protected_count = std::uniform_int_distribution<size_t>(0, 12)(rng);
    const int64_t budget = std::uniform_int_distribution<int64_t>(1, 3000)(rng);
    std::vector<context::WindowPick> picks = context::SelectWindow(items, protected_count, budget);
    SCOPED_TRACE("round " + std::to_string(round));
    int64_t used = 0;
    for (size_t i = 0; i < picks.size(); ++i) {
      used += picks[i].chars;
      if (i > 0) {
        EXPECT_LT(picks[i - 1].index, picks[i].index);  // time order, no repeats
      }
      if (!picks[i].truncated) {
        EXPECT_EQ(picks[i].chars, items[picks[i].index].chars);
      }
      const bool in_protected = picks[i].index + std::min(protected_count, n) >= n;
      EXPECT_EQ(picks[i].is_protected, in_protected);
      if (!in_protected) {
        EXPECT_GT(items[picks[i].index].score, 0.0);
      }
    }
    EXPECT_LE(used, budget);
    if (n == 0) {
      EXPECT_TRUE(picks.empty());
      continue;
    }
    if (protected_count > 0) {
      ASSERT_FALSE(picks.empty());
      EXPECT_EQ(picks.back().index, n - 1);  // the newest is always there
    }
    // When the protected events fit together, every one is there.
    int64_t protected_chars = 0;
    for (size_t i = n - std::min(protected_count, n); i < n; ++i) protected_chars += items[i].chars;
    if (protected_chars <= budget) {
      size_t present = 0;
      for (const auto& p : picks) present += p.is_protected ? 1 : 0;
      EXPECT_EQ(present, std::min(protected_count, n));
    }
  }
}

TEST(SelectWindow, TheNewestIsCutToTheBudgetWhenItAloneIsLarger) {
  const context::WindowItem items[] = {{.chars = 5}, {.chars = 50}};
  auto picks = context::SelectWindow(items, 2, 20);
  ASSERT_EQ(picks.size(), 1u);
  EXPECT_EQ(picks[0].index, 1u);
  EXPECT_TRUE(picks[0].truncated);
  EXPECT_EQ(picks[0].chars, 20);
}

TEST(SelectWindow, OlderEventsJoinByScoreWhenTheyFit) {
  const context::WindowItem items[] = {{.chars = 10, .score = 0.2},
                                       {.chars = 10, .score = 0.9},
                                       {.chars = 10, .score = 0},
                                       {.chars = 10, .score = 0.5},
                                       {.chars = 10}};
  auto picks = context::SelectWindow(items, 1, 30);
  std::vector<size_t> idx;
  for (const auto& p : picks) idx.push_back(p.index);
  EXPECT_THAT(idx, ::testing::ElementsAre(1, 3, 4));
}

class ContextWindowTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    Config config;
    config.memory.backend = GetParam();
    config.embedding.provider = "none";
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
  }

  int64_t Append(const std::string& session, ContextEvent event) {
    auto r = engine_->context().Append(me_, {.session_id = session, .event = std::move(event)});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->seq : -1;
  }

  ContextWindow Window(const std::string& session, const std::string& query, int64_t budget,
                       int protected_count = 10) {
    auto w = engine_->context().Window(me_, {.session_id = session,
                                             .query = query,
                                             .budget_chars = budget,
                                             .protected_count = protected_count});
    EXPECT_TRUE(w.ok()) << w.status().ToString();
    return w.ok() ? *w : ContextWindow{};
  }

  testing::TempDir dir_;
  std::unique_ptr<Engine> engine_;
  Principal me_;
};

TEST_P(ContextWindowTest, BudgetIsNeverExceededOverRandomSizes) {
  std::mt19937 rng(7);
  const std::string words[] = {"deploy", "数据库", "ölçü", "🙂", "billing", "x"};
  for (int i = 0; i < 40; ++i) {
    std::string input;
    const int len = std::uniform_int_distribution<int>(1, 60)(rng);
    for (int w = 0; w < len; ++w) input += words[rng() % 6] + " ";
    std::vector<ContextToolResult> tools;
    if (i % 3 == 0) tools.push_back({.name = "shell", .output = std::string(rng() % 200, 'o')});
    EXPECT_EQ(Append("rand", Ev(input, "ok " + std::to_string(i), tools)), i);
  }
  for (int round = 0; round < 40; ++round) {
    const int64_t budget = std::uniform_int_distribution<int64_t>(1, 6000)(rng);
    const int protected_count = std::uniform_int_distribution<int>(0, 15)(rng);
    ContextWindow w = Window("rand", "billing 数据库", budget, protected_count);
    SCOPED_TRACE("budget " + std::to_string(budget) + " protected " +
                 std::to_string(protected_count));
    int64_t sum = 0;
    for (size_t i = 0; i < w.events.size(); ++i) {
      sum += static_cast<int64_t>(text::CountCodePoints(w.events[i].text));
      EXPECT_EQ(static_cast<int64_t>(text::CountCodePoints(w.events[i].text)), w.events[i].chars);
      if (i > 0) {
        EXPECT_LT(w.events[i - 1].seq, w.events[i].seq);
      }
      EXPECT_TRUE(text::IsValidUtf8(w.events[i].text));
    }
    EXPECT_EQ(sum, w.used_chars);
    EXPECT_LE(sum, budget);
    EXPECT_EQ(w.total_events, 40);
    if (protected_count > 0) {
      ASSERT_FALSE(w.events.empty());
      EXPECT_EQ(w.events.back().seq, 39);
      EXPECT_TRUE(w.events.back().is_protected);
    }
  }
}

TEST_P(ContextWindowTest, ProtectedEventsAndTheRelevantOlderOneInTimeOrder) {
  for (int i = 0; i < 12; ++i) {
    Append("s", Ev(i == 2 ? "Our kubernetes cluster runs in Frankfurt."
                          : "chit chat " + std::to_string(i),
                   "noted"));
  }
  ContextWindow w = Window("s", "where is the kubernetes cluster", 100000, 3);
  std::vector<int64_t> seqs;
  for (const auto& e : w.events) seqs.push_back(e.seq);
  EXPECT_THAT(seqs, ::testing::ElementsAre(2, 9, 10, 11));
  EXPECT_FALSE(w.events[0].is_protected);
  EXPECT_GT(w.events[0].score, 0.0);
  EXPECT_EQ(w.events[0].text, "user: Our kubernetes cluster runs in Frankfurt.\nassistant: noted");
  EXPECT_EQ(w.events[0].event.input, "Our kubernetes cluster runs in Frankfurt.");
  EXPECT_TRUE(w.events[3].is_protected);
  // A budget of the protected events only: the relevant older one has no room.
  const int64_t protected_chars = w.events[1].chars + w.events[2].chars + w.events[3].chars;
  w = Window("s", "kubernetes", protected_chars, 3);
  seqs.clear();
  for (const auto& e : w.events) seqs.push_back(e.seq);
  EXPECT_THAT(seqs, ::testing::ElementsAre(9, 10, 11));
}

TEST_P(ContextWindowTest, RawJsonIsStoredAndReadBack) {
  const std::string raw = R"({"response":"fine","input":"hello  there","extra":[1,2]})";
  auto r = engine_->context().Append(me_, {.session_id = "raw", .raw_json = raw});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ContextWindow w = Window("raw", "hello", 1000);
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].raw_json, raw);
  EXPECT_EQ(w.events[0].text, "user: hello  there\nassistant: fine");
  auto bad = engine_->context().Append(
      me_, {.session_id = "raw", .raw_json = R"({"tool_results":[{"output":"x"}]})"});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.status().field(), "event.tool_results[0].name");
  EXPECT_EQ(
      engine_->context().Append(me_, {.session_id = "raw", .raw_json = "{}"}).status().field(),
      "event");
  EXPECT_EQ(engine_->context()
                .Window(me_, {.session_id = "raw", .query = "x", .budget_chars = 0})
                .status()
                .field(),
            "budget_chars");
}

TEST_P(ContextWindowTest, PrunedEventsBecomeSearchableDocumentsAndLeaveTheWindow) {
  Append("p", Ev("Remember the quokka password hint", "ok",
                 {{.name = "vault", .output = "hint: marsupial"}}));
  Append("p", Ev("second", "ok"));
  Append("p", Ev("third", "ok"));
  Append("p", Ev("fourth", "ok"));
  auto pruned = engine_->context().Prune(me_, "p", 2);
  ASSERT_TRUE(pruned.ok()) << pruned.status().ToString();
  EXPECT_EQ(pruned->pruned, 2);
  EXPECT_EQ(pruned->kept, 2);
  ASSERT_EQ(pruned->documents.size(), 1u);
  EXPECT_EQ(pruned->documents[0].source, "context:p#seq0-1");
  EXPECT_TRUE(pruned->documents[0].created);
  ContextWindow w = Window("p", "quokka", 100000);
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0].seq, 2);
  EXPECT_EQ(w.total_events, 2);
  // A word only the pruned event had is found in the archived document.
  auto hits = engine_->documents().Search(me_, {.query = "quokka"});
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 1u);
  auto doc = engine_->documents().Get(me_, (*hits)[0].document.id);
  ASSERT_TRUE(doc.ok());
  EXPECT_EQ(doc->source, "context:p#seq0-1");
  EXPECT_EQ(doc->content,
            "user: Remember the quokka password hint\nassistant: ok\n[tool] vault: hint: "
            "marsupial\n\nuser: second\nassistant: ok");
  EXPECT_NE(doc->meta.find("\"first_seq\":0"), std::string::npos) << doc->meta;
  // New events continue the sequence; pruning again archives only the rest.
  EXPECT_EQ(Append("p", Ev("fifth", "ok")), 4);
  pruned = engine_->context().Prune(me_, "p", 10);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->pruned, 0);
  EXPECT_TRUE(pruned->documents.empty());
  pruned = engine_->context().Prune(me_, "p", 0);
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->pruned, 3);
  ASSERT_EQ(pruned->documents.size(), 1u);
  EXPECT_EQ(pruned->documents[0].source, "context:p#seq2-4");
}

TEST_P(ContextWindowTest, ANoMemoryToolsOutputIsKeptButNotSearched) {
  ASSERT_TRUE(engine_->tools().Register({.name = "cmd_run", .no_memory = true}).ok());
  Append("nm", Ev("run it", "the first line is root, uid 0",
                  {{.name = "cmd_run", .output = "root:x:0:0:wombat:/root:/bin/bash"}}));
  for (int i = 0; i < 3; ++i) Append("nm", Ev("filler " + std::to_string(i), "ok"));
  ContextWindow w = Window("nm", "wombat", 100000, 1);
  ASSERT_EQ(w.events.size(), 1u);  // only the protected newest: nothing matches
  w = Window("nm", "superuser root uid", 100000, 1);
  ASSERT_EQ(w.events.size(), 2u);
  EXPECT_EQ(w.events[0].seq, 0);
  EXPECT_NE(w.events[0].text.find("[tool] cmd_run: root:x:0:0:wombat"), std::string::npos);
}

TEST_P(ContextWindowTest, SessionsArePerPrincipal) {
  const Principal other{"other", Role::kUser};
  Append("shared", Ev("mine", "ok"));
  auto theirs = engine_->context().Append(other, {.session_id = "shared", .event = Ev("theirs")});
  ASSERT_TRUE(theirs.ok());
  EXPECT_EQ(theirs->seq, 0);
  ContextWindow w = Window("shared", "theirs", 1000);
  ASSERT_EQ(w.events.size(), 1u);
  EXPECT_EQ(w.events[0].event.input, "mine");
}

INSTANTIATE_TEST_SUITE_P(Backends, ContextWindowTest, ::testing::Values("sqlite", "in_memory"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace mnemo

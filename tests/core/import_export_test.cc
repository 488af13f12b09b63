#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

using testing::TempDir;

std::unique_ptr<Engine> OpenAt(const std::string& ws) {
  auto e = Engine::Open({.workspace = ws});
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(*e) : nullptr;
}

TEST(ImportExport, RoundTripIntoAFreshWorkspace) {
  TempDir dir;
  auto a = OpenAt(dir.Sub("a"));
  Principal me;
  ASSERT_TRUE(
      a->memory()
          .Store(me, {.key = "k1", .content = "first", .tags = std::vector<std::string>{"t"}})
          .ok());
  ASSERT_TRUE(
      a->memory()
          .Store(me, {.key = "k2", .content = "永远不要给 Sarah 发邮件", .ns = "skill-mail"})
          .ok());
  ASSERT_TRUE(a->rules()
                  .Put(me, {.tool_name = "shell",
                            .rule = "Don't run sudo.",
                            .priority = RulePriority::kCritical})
                  .ok());
  std::stringstream out;
  ASSERT_TRUE(a->admin().ExportJsonl(me, out).ok());
  std::string exported = out.str();

  auto b = OpenAt(dir.Sub("b"));
  std::stringstream in(exported);
  auto rep = b->admin().ImportJsonl(me, in);
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(rep->imported, 3);
  EXPECT_EQ(rep->created, 3);
  // The same records (the header's created_at may differ).
  auto body = [](const std::string& text) { return text.substr(text.find('\n') + 1); };
  std::stringstream again;
  ASSERT_TRUE(b->admin().ExportJsonl(me, again).ok());
  EXPECT_EQ(body(again.str()), body(exported));
  // Rules come back as rules: pinned again in the new workspace.
  auto prompt = b->rules().ForPrompt(me);
  ASSERT_TRUE(prompt.ok());
  EXPECT_NE(prompt->rendered.find("### `shell`\n- **[critical]** Don't run sudo.\n"),
            std::string::npos)
      << prompt->rendered;

  // Idempotent: merging the same file again changes nothing.
  std::stringstream in2(exported);
  auto rep2 = b->admin().ImportJsonl(me, in2, {}, {.merge = true});
  ASSERT_TRUE(rep2.ok());
  EXPECT_EQ(rep2->created, 0);
  std::stringstream third;
  ASSERT_TRUE(b->admin().ExportJsonl(me, third).ok());
  EXPECT_EQ(body(third.str()), body(exported));
}

// A turn's id is the published one (core/public_id.h): the export carries
// it, and a restore into a store whose storage ids run differently shows the
// same ids again.
TEST(ImportExport, TurnIdsAreTheSameAfterARestore) {
  TempDir dir;
  Principal me;
  auto ids = [&](Engine& e) {
    std::vector<int64_t> out;
    auto turns = e.archivist().SessionTurns(me, "s");
    EXPECT_TRUE(turns.ok()) << turns.status().ToString();
    for (const EpisodicTurn& t : turns.ok() ? *turns : std::vector<EpisodicTurn>{}) {
      out.push_back(t.id);
    }
    return out;
  };
  auto a = OpenAt(dir.Sub("a"));
  for (const char* said : {"first", "second"}) {
    ASSERT_TRUE(
        a->archivist()
            .TurnComplete(
                me,
                {.session_id = "s", .user_message = said, .assistant_response = "ok", .sync = true})
            .ok());
  }
  const std::vector<int64_t> before = ids(*a);
  ASSERT_EQ(before.size(), 4u);
  auto recalled = a->memory().Recall(me, {.query = "second", .context_turns = 1});
  ASSERT_TRUE(recalled.ok()) << recalled.status().ToString();
  int turn_hits = 0;
  for (const RecallHit& h : recalled->results) {
    for (const RecallHit& t : h.context) {
      EXPECT_TRUE(std::ranges::find(before, std::stoll(t.id)) != before.end()) << t.id;
    }
    if (h.source != "turn") continue;
    ++turn_hits;
    EXPECT_TRUE(std::ranges::find(before, std::stoll(h.id)) != before.end()) << h.id;
  }
  EXPECT_GT(turn_hits, 0);
  std::stringstream out;
  ASSERT_TRUE(a->admin().ExportJsonl(me, out).ok());
  for (const int64_t id : before) {
    EXPECT_NE(out.str().find("\"id\":" + std::to_string(id)), std::string::npos) << id;
  }

  // b's storage ids 1..6 are taken by another session's turns first.
  auto b = OpenAt(dir.Sub("b"));
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(b->archivist()
                    .TurnComplete(me, {.session_id = "other",
                                       .user_message = "other " + std::to_string(i),
                                       .assistant_response = "ok",
                                       .sync = true})
                    .ok());
  }
  std::stringstream in(out.str());
  auto rep = b->admin().ImportJsonl(me, in, {}, {.merge = true});
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(ids(*b), before);
}

TEST(ImportExport, BadLinesAreAllReportedAndNothingIsImported) {
  TempDir dir;
  auto e = OpenAt(dir.Sub("ws"));
  Principal me;
  std::stringstream in(
      "{\"key\":\"ok1\",\"content\":\"fine\"}\n"
      "{\"key\":\"trunc\",\"content\":\"cut off\n"
      "{\"key\":\"ok2\",\"content\":\"fine too\"}\n"
      "{\"content\":\"no key\"}\n");
  auto rep = e->admin().ImportJsonl(me, in);
  ASSERT_FALSE(rep.ok());
  EXPECT_EQ(rep.status().code(), StatusCode::kInvalidArgument);
  const std::string& msg = rep.status().message();
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 4"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("line 1:"), std::string::npos) << msg;
  auto stats = e->memory().GetStats(me);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 0);
}

TEST(ImportExport, ImportRefusesSecrets) {
  TempDir dir;
  auto e = OpenAt(dir.Sub("ws"));
  Principal me;
  std::stringstream in(
      "{\"key\":\"k\",\"content\":\"Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456\"}\n");
  auto rep = e->admin().ImportJsonl(me, in);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.status().message().find("line 1"), std::string::npos);
}

// A version 1 file is parsed in blocks of lines on two threads
// (admin_import_v1.cc): the writes go to the store in the file's order, so a
// key written twice, in two blocks, keeps its later write, and the line
// numbers count the blank lines.
TEST(ImportExport, ALargeVersionOneFileKeepsItsOrder) {
  TempDir dir;
  auto e = OpenAt(dir.Sub("ws"));
  Principal me;
  std::string file;
  for (int i = 1; i <= 3000; ++i) {
    if (i % 700 == 0) file += "\n";
    const std::string key = i == 2600 ? "k10" : "k" + std::to_string(i);
    file += "{\"key\":\"" + key + "\",\"content\":\"entry " + std::to_string(i) + "\"}\n";
  }
  std::stringstream in(file);
  std::vector<int64_t> done;
  auto rep = e->admin().ImportJsonl(me, in, [&](int64_t d, int64_t) { done.push_back(d); });
  ASSERT_TRUE(rep.ok()) << rep.status().ToString();
  EXPECT_EQ(rep->imported, 3000);
  EXPECT_EQ(rep->created, 2999);
  auto k10 = e->memory().Get(me, {.key = "k10"});
  ASSERT_TRUE(k10.ok()) << k10.status().ToString();
  EXPECT_EQ(k10->content, "entry 2600");
  auto last = e->memory().Get(me, {.key = "k3000"});
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->content, "entry 3000");
  EXPECT_EQ(e->memory().Get(me, {.key = "k2600"}).status().code(), StatusCode::kNotFound);
  ASSERT_FALSE(done.empty());
  EXPECT_EQ(done.back(), 3004);  // the file's lines, four of them blank
}

// The bad lines of every block are reported, by their numbers in the file
// and in its order, and nothing is imported.
TEST(ImportExport, BadLinesOfEveryBlockAreReportedInOrder) {
  TempDir dir;
  auto e = OpenAt(dir.Sub("ws"));
  Principal me;
  std::string file;
  for (int i = 1; i <= 3000; ++i) {
    if (i == 7 || i == 1500 || i == 2900) {
      file += "{\"content\":\"no key\"}\n";
    } else {
      file += "{\"key\":\"k" + std::to_string(i) + "\",\"content\":\"fine\"}\n";
    }
  }
  std::stringstream in(file);
  auto rep = e->admin().ImportJsonl(me, in);
  ASSERT_FALSE(rep.ok());
  const std::string& msg = rep.status().message();
  EXPECT_NE(msg.find("3 bad lines"), std::string::npos) << msg;
  const size_t a = msg.find("line 7:");
  const size_t b = msg.find("line 1500:");
  const size_t c = msg.find("line 2900:");
  ASSERT_NE(a, std::string::npos) << msg;
  ASSERT_NE(b, std::string::npos) << msg;
  ASSERT_NE(c, std::string::npos) << msg;
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
  auto stats = e->memory().GetStats(me);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->entries, 0);
}

}  // namespace
}  // namespace mnemo

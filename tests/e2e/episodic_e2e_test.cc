// Spec 40, per-turn part, end to end through the real daemon: episodic rows,
// their search, the markdown archive and the MEMORY.md writer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/time.h"
#include "process.h"
#include "test_util.h"

namespace mnemo::e2e {
namespace {

using nlohmann::json;

class EpisodicE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    daemon_ = std::make_unique<Daemon>(dir_.path());
    ASSERT_TRUE(daemon_->started()) << daemon_->Stderr();
    http_ = std::make_unique<httplib::Client>("127.0.0.1", daemon_->port());
    http_->set_read_timeout(20, 0);
  }

  json Call(const std::string& method, const json& params) {
    auto r = http_->Post(
        "/rpc", json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}.dump(),
        "application/json");
    EXPECT_TRUE(r);
    if (!r) return nullptr;
    return json::parse(r->body, nullptr, false);
  }

  json Turn(const std::string& session, const std::string& user, const std::string& assistant,
            const std::string& timestamp, json calls = json::array()) {
    json r = Call("memory.turn_complete", {{"session_id", session},
                                           {"user_message", user},
                                           {"assistant_response", assistant},
                                           {"timestamp", timestamp},
                                           {"tool_calls", std::move(calls)},
                                           {"sync", true}});
    EXPECT_TRUE(r.contains("result")) << r.dump();
    return r["result"];
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  testing::TempDir dir_;
  std::unique_ptr<Daemon> daemon_;
  std::unique_ptr<httplib::Client> http_;
};

TEST_F(EpisodicE2e, EveryTurnIsTwoRowsInArrivalOrderWhateverTheTimestamps) {
  json a = Turn("s1", "first question", "first answer", "2026-11-29T10:00:00Z");
  json b = Turn("s1", "second question", "second answer", "2026-11-29T10:00:00Z");  // equal
  json c = Turn("s1", "third question", "third answer", "2026-11-29T09:00:00Z");    // backwards
  EXPECT_EQ(a["episodic"]["user"]["seq"], 0);
  EXPECT_EQ(a["episodic"]["assistant"]["seq"], 1);
  EXPECT_EQ(c["episodic"]["assistant"]["seq"], 5);
  json rows = Call("memory.session_turns", {{"session_id", "s1"}})["result"]["turns"];
  ASSERT_EQ(rows.size(), 6u) << rows.dump();
  const char* expected[] = {"first question", "first answer",   "second question",
                            "second answer",  "third question", "third answer"};
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(rows[i]["seq"], static_cast<int>(i));
    EXPECT_EQ(rows[i]["content"], expected[i]);
    EXPECT_EQ(rows[i]["role"], i % 2 == 0 ? "user" : "assistant");
  }
}

// Issue 18: since/until (RFC 3339, [since, until)) and agent_id on the
// searches over turns, and clear errors for a bad window.
// Issue 42, item 19: an RFC 3339 time that names no instant (a day past its
// month's end, an offset past ±23:59) is refused, not rolled over into
// another day.
TEST_F(EpisodicE2e, ImpossibleDatesAndOffsetsAreRefused) {
  for (const char* when : {"2026-02-30T10:00:00Z", "2026-04-31T10:00:00Z",
                           "2026-03-01T10:00:00+99:99", "2026-03-01T10:00:00-24:00"}) {
    json turn = Call("memory.turn_complete", {{"session_id", "s"},
                                              {"user_message", "hello"},
                                              {"assistant_response", "hi"},
                                              {"timestamp", when},
                                              {"sync", true}});
    EXPECT_EQ(turn["error"]["code"], -32602) << when << ": " << turn.dump();
    EXPECT_EQ(turn["error"]["data"]["field"], "timestamp") << turn.dump();
    json search = Call("memory.episodic_search", {{"query", "hello"}, {"since", when}});
    EXPECT_EQ(search["error"]["code"], -32602) << when << ": " << search.dump();
    EXPECT_EQ(search["error"]["data"]["field"], "since") << search.dump();
  }
  json leap =
      Call("memory.episodic_search", {{"query", "hello"}, {"since", "2028-02-29T00:00:00Z"}});
  EXPECT_TRUE(leap.contains("result")) << leap.dump();
}

TEST_F(EpisodicE2e, SearchesTakeATimeWindowAndAnAgent) {
  auto turn = [&](const char* said, const char* when, const char* agent) {
    json r = Call("memory.turn_complete", {{"session_id", "trip"},
                                           {"user_message", said},
                                           {"assistant_response", "noted"},
                                           {"timestamp", when},
                                           {"agent_id", agent},
                                           {"sync", true}});
    ASSERT_TRUE(r.contains("result")) << r.dump();
  };
  turn("the quokka flight is in March", "2026-03-01T10:00:00Z", "planner");
  turn("the quokka hotel is booked", "2026-04-01T10:00:00Z", "booker");
  auto said = [&](const std::string& method, json params) {
    params["query"] = "quokka";
    json r = Call(method, params);
    EXPECT_TRUE(r.contains("result")) << r.dump();
    std::vector<std::string> out;
    for (const json& h : r["result"]["results"]) {
      out.push_back(h.contains("content") ? h["content"].get<std::string>() : "");
    }
    return out;
  };
  // Each turn is a user row and its assistant row ("noted"): the rows of
  // the other turn are what must be missing.
  using ::testing::Contains;
  using ::testing::Not;
  const std::string march = "the quokka flight is in March";
  const std::string april = "the quokka hotel is booked";
  std::vector<std::string> got =
      said("memory.episodic_search", {{"since", "2026-03-15T00:00:00Z"}});
  EXPECT_THAT(got, Contains(april));
  EXPECT_THAT(got, Not(Contains(march)));
  // 11:30+01:00 is 10:30Z: the March turn (10:00Z) is before it.
  got = said("memory.episodic_search", {{"until", "2026-03-01T11:30:00+01:00"}});
  EXPECT_THAT(got, Contains(march));
  EXPECT_THAT(got, Not(Contains(april)));
  got = said("memory.episodic_search", {{"agent_id", "booker"}});
  EXPECT_THAT(got, Contains(april));
  EXPECT_THAT(got, Not(Contains(march)));
  std::vector<std::string> recalled =
      said("memory.recall", {{"since", "2026-03-15T00:00:00Z"}, {"agent_id", "booker"}});
  ASSERT_FALSE(recalled.empty());
  for (const std::string& c : recalled) EXPECT_EQ(c.find("flight"), std::string::npos) << c;
  json block =
      Call("memory.context_build", {{"query", "quokka"}, {"until", "2026-03-15T00:00:00Z"}});
  ASSERT_TRUE(block.contains("result")) << block.dump();
  const std::string text = block["result"]["text"];
  EXPECT_NE(text.find("quokka flight"), std::string::npos) << text;
  EXPECT_EQ(text.find("quokka hotel"), std::string::npos) << text;

  json bad = Call("memory.episodic_search", {{"query", "quokka"}, {"since", "last week"}});
  ASSERT_TRUE(bad.contains("error")) << bad.dump();
  EXPECT_EQ(bad["error"]["code"], -32602);
  EXPECT_NE(
      bad["error"]["message"].get<std::string>().find("since \"last week\" is not an RFC 3339"),
      std::string::npos)
      << bad.dump();
  json backwards = Call(
      "memory.search",
      {{"query", "quokka"}, {"since", "2026-04-01T00:00:00Z"}, {"until", "2026-03-01T00:00:00Z"}});
  ASSERT_TRUE(backwards.contains("error")) << backwards.dump();
  EXPECT_NE(backwards["error"]["message"].get<std::string>().find("until must be later than since"),
            std::string::npos)
      << backwards.dump();
}

TEST_F(EpisodicE2e, EnglishAndChineseTurnsAreFoundAndToolOutputsStoredRaw) {
  json calls = json::array({{{"name", "files_read"},
                             {"arguments", {{"path", "/srv/app/config.yaml"}}},
                             {"success", false},
                             {"output", "ERROR: permission denied on /srv/app/config.yaml"}}});
  Turn("work", "Why does the deployment of the billing service fail?", "Looking into it.",
       "2026-11-29T10:00:00Z", calls);
  Turn("work", "我们明天讨论数据库迁移的计划", "好的，明天见。", "2026-11-29T10:01:00Z");
  json en = Call("memory.episodic_search", {{"query", "billing deployment"}})["result"]["results"];
  ASSERT_FALSE(en.empty());
  EXPECT_EQ(en[0]["content"], "Why does the deployment of the billing service fail?");
  EXPECT_NE(en[0]["snippet"].get<std::string>().find("**billing**"), std::string::npos);
  json zh = Call("memory.episodic_search", {{"query", "数据库迁移"}})["result"]["results"];
  ASSERT_FALSE(zh.empty());
  EXPECT_EQ(zh[0]["content"], "我们明天讨论数据库迁移的计划");
  // The tool's output is searchable and stored as it came, with the lesson.
  // (Its user row follows, ranked through this neighbour.)
  json tool = Call("memory.episodic_search", {{"query", "permission denied"}})["result"]["results"];
  ASSERT_GE(tool.size(), 1u) << tool.dump();
  EXPECT_EQ(tool[0]["snippet"],
            "[files_read] ERROR: **permission** **denied** on "
            "/srv/app/config.yaml");
  EXPECT_EQ(tool[0]["role"], "assistant");
  EXPECT_EQ(tool[0]["lesson"], "Tools that failed in this turn: files_read");
  json stored = json::parse(tool[0]["tool_calls_json"].get<std::string>());
  EXPECT_EQ(stored[0]["output"], "ERROR: permission denied on /srv/app/config.yaml");
  EXPECT_EQ(stored[0]["arguments"]["path"], "/srv/app/config.yaml");
  // Session filter.
  EXPECT_TRUE(Call("memory.episodic_search",
                   {{"query", "billing"}, {"session_id", "other"}})["result"]["results"]
                  .empty());
}

TEST_F(EpisodicE2e, SecretsAreRedactedInStoredRowsAndCounted) {
  json r =
      Turn("sec", "my key is sk-abcdefghijklmnopqrstuvwxyz0123456789 keep it", "noted",
           "2026-11-29T10:00:00Z",
           json::array(
               {{{"name", "shell"},
                 {"arguments", {{"cmd", "export TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}},
                 {"output", "password=hunter2hunter2"}}}));
  EXPECT_GE(r["redactions"].get<int>(), 3) << r.dump();
  json rows = Call("memory.session_turns", {{"session_id", "sec"}})["result"]["turns"];
  ASSERT_EQ(rows.size(), 2u);
  const std::string all = rows.dump();
  EXPECT_EQ(all.find("sk-abcdefghijklmnop"), std::string::npos) << all;
  EXPECT_EQ(all.find("ghp_abcdefghijklmnop"), std::string::npos) << all;
  EXPECT_EQ(all.find("hunter2"), std::string::npos) << all;
  EXPECT_NE(all.find("[REDACTED]"), std::string::npos);
  // The archive file holds the redacted text too.
  const std::string file = Read(dir_.path() + "/memory_tree/content/episodic/sec/000000.md");
  EXPECT_EQ(file.find("sk-abcdefghijklmnop"), std::string::npos) << file;
  EXPECT_NE(file.find("[REDACTED]"), std::string::npos) << file;
}

TEST_F(EpisodicE2e, ArchiveFileHasTheExactBytesOfSpec40) {
  Turn("sess-1", "Hello \"world\"", "Hi there.", "2023-11-14T22:13:20Z",
       json::array({{{"name", "shell"}, {"success", false}, {"output", "boom"}}}));
  const std::string dir = dir_.path() + "/memory_tree/content/episodic/sess-1/";
  EXPECT_EQ(Read(dir + "000000.md"),
            "---\n"
            "session_id: \"sess-1\"\n"
            "seq: 0\n"
            "timestamp_ms: 1700000000000\n"
            "role: \"user\"\n"
            "cost_microdollars: 0\n"
            "---\n"
            "\n"
            "Hello \"world\"\n");
  const std::string assistant = Read(dir + "000001.md");
  EXPECT_TRUE(assistant.starts_with("---\nsession_id: \"sess-1\"\nseq: 1\n")) << assistant;
  EXPECT_NE(assistant.find("lesson: \"Tools that failed in this turn: shell\"\n"),
            std::string::npos)
      << assistant;
  EXPECT_NE(assistant.find("tool_calls_json: \"[{\\\"arguments\\\":{},"), std::string::npos)
      << assistant;
  EXPECT_TRUE(assistant.ends_with("---\n\nHi there.\n")) << assistant;
  // An unsafe session id stays inside the archive.
  Turn("../escape", "x", "y", "2026-11-29T10:00:00Z");
  EXPECT_FALSE(std::filesystem::exists(dir_.path() + "/memory_tree/content/escape"));
  int inside = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(dir_.path() + "/memory_tree/content/episodic")) {
    if (e.path().filename().string().find("escape") != std::string::npos) ++inside;
  }
  EXPECT_EQ(inside, 1);
}

TEST_F(EpisodicE2e, UpdateMemoryMdAppendsReplacesAndRefusesOtherFiles) {
  json r = Call("memory.update_memory_md",
                {{"file", "MEMORY.md"}, {"content", "## Facts\nThe user is in Berlin."}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  r = Call("memory.update_memory_md", {{"file", "MEMORY.md"},
                                       {"action", "replace_section"},
                                       {"section_title", "Facts"},
                                       {"content", "The user moved to Lisbon."}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(Read(dir_.path() + "/MEMORY.md"), "## Facts\nThe user moved to Lisbon.\n");
  for (const char* bad : {"../MEMORY.md", "memory.md/../x", "notes.md", "/etc/passwd"}) {
    r = Call("memory.update_memory_md", {{"file", bad}, {"content", "x"}});
    EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
    EXPECT_EQ(r["error"]["message"], std::string("File '") + bad +
                                         "' is not allowed. Permitted files: MEMORY.md, SKILL.md");
  }
}

TEST_F(EpisodicE2e, SegmentsCloseOnATopicMarkerAndYieldRecapEventsAndProfile) {
  Turn("seg", "I prefer dark mode in every editor.", "Noted, dark mode it is.", MinutesAgo(3));
  Turn("seg", "We decided to use PostgreSQL for the billing service.",
       "Good choice for the billing service.", MinutesAgo(2));
  json third = Turn("seg", "By the way, can you help me with my taxes?", "Sure.", MinutesAgo(1));
  EXPECT_EQ(third["segment_closed"], true) << third.dump();
  json segments = Call("memory.segments", {{"session_id", "seg"}})["result"]["segments"];
  ASSERT_EQ(segments.size(), 2u) << segments.dump();
  EXPECT_EQ(segments[0]["status"], "closed");
  EXPECT_EQ(segments[0]["turn_count"], 2);
  EXPECT_EQ(segments[0]["first_seq"], 0);
  EXPECT_EQ(segments[0]["last_seq"], 3);
  EXPECT_EQ(segments[0]["recap_source"], "extractive");
  EXPECT_FALSE(segments[0]["recap"].get<std::string>().empty());
  EXPECT_EQ(segments[1]["status"], "open");
  EXPECT_EQ(segments[1]["first_seq"], 4);

  json events = Call("memory.events", json::object())["result"]["events"];
  std::map<std::string, std::string> by_type;
  for (const json& e : events) by_type[e["type"]] = e["text"];
  EXPECT_EQ(by_type["preference"], "I prefer dark mode in every editor.") << events.dump();
  EXPECT_EQ(by_type["decision"], "We decided to use PostgreSQL for the billing service.");
  json found = Call("memory.events", {{"query", "PostgreSQL"}})["result"]["events"];
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["type"], "decision");

  // Recall reaches every layer, evidence first: the turn; the event only
  // repeats the turn's words, so it is left out (issue 18); an event worded
  // apart from the returned turns comes after them.
  json recall = Call("memory.recall", {{"query", "PostgreSQL billing"}})["result"]["results"];
  std::set<std::string> sources;
  for (const json& h : recall) sources.insert(h["source"]);
  EXPECT_TRUE(sources.contains("turn")) << recall.dump();
  EXPECT_EQ(recall[0]["source"], "turn") << recall.dump();
  EXPECT_FALSE(sources.contains("event")) << recall.dump();

  const std::string profile = Call("memory.profile_render", json::object())["result"]["rendered"];
  EXPECT_TRUE(profile.starts_with("### Preference\n")) << profile;
  // A slot named by the thing preferred, its value what is said of it,
  // never the thing again (spec 40 §5, issue 44).
  EXPECT_NE(profile.find("- dark mode: in every editor (confirmed 1x)"), std::string::npos)
      << profile;
}

// Issue 44 over the daemon: slots from what the user says, a new manager
// supersedes the old one, "no longer" ends the employer, and another
// person's facts and small talk leave no line in the rendered profile.
TEST_F(EpisodicE2e, TheProfileKeepsTheUsersCurrentSlotsOnly) {
  Turn("who", "Hi there, I'm Rosa. I work at Initech as an analyst.", "Noted.", MinutesAgo(6));
  Turn("who", "My boss is Grace Hopper, and my cousin lives in Quito.", "Noted.", MinutesAgo(5));
  Turn("who", "Haha, I always lose my keys.", "Noted.", MinutesAgo(4));
  Turn("who", "Alan Kay is my new boss since the merger.", "Noted.", MinutesAgo(3));
  Turn("who", "I no longer work at Initech.", "Noted.", MinutesAgo(2));
  ASSERT_TRUE(Call("memory.session_end", {{"session_id", "who"}, {"sync", true}})["result"].value(
      "closed", false));
  const std::string profile = Call("memory.profile_render", json::object())["result"]["rendered"];
  EXPECT_EQ(profile,
            "### Context\n"
            "- manager: Alan Kay (confirmed 1x)\n"
            "- name: Rosa (confirmed 1x)\n"
            "- role: analyst (confirmed 1x)\n")
      << profile;
  // The old manager is history, not current.
  json facets = Call("memory.profile", json::object())["result"]["facets"];
  bool found = false;
  for (const json& f : facets) {
    if (f["key"] != "manager") continue;
    found = true;
    EXPECT_EQ(f["value"], "Alan Kay");
  }
  EXPECT_TRUE(found) << facets.dump();
}

// A chain of moves leaves its last destination current and the earlier one
// in the history; "X is no longer my manager" ends the slot; a nationality is
// the origin; 在<place>工作 names no employer.
TEST_F(EpisodicE2e, MovesEndsNationalitiesAndWorkPlacesReachTheProfile) {
  Turn("moves", "I moved to Leeds and then to York.", "Noted.", MinutesAgo(6));
  Turn("moves", "My manager is Dana Kim.", "Noted.", MinutesAgo(5));
  Turn("moves", "Dana Kim is no longer my manager.", "Noted.", MinutesAgo(4));
  Turn("moves", "I'm Dutch.", "Noted.", MinutesAgo(3));
  Turn("moves", "我在北京工作。", "好的。", MinutesAgo(2));
  ASSERT_TRUE(Call("memory.session_end", {{"session_id", "moves"}, {"sync", true}})["result"].value(
      "closed", false));
  json facets = Call("memory.profile", {{"include_history", true}})["result"]["facets"];
  std::map<std::string, json> by_key;
  for (const json& f : facets) by_key[f["key"].get<std::string>()] = f;
  ASSERT_TRUE(by_key.contains("location")) << facets.dump();
  EXPECT_EQ(by_key["location"]["value"], "York");
  ASSERT_EQ(by_key["location"]["history"].size(), 1u) << facets.dump();
  EXPECT_EQ(by_key["location"]["history"][0]["value"], "Leeds");
  ASSERT_TRUE(by_key.contains("origin")) << facets.dump();
  EXPECT_EQ(by_key["origin"]["value"], "Dutch");
  EXPECT_FALSE(by_key.contains("manager")) << facets.dump();
  EXPECT_FALSE(by_key.contains("employer")) << facets.dump();
}

TEST_F(EpisodicE2e, SessionEndClosesOnceAndChineseEventsAreFound) {
  Turn("zh", "我决定用 Rust 写这个服务。", "好的。", MinutesAgo(1));
  json first = Call("memory.session_end", {{"session_id", "zh"}, {"sync", true}})["result"];
  EXPECT_EQ(first["closed"], true) << first.dump();
  json again = Call("memory.session_end", {{"session_id", "zh"}, {"sync", true}})["result"];
  EXPECT_EQ(again["closed"], false) << again.dump();
  json segments = Call("memory.segments", {{"session_id", "zh"}})["result"]["segments"];
  ASSERT_EQ(segments.size(), 1u);
  EXPECT_EQ(segments[0]["status"], "closed");
  EXPECT_EQ(segments[0]["recap"], "我决定用 Rust 写这个服务。");  // "好的。" is small talk
  json events = Call("memory.events", {{"type", "decision"}})["result"]["events"];
  ASSERT_EQ(events.size(), 1u) << events.dump();
  EXPECT_EQ(events[0]["text"], "我决定用 Rust 写这个服务。");
}

TEST_F(EpisodicE2e, ProfilePutStatesAFacetThatOutranksObservedOnes) {
  json r = Call("memory.profile_put",
                {{"facet_type", "preference"}, {"key", "editor"}, {"value", "Helix"}});
  ASSERT_TRUE(r.contains("result")) << r.dump();
  EXPECT_EQ(r["result"]["confidence"], 0.9);
  EXPECT_EQ(r["result"]["evidence_count"], 1);
  r = Call("memory.profile_put",
           {{"facet_type", "preference"}, {"key", "editor"}, {"value", "Zed"}});
  // A correction replaces the value, keeps the old one as history and is
  // no confirmation (spec 40 §5).
  EXPECT_EQ(r["result"]["value"], "Zed");
  EXPECT_EQ(r["result"]["evidence_count"], 1);
  ASSERT_EQ(r["result"]["history"].size(), 1u) << r.dump();
  EXPECT_EQ(r["result"]["history"][0]["value"], "Helix");
  EXPECT_EQ(Call("memory.profile_render", json::object())["result"]["rendered"],
            "### Preference\n- editor: Zed (confirmed 1x)\n");
  json current = Call("memory.profile", json::object())["result"]["facets"];
  ASSERT_EQ(current.size(), 1u);
  EXPECT_FALSE(current[0].contains("history"));
  json full = Call("memory.profile", {{"include_history", true}})["result"]["facets"];
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(full[0]["history"][0]["value"], "Helix");
  r = Call("memory.profile_put", {{"facet_type", "Bad Type"}, {"key", "k"}, {"value", "v"}});
  EXPECT_EQ(r["error"]["code"], -32602) << r.dump();
  EXPECT_NE(r["error"]["message"].get<std::string>().find("facet_type"), std::string::npos);
}

TEST_F(EpisodicE2e, ATimeGapStartsANewSegment) {
  Turn("gap", "first topic", "ok", MinutesAgo(25));
  json later = Turn("gap", "much later", "ok", MinutesAgo(5));  // > 600 s
  EXPECT_EQ(later["segment_closed"], true) << later.dump();
  json back = Turn("gap", "earlier clock", "ok", MinutesAgo(60));  // backwards: no gap
  EXPECT_EQ(back["segment_closed"], false) << back.dump();
}

TEST(SessionsCli, ListShowAndProfile) {
  testing::TempDir dir;
  const std::string ws = dir.Sub("ws");
  auto mnemo = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--workspace", ws});
    return RunMnemo(args);
  };
  RunResult r = mnemo({"rpc", "memory.turn_complete",
                       R"({"session_id":"cli-1","user_message":"I prefer tea over coffee.",
                           "assistant_response":"Noted.","sync":true})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = mnemo({"rpc", "memory.session_end", R"({"session_id":"cli-1","sync":true})"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = mnemo({"sessions", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("cli-1"), std::string::npos) << r.out;
  r = mnemo({"sessions", "show", "cli-1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("#0 user"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("#1 assistant"), std::string::npos) << r.out;
  r = mnemo({"profile"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("### Preference\n- "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("- tea: preferred over coffee (confirmed 1x)"), std::string::npos) << r.out;
  r = mnemo({"sessions", "show", " "});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("session_id"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace mnemo::e2e

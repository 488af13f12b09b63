// Conversation-aware search of turns (spec 20, "Turns in their
// conversation"), memory_recall's evidence first and the evidence in
// memory.context_build (issue 18 §1), on a real SQLite workspace.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/search/turn_ranking.h"
#include "mnemo/engine.h"
#include "mnemo/limits.h"
#include "test_util.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

class ConversationSearch : public ::testing::Test {
 protected:
  void SetUp() override {
    auto e = Engine::Open({.workspace = dir_.Sub("ws")});
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    engine_ = std::move(*e);
    // Unrelated talk, so that the keyword statistics are those of a store in
    // use rather than of two rows.
    const std::vector<std::string> filler = {
        "The weather in the mountains was cold and windy all week.",
        "I finished reading a novel about sailors in the north sea.",
        "My brother started a new job at the bakery downtown.",
        "We cooked pasta with tomatoes and basil for dinner.",
        "The train to the coast was late again this morning.",
        "I bought a blue jacket and new running shoes.",
    };
    for (size_t i = 0; i < filler.size(); ++i) {
      Say("filler", filler[i], "Sounds good, tell me more about it " + std::to_string(i));
    }
  }

  void Say(const std::string& session, const std::string& user, const std::string& assistant,
           std::vector<ToolCall> calls = {}, TimeMs at = kMay8) {
    auto r = engine_->archivist().TurnComplete(who_, {.session_id = session,
                                                      .user_message = user,
                                                      .assistant_response = assistant,
                                                      .tool_calls = std::move(calls),
                                                      .timestamp = at});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }

  static constexpr TimeMs kMay8 = 1683554160000;  // 2023-05-08T13:56:00Z

  testing::TempDir dir_;
  Principal who_;
  std::unique_ptr<Engine> engine_;
};

TEST_F(ConversationSearch, AReplyRanksThroughTheQuestionItAnswers) {
  Say("pets", "What did you name your new puppy?", "We called him Biscuit.");
  auto hits = engine_->archivist().EpisodicSearch(who_, {.query = "puppy name", .limit = 5});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_GE(hits->size(), 2u);
  EXPECT_EQ((*hits)[0].turn.content, "What did you name your new puppy?");
  // The answer names no query word; it ranks through its question.
  EXPECT_EQ((*hits)[1].turn.content, "We called him Biscuit.");
  EXPECT_LT((*hits)[1].score, (*hits)[0].score);
  EXPECT_GT((*hits)[1].score, 0);
}

TEST_F(ConversationSearch, ContextTurnsReturnTheNeighboursOfEachHit) {
  Say("trip", "Where are we going in June?", "To Lisbon, with your sister.");
  Say("trip", "Book the hotel near the river.", "Done, three nights.");
  auto hits = engine_->archivist().EpisodicSearch(
      who_, {.query = "hotel river", .session_id = "trip", .limit = 1, .context_turns = 1});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].turn.seq, 2);
  ASSERT_EQ((*hits)[0].context.size(), 2u);
  EXPECT_EQ((*hits)[0].context[0].seq, 1);
  EXPECT_EQ((*hits)[0].context[0].content, "To Lisbon, with your sister.");
  EXPECT_EQ((*hits)[0].context[1].seq, 3);

  auto none = engine_->archivist().EpisodicSearch(who_, {.query = "hotel river", .limit = 1});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE((*none)[0].context.empty());
}

TEST_F(ConversationSearch, ContextTurnsOutsideZeroToFiveAreRefusedByName) {
  for (int bad : {-1, 6}) {
    auto hits =
        engine_->archivist().EpisodicSearch(who_, {.query = "weather", .context_turns = bad});
    ASSERT_FALSE(hits.ok());
    EXPECT_EQ(hits.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(hits.status().message().find("context_turns"), std::string::npos);
    EXPECT_NE(hits.status().message().find("0 to 5"), std::string::npos);
    auto recall = engine_->memory().Recall(who_, {.query = "weather", .context_turns = bad});
    ASSERT_FALSE(recall.ok());
    EXPECT_EQ(recall.status().code(), StatusCode::kInvalidArgument);
  }
}

// Every search of the C++ API parses its query by one rule (Query::Parse):
// the conversation search once took any size here, where the wire refused
// more than kMaxContentBytes, and said "blank" in words of its own.
TEST_F(ConversationSearch, EverySearchRefusesTheSameQueriesWithTheSameMessage) {
  for (const std::string& bad : {std::string(kMaxContentBytes + 1, 'q'), std::string(" \t")}) {
    auto episodic = engine_->archivist().EpisodicSearch(who_, {.query = bad, .limit = 5});
    auto entries = engine_->memory().Search(who_, {.query = bad});
    auto recall = engine_->memory().Recall(who_, {.query = bad});
    ASSERT_FALSE(episodic.ok());
    ASSERT_FALSE(entries.ok());
    ASSERT_FALSE(recall.ok());
    EXPECT_EQ(episodic.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(episodic.status().field(), "query");
    EXPECT_EQ(episodic.status().message(), entries.status().message());
    EXPECT_EQ(recall.status().message(), entries.status().message());
  }
}

TEST_F(ConversationSearch, RecallShowsTheMatchingPartOfAToolOutput) {
  std::string output = "Results for your search. ";
  for (int i = 0; i < 30; ++i) output += "Unrelated listing number " + std::to_string(i) + ". ";
  output += "The Lisbon office of Acme opens at nine on weekdays. ";
  for (int i = 30; i < 60; ++i) output += "Unrelated listing number " + std::to_string(i) + ". ";
  Say("tools", "Search the web for it.", "", {{.name = "web_search", .output = output}});
  auto r = engine_->memory().Recall(who_, {.query = "Acme Lisbon office", .max_results = 5});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const RecallHit* turn = nullptr;
  for (const RecallHit& h : r->results) {
    if (h.source == "turn" && h.category == "assistant") turn = &h;
  }
  ASSERT_NE(turn, nullptr);
  // The passage: the question, then the answer's matching part of the output.
  EXPECT_EQ(turn->content.rfind("user: Search the web for it.\nassistant: [web_search] ", 0), 0u)
      << turn->content;
  EXPECT_NE(turn->content.find("The Lisbon office of Acme opens at nine"), std::string::npos);
  EXPECT_LT(turn->content.size(), output.size());
}

// Spec 50: a no_memory tool's output takes no part in memory, so recall never
// shows it, also not as the readable text of a neighbouring turn.
TEST_F(ConversationSearch, RecallNeverShowsTheOutputOfANoMemoryTool) {
  ASSERT_TRUE(engine_->tools().Register(who_, {.name = "vault_read", .no_memory = true}).ok());
  Say("vault", "Open the vault entry about the Lisbon office safe.", "",
      {{.name = "vault_read", .output = "The Lisbon office safe code is 4471."}});
  auto r = engine_->memory().Recall(
      who_, {.query = "Lisbon office safe", .max_results = 10, .context_turns = 2});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  for (const RecallHit& h : r->results) {
    EXPECT_EQ(h.content.find("4471"), std::string::npos) << h.content;
    for (const RecallHit& c : h.context) {
      EXPECT_EQ(c.content.find("4471"), std::string::npos) << c.content;
    }
  }
}

TEST_F(ConversationSearch, RecallPutsTurnsFirstAndDropsRecapsThatOnlyRepeatThem) {
  Say("garden", "I planted tomatoes and zucchini in the garden beds.",
      "Lovely, a vegetable patch.");
  auto end = engine_->archivist().SessionEnd(who_, "garden", /*sync=*/true);
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  auto r = engine_->memory().Recall(who_, {.query = "zucchini garden beds", .max_results = 10});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  EXPECT_EQ(r->results[0].source, "turn");
  EXPECT_EQ(r->results[0].content,
            "user: I planted tomatoes and zucchini in the garden beds.\n"
            "assistant: Lovely, a vegetable patch.");
  for (const RecallHit& h : r->results) {
    if (h.source == "turn") continue;
    EXPECT_EQ(h.content.find("I planted tomatoes and zucchini"), std::string::npos)
        << h.source << " repeats a returned turn: " << h.content;
  }
}

// Turns next to each other are one item: the session and time once, then
// each turn with its number and role, in session order.
TEST_F(ConversationSearch, ContextBuildQuotesNeighbouringTurnsAsOneRun) {
  Say("pets", "What did you name your new puppy?", "We called him Biscuit.");
  auto block = engine_->context().Build(who_, {.query = "puppy name", .budget_chars = 4000});
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_NE(block->text.find("- (pets, 2023-05-08 13:56) #0 user: What did you name your new "
                             "puppy? #1 assistant: We called him Biscuit.\n"),
            std::string::npos)
      << block->text;
}

// A turn after a question is its answer: it ranks above a turn that only
// follows a statement with the same words (spec 20).
TEST_F(ConversationSearch, TheAnswerToAMatchingQuestionRanksAboveAnotherNeighbour) {
  // Sessions in this order so that, by candidate order alone, the
  // statement's neighbour would come first.
  Say("a-bus", "I saw the hockey team bus.", "Nice, quite a sight.");
  Say("b-fan", "Which hockey team you support?", "The Wolves, always.");
  auto hits = engine_->archivist().EpisodicSearch(who_, {.query = "hockey team", .limit = 4});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<std::string> order;
  for (const EpisodicHit& h : *hits) order.push_back(h.turn.content);
  const auto answer = std::find(order.begin(), order.end(), "The Wolves, always.");
  const auto other = std::find(order.begin(), order.end(), "Nice, quite a sight.");
  ASSERT_NE(answer, order.end()) << ::testing::PrintToString(order);
  EXPECT_TRUE(other == order.end() || answer < other) << ::testing::PrintToString(order);
}

// A segment document is the segment's prose: when the block quotes one of
// its turns it adds nothing, and its room goes to more turns.
TEST_F(ConversationSearch, ContextBuildLeavesOutTheDocumentOfASegmentItQuotes) {
  // Turns that end in small talk, which a document's gist leaves out: it
  // quotes none of them whole.
  Say("garden",
      "Hi there! I planted tomatoes and zucchini in the garden beds on Saturday. The soil was "
      "very dry after the long summer, so I added two bags of compost.",
      "Lovely, a vegetable patch of your own. Compost helps a lot with dry soil. Thanks!");
  Say("garden", "Hello! The zucchini needs water every morning before it gets hot.",
      "I will remind you at seven every morning this week. Thanks!");
  auto end = engine_->archivist().SessionEnd(who_, "garden", /*sync=*/true);
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  auto docs = engine_->documents().Search(who_, {.query = "zucchini garden"});
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  ASSERT_FALSE(docs->empty()) << "the segment's document is searchable";
  auto block = engine_->context().Build(who_, {.query = "zucchini garden", .budget_chars = 4000});
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_NE(block->text.find("#0 user: Hi there! I planted tomatoes"), std::string::npos)
      << block->text;

  EXPECT_EQ(block->text.find("agent://session/garden/segment/"), std::string::npos) << block->text;
}

// The profile shows who the user is; a fact that fits no slot ("I've been
// ...") shows only when the query names it: the turns tell what happened.
TEST_F(ConversationSearch, ContextBuildShowsAFreeFactOnlyWhenTheQueryNamesIt) {
  Say("life", "I live in Lisbon. I've been busy painting watercolours lately.", "Nice!");
  auto end = engine_->archivist().SessionEnd(who_, "life", /*sync=*/true);
  ASSERT_TRUE(end.ok()) << end.status().ToString();
  auto facets = engine_->knowledge().Profile(who_);
  ASSERT_TRUE(facets.ok()) << facets.status().ToString();
  ASSERT_EQ(facets->size(), 2u) << "a location slot and a free fact";
  auto other = engine_->context().Build(who_, {.query = "train coast", .budget_chars = 4000});
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_NE(other->text.find("- context location: Lisbon\n"), std::string::npos) << other->text;
  EXPECT_EQ(other->text.find("busy painting"), std::string::npos) << other->text;
  auto named = engine_->context().Build(who_, {.query = "painting", .budget_chars = 4000});
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_NE(named->text.find("- context i've been busy painting: "), std::string::npos)
      << named->text;
}

// Coverage (spec 20, "Turns in their conversation"): a turn that holds more
// of the query ranks above one that repeats its rarest word.
TEST_F(ConversationSearch, ATurnHoldingMoreOfTheQueryRanksFirst) {
  for (int i = 0; i < 8; ++i) {
    Say("meals-" + std::to_string(i), "We had soup at the kitchen table, day " + std::to_string(i),
        "");
  }
  Say("wind", "A zephyr, a zephyr, a zephyr through the window.", "");
  auto hits =
      engine_->archivist().EpisodicSearch(who_, {.query = "zephyr kitchen table", .limit = 3});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_FALSE(hits->empty());
  EXPECT_NE((*hits)[0].turn.content.find("kitchen table"), std::string::npos)
      << (*hits)[0].turn.content;
}

// A turn's date is searchable (spec 20): "on October 13, 2023" counts for
// the turns said that day, though no turn says the date.
TEST_F(ConversationSearch, ADateInTheQueryFindsTheTurnsOfThatDay) {
  constexpr TimeMs kOct13 = 1697198400000;  // 2023-10-13T12:00:00Z
  constexpr TimeMs kNov2 = 1698926400000;   // 2023-11-02T12:00:00Z
  Say("art-1", "Here is the painting I made of the lake.", "", {}, kNov2);
  Say("art-2", "Here is the painting I made of the hills.", "", {}, kOct13);
  Say("art-3", "Here is the painting I made of the coast.", "", {}, kNov2);
  auto hits = engine_->archivist().EpisodicSearch(
      who_, {.query = "Which painting did I show on October 13, 2023?", .limit = 3});
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 3u);
  EXPECT_EQ((*hits)[0].turn.content, "Here is the painting I made of the hills.");
}

// recency_weight (spec 20): the same blend as memory.search, by turn time.
TEST_F(ConversationSearch, RecencyWeightLetsARecentTurnOutrankABetterOldOne) {
  const TimeMs now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  Say("old", "The harbour ferry timetable changed for the winter.", "", {}, kMay8);
  Say("new", "The ferry was late.", "", {}, now - 3600'000);
  auto relevance =
      engine_->archivist().EpisodicSearch(who_, {.query = "harbour ferry timetable", .limit = 2});
  ASSERT_TRUE(relevance.ok()) << relevance.status().ToString();
  ASSERT_EQ(relevance->size(), 2u);
  EXPECT_EQ((*relevance)[0].turn.session_id, "old");
  auto recent = engine_->archivist().EpisodicSearch(
      who_, {.query = "harbour ferry timetable", .limit = 2, .recency_weight = 0.8});
  ASSERT_TRUE(recent.ok()) << recent.status().ToString();
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_EQ((*recent)[0].turn.session_id, "new");
  auto recall =
      engine_->memory().Recall(who_, {.query = "harbour ferry timetable", .recency_weight = 0.8});
  ASSERT_TRUE(recall.ok()) << recall.status().ToString();
  ASSERT_FALSE(recall->results.empty());
  EXPECT_EQ(recall->results[0].key, "new#0");
  auto bad = engine_->archivist().EpisodicSearch(who_, {.query = "ferry", .recency_weight = 1.5});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().field(), "recency_weight");
}

// The window and the recency weight of a turn search are the search's own
// checked types (core/search/search_query.h): refused like memory_search's,
// with the same field and message.
TEST_F(ConversationSearch, EpisodicSearchRefusesAWindowAndAWeightLikeASearch) {
  const TimeWindow backwards{.since = 2, .until = 1};
  auto turns = engine_->archivist().EpisodicSearch(who_, {.query = "ferry", .window = backwards});
  auto entries = engine_->memory().Search(who_, {.query = "ferry", .window = backwards});
  ASSERT_FALSE(turns.ok());
  ASSERT_FALSE(entries.ok());
  EXPECT_EQ(turns.status().field(), entries.status().field());
  EXPECT_EQ(turns.status().message(), entries.status().message());
  auto heavy =
      engine_->archivist().EpisodicSearch(who_, {.query = "ferry", .recency_weight = -0.1});
  auto heavy_entries = engine_->memory().Search(who_, {.query = "ferry", .recency_weight = -0.1});
  ASSERT_FALSE(heavy.ok());
  ASSERT_FALSE(heavy_entries.ok());
  EXPECT_EQ(heavy.status().field(), "recency_weight");
  EXPECT_EQ(heavy.status().message(), heavy_entries.status().message());
}

// memory_recall answers with passages (spec 10): a question comes with its
// answer, within kPassageChars, and no turn is quoted twice.
TEST_F(ConversationSearch, RecallGivesEachHitItsNeighboursAsOnePassage) {
  Say("pets", "What did you name your new puppy?", "We called him Biscuit.");
  Say("pets", "Is Biscuit house-trained yet?", "Almost, the puppy learns fast.");
  auto r = engine_->memory().Recall(who_, {.query = "puppy name", .max_results = 10});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->results.empty());
  const RecallHit& best = r->results[0];
  EXPECT_EQ(best.source, "turn");
  EXPECT_EQ(best.key, "pets#0");
  EXPECT_EQ(best.content.rfind("user: What did you name your new puppy?\n"
                               "assistant: We called him Biscuit.\n",
                               0),
            0u)
      << best.content;
  size_t biscuit_quotes = 0;
  for (const RecallHit& h : r->results) {
    EXPECT_LE(text::CountCodePoints(h.content), 400u) << h.content;
    for (size_t at = h.content.find("We called him Biscuit."); at != std::string::npos;
         at = h.content.find("We called him Biscuit.", at + 1)) {
      ++biscuit_quotes;
    }
  }
  EXPECT_EQ(biscuit_quotes, 1u);
}

// The profile keeps to its share and shows current values only; the room
// the entries leave goes to the turns (issue 18).
TEST_F(ConversationSearch, ContextBuildGivesTheTurnsTheRoomTheEntriesLeave) {
  for (int i = 0; i < 40; ++i) {
    Say("ops", "Deploy log " + std::to_string(i) + ": the billing service went out at noon.",
        "Recorded deploy " + std::to_string(i) + ".");
  }
  ASSERT_TRUE(engine_->knowledge().ProfilePut(who_, "preference", "deploy day", "Tuesday").ok());
  auto block = engine_->context().Build(who_, {.query = "billing deploy", .budget_chars = 4000});
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_NE(block->text.find("- preference deploy day: Tuesday\n"), std::string::npos)
      << block->text;
  EXPECT_EQ(block->text.find("confirmed"), std::string::npos) << block->text;
  int64_t turns = 0;
  for (const ContextBlockSection& s : block->sections) {
    if (s.name == "Relevant turns") turns = s.chars;
  }
  // More than its own share of 4 000 (54 %): the entries' 25 % came to it.
  EXPECT_GT(turns, 2600) << block->text;
}

TEST_F(ConversationSearch, ContextBuildKeepsTheBestEntryWhateverItsAbsoluteScore) {
  ASSERT_TRUE(
      engine_->memory().Store(who_, {.key = "cluster", .content = "decommission failover"}).ok());
  ASSERT_TRUE(engine_->memory().Store(who_, {.key = "lunch", .content = "the lunch menu"}).ok());
  auto block =
      engine_->context().Build(who_, {.query = "decommission failover", .budget_chars = 4000});
  ASSERT_TRUE(block.ok()) << block.status().ToString();
  EXPECT_NE(block->text.find("- cluster: decommission failover"), std::string::npos) << block->text;
  EXPECT_EQ(block->text.find("lunch"), std::string::npos) << block->text;
}

// The query of a context block is parsed like every query: the C++ API
// refuses what the wire refuses (before, only a blank query was refused here,
// and a query past the limit was read).
TEST_F(ConversationSearch, ContextBuildRefusesAQueryPastTheLimitLikeASearch) {
  const std::string past(kMaxContentBytes + 1, 'q');
  auto block = engine_->context().Build(who_, {.query = past, .budget_chars = 4000});
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(block.status().field(), "query");
  EXPECT_NE(block.status().message().find(std::to_string(kMaxContentBytes)), std::string::npos)
      << block.status().message();
  auto search = engine_->memory().Search(who_, {.query = past});
  ASSERT_FALSE(search.ok());
  EXPECT_EQ(search.status().message(), block.status().message());
}

// The session of a context block is parsed once, at the service's entry,
// like every session id (the block's recaps read the parsed one): the C++
// API refuses what a session read refuses, with the same message.
TEST_F(ConversationSearch, ContextBuildRefusesABadSessionIdLikeASessionRead) {
  for (const std::string& bad : {std::string(" "), std::string(kMaxKeyBytes + 1, 's')}) {
    auto block = engine_->context().Build(
        who_, {.session_id = bad, .query = "puppy name", .budget_chars = 4000});
    ASSERT_FALSE(block.ok()) << bad.size();
    EXPECT_EQ(block.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(block.status().field(), "session_id");
    auto turns = engine_->archivist().SessionTurns(who_, bad);
    ASSERT_FALSE(turns.ok());
    EXPECT_EQ(turns.status().message(), block.status().message());
  }
  EXPECT_TRUE(
      engine_->context()
          .Build(who_, {.session_id = "filler", .query = "puppy name", .budget_chars = 4000})
          .ok());
}

}  // namespace
}  // namespace mnemo

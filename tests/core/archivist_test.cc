// The Archivist through the Engine with a real local server speaking the
// OpenAI chat protocol: LLM recaps, the extractive fallback, and the bounded
// re-summarising of extractive recaps (spec 40).
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "embed/local_embeddings_server.h"
#include "llm/local_chat_server.h"
#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

using llm::testing::ChatAnswer;
using llm::testing::LocalChatServer;
using llm::testing::Raw;
using llm::testing::Reply;

class ArchivistRecaps : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(const std::string& base_url) {
    Config config;
    config.llm.base_url = base_url;
    config.llm.model = "recapper";
    config.llm.timeout_ms = 2000;
    auto e = Engine::Open({.workspace = dir_.Sub("ws"), .config = config});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(*e) : nullptr;
  }

  // One turn in `session`, then session_end (waiting for the recap).
  void Converse(Engine& e, const std::string& session, const std::string& text) {
    ASSERT_TRUE(e.archivist()
                    .TurnComplete(who_, {.session_id = session,
                                         .user_message = text,
                                         .assistant_response = "Understood: " + text})
                    .ok());
    auto end = e.archivist().SessionEnd(who_, session, /*sync=*/true);
    ASSERT_TRUE(end.ok()) << end.status().ToString();
    ASSERT_TRUE(end->closed);
  }

  // The recap requests a server received; the other requests ask for slot
  // and event candidates (llm/candidates.h), one per finalised segment.
  static std::vector<llm::testing::ReceivedChatRequest> Recaps(const LocalChatServer& server) {
    std::vector<llm::testing::ReceivedChatRequest> out;
    for (const auto& r : server.requests()) {
      if (r.body.dump().find("\\\"slots\\\"") == std::string::npos) out.push_back(r);
    }
    return out;
  }

  SegmentInfo Only(Engine& e, const std::string& session) {
    auto segments = e.archivist().Segments(who_, session);
    EXPECT_TRUE(segments.ok());
    EXPECT_EQ(segments.ok() ? segments->size() : 0u, 1u);
    return segments.ok() && !segments->empty() ? (*segments)[0] : SegmentInfo{};
  }

  testing::TempDir dir_;
  Principal who_;
};

TEST_F(ArchivistRecaps, TheLlmWritesTheRecapWhenItAnswers) {
  LocalChatServer server("The user planned the billing migration.");
  auto e = Open(server.base_url());
  ASSERT_NE(e, nullptr);
  Converse(*e, "a", "Let's plan the billing migration for Friday.");
  SegmentInfo s = Only(*e, "a");
  EXPECT_EQ(s.recap_source, "llm");
  EXPECT_EQ(s.recap, "The user planned the billing migration.");
  ASSERT_EQ(Recaps(server).size(), 1u);
  EXPECT_EQ(server.request_count(), 2u);  // and one for the candidates
  const std::string prompt = Recaps(server)[0].body.dump();
  EXPECT_NE(prompt.find("Let's plan the billing migration for Friday."), std::string::npos);
}

TEST_F(ArchivistRecaps, AFailingLlmGivesAnExtractiveRecapThatIsReplacedLater) {
  std::atomic<bool> up{false};
  LocalChatServer server([&](int, const nlohmann::json&) -> ChatAnswer {
    return up ? Reply("LLM recap") : Raw(R"({"error":{"message":"down"}})", 500);
  });
  auto e = Open(server.base_url());
  ASSERT_NE(e, nullptr);
  Converse(*e, "a", "We decided to use PostgreSQL for billing.");
  SegmentInfo a = Only(*e, "a");
  EXPECT_EQ(a.recap_source, "extractive");
  EXPECT_NE(a.recap.find("PostgreSQL"), std::string::npos) << a.recap;
  up = true;
  // The next finalised segment runs a pass that re-summarises "a" too.
  Converse(*e, "b", "I prefer short answers.");
  EXPECT_EQ(Only(*e, "b").recap_source, "llm");
  a = Only(*e, "a");
  EXPECT_EQ(a.recap_source, "llm");
  EXPECT_EQ(a.recap, "LLM recap");
}

TEST_F(ArchivistRecaps, ReSummarisingIsBoundedToTwoAttemptsPerSegment) {
  LocalChatServer server(
      [](int, const nlohmann::json&) { return Raw(R"({"error":{"message":"down"}})", 503); });
  auto e = Open(server.base_url());
  ASSERT_NE(e, nullptr);
  Converse(*e, "s0", "First topic about invoices.");
  // Each later session costs its own first try plus at most one retry of
  // each pending segment that still has attempts left.
  for (int i = 1; i <= 4; ++i) {
    Converse(*e, "s" + std::to_string(i), "Topic number " + std::to_string(i) + " about budgets.");
  }
  // s0: 1 first try + 2 re-summarise attempts, never more.
  size_t about_s0 = 0;
  for (const auto& r : Recaps(server)) {
    if (r.body.dump().find("First topic about invoices.") != std::string::npos) ++about_s0;
  }
  EXPECT_EQ(about_s0, 3u);
  EXPECT_EQ(Only(*e, "s0").recap_source, "extractive");
}

TEST_F(ArchivistRecaps, NoLlmConfiguredMeansExtractiveAndNoRequests) {
  auto e = Open("");
  ASSERT_NE(e, nullptr);
  Converse(*e, "a", "My name is Ada and I work at Acme.");
  SegmentInfo s = Only(*e, "a");
  EXPECT_EQ(s.recap_source, "extractive");
  EXPECT_NE(s.recap.find("Ada"), std::string::npos);
  auto facets = e->knowledge().Profile(who_);
  ASSERT_TRUE(facets.ok());
  ASSERT_FALSE(facets->empty());
  EXPECT_EQ((*facets)[0].facet_type, "context");
}

// Drift (spec 40) with a semantic embedder: a local embeddings server gives
// every turn of one subject the same direction and the fourth turn another.
TEST(ArchivistDrift, ATurnFarFromTheSegmentCentroidStartsANewSegment) {
  embed::testing::LocalEmbeddingsServer embeddings(8);
  testing::TempDir dir;
  Config config;
  config.embedding.provider = "openai";
  config.embedding.model = "test-model";
  config.embedding.base_url = embeddings.base_url();
  config.embedding.dimensions = 8;
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Principal who;
  // The server's vector of a text is [n, 1, 0...] for a text ending in n: the
  // turn text ends with the assistant response.
  std::vector<bool> closed;
  for (const char* answer : {"noted 0", "noted 0", "noted 0", "noted 1000"}) {
    auto r = (*e)->archivist().TurnComplete(
        who,
        {.session_id = "d", .user_message = "about the same thing", .assistant_response = answer});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    closed.push_back(!r->closed_segment_id.empty());
  }
  EXPECT_EQ(closed, (std::vector<bool>{false, false, false, true}));
  // The same turns with the hash embedder never drift (its check is off).
  testing::TempDir other;
  auto h = Engine::Open({.workspace = other.Sub("ws")});
  ASSERT_TRUE(h.ok());
  for (const char* answer : {"noted 0", "noted 0", "noted 0", "noted 1000"}) {
    auto r = (*h)->archivist().TurnComplete(
        who,
        {.session_id = "d", .user_message = "about the same thing", .assistant_response = answer});
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r->closed_segment_id.empty());
  }
}

// Recaps join recall (spec 40 point 3, spec 10): each closed segment's recap
// is embedded with the engine's embedder, so a query that shares no word
// with it still finds it by meaning, and a keyword finds it too.
TEST(ArchivistRecapRecall, RecapsAreFoundByVectorAndByKeyword) {
  // Meaning, as this server sees it: texts about alpha or lambda point one
  // way, everything else another.
  embed::testing::LocalEmbeddingsServer embeddings([](int, const nlohmann::json& body,
                                                      httplib::Response& res) {
    nlohmann::json data = nlohmann::json::array();
    for (size_t i = 0; i < body["input"].size(); ++i) {
      const std::string text = body["input"][i];
      const bool first =
          text.find("alpha") != std::string::npos || text.find("lambda") != std::string::npos;
      data.push_back({{"object", "embedding"},
                      {"index", i},
                      {"embedding",
                       first ? std::vector<double>{1, 0, 0, 0} : std::vector<double>{0, 1, 0, 0}}});
    }
    res.set_content(nlohmann::json{{"object", "list"}, {"data", data}}.dump(), "application/json");
  });
  testing::TempDir dir;
  Config config;
  config.embedding.provider = "openai";
  config.embedding.model = "test-model";
  config.embedding.base_url = embeddings.base_url();
  config.embedding.dimensions = 4;
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Principal who;
  for (const auto& [session, answer] : std::vector<std::pair<std::string, std::string>>{
           {"a", "alpha is the first letter"}, {"b", "bravo is a word for it"}}) {
    ASSERT_TRUE((*e)->archivist()
                    .TurnComplete(who, {.session_id = session,
                                        .user_message = "Keep this in mind please.",
                                        .assistant_response = answer})
                    .ok());
    auto end = (*e)->archivist().SessionEnd(who, session, /*sync=*/true);
    ASSERT_TRUE(end.ok() && end->closed) << end.status().ToString();
  }
  // No word in common with either recap: only the vector side can find one.
  auto found = (*e)->memory().Recall(who, {.query = "lambda", .max_results = 10});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::vector<std::string> segment_sessions;
  for (const RecallHit& h : found->results) {
    if (h.source == "segment") segment_sessions.push_back(h.key.substr(0, 1));
  }
  EXPECT_EQ(segment_sessions, std::vector<std::string>{"a"});
  // A keyword of the other recap finds its turn; the extractive recap only
  // repeats that turn, so it is left out (evidence first, issue 18).
  found = (*e)->memory().Recall(who, {.query = "bravo", .max_results = 10});
  ASSERT_TRUE(found.ok());
  bool segment = false;
  bool turn = false;
  for (const RecallHit& h : found->results) {
    segment = segment || h.source == "segment";
    turn = turn ||
           (h.source == "turn" && h.content.find("bravo is a word for it") != std::string::npos);
  }
  EXPECT_FALSE(segment);
  EXPECT_TRUE(turn);
}

// Recaps closed before an embedder was configured get their vector once one
// is: in the background at open, and `reindex` finds nothing left to do.
TEST(ArchivistRecapRecall, EarlierRecapsAreEmbeddedWhenAnEmbedderArrives) {
  testing::TempDir dir;
  const Principal who;
  {
    auto e = Engine::Open({.workspace = dir.Sub("ws")});  // hash embedder
    ASSERT_TRUE(e.ok());
    ASSERT_TRUE((*e)->archivist()
                    .TurnComplete(who, {.session_id = "old",
                                        .user_message = "Remember the harbour plan.",
                                        .assistant_response = "The harbour plan is noted."})
                    .ok());
    ASSERT_TRUE((*e)->archivist().SessionEnd(who, "old", /*sync=*/true).ok());
  }
  embed::testing::LocalEmbeddingsServer embeddings(4);
  Config config;
  config.embedding.provider = "openai";
  config.embedding.model = "test-model";
  config.embedding.base_url = embeddings.base_url();
  config.embedding.dimensions = 4;
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .config = config});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  // Waits for the segment worker, where the backfill was posted at open.
  ASSERT_TRUE((*e)->archivist().SessionEnd(who, "none", /*sync=*/true).ok());
  bool recap_embedded = false;
  for (const auto& request : embeddings.requests()) {
    for (const auto& input : request.body["input"]) {
      recap_embedded =
          recap_embedded || input.get<std::string>().find("harbour plan") != std::string::npos;
    }
  }
  EXPECT_TRUE(recap_embedded);
  auto report = (*e)->admin().Reindex(who);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->recaps_embedded, 0);
}

}  // namespace
}  // namespace mnemo

namespace mnemo {
namespace {

const ProfileFacet* FindFacet(const std::vector<ProfileFacet>& facets, std::string_view key) {
  for (const ProfileFacet& f : facets) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

// Spec 40 §5 on the kind of session a harness produces: 200 turns of small
// talk with the user's name, location, employer and pets said at various
// points, a move and a job change. Each slot holds its current value, and
// the values it replaced are its history.
TEST(ArchivistProfile, ATwoHundredTurnSessionKeepsEachSlotCurrent) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Principal who;
  std::vector<std::string> said(200);
  const std::vector<std::string> chatter = {
      "Can you help me plan the week?", "What is a good recipe for dinner tonight?",
      "换个话题，今天天气怎么样？", "Tell me a joke about databases.",
      "How long does it take to boil an egg?"};
  for (size_t i = 0; i < said.size(); ++i) said[i] = chatter[i % chatter.size()];
  said[3] = "Hi! My name is Priya.";
  said[17] = "By the way, I live in Pune.";
  said[41] = "I work at Infosys.";
  said[66] = "I have a dog named Bruno.";
  said[90] = "Big news! I moved to Bangalore last week.";
  said[120] = "I joined Wipro, a new job!";
  said[150] = "I have a cat named Mochi.";
  said[170] = "My timezone is Asia/Kolkata.";
  const TimeMs start = 1'760'000'000'000;
  for (size_t i = 0; i < said.size(); ++i) {
    ASSERT_TRUE((*e)->archivist()
                    .TurnComplete(who, {.session_id = "harness",
                                        .user_message = said[i],
                                        .assistant_response = "Sure, noted.",
                                        .timestamp = start + static_cast<TimeMs>(i) * 30'000,
                                        .sync = true})
                    .ok());
  }
  ASSERT_TRUE((*e)->archivist().SessionEnd(who, "harness", /*sync=*/true).ok());
  auto facets = (*e)->knowledge().Profile(who);
  ASSERT_TRUE(facets.ok()) << facets.status().ToString();
  auto expect = [&](std::string_view key, std::string_view value) -> const ProfileFacet* {
    const ProfileFacet* f = FindFacet(*facets, key);
    EXPECT_NE(f, nullptr) << key;
    if (f != nullptr) {
      EXPECT_EQ(f->value, value) << key;
    }
    return f;
  };
  expect("name", "Priya");
  // Two pets: the pet slot holds both (a list slot, spec 40 §5).
  expect("pet", "Bruno (dog), Mochi (cat)");
  expect("timezone", "Asia/Kolkata");
  const ProfileFacet* location = expect("location", "Bangalore");
  ASSERT_NE(location, nullptr);
  ASSERT_EQ(location->history.size(), 1u);
  EXPECT_EQ(location->history[0].value, "Pune");
  EXPECT_EQ(location->history[0].valid_from, start + 17 * 30'000);
  EXPECT_EQ(location->history[0].valid_to, start + 90 * 30'000);
  const ProfileFacet* employer = expect("employer", "Wipro");
  ASSERT_NE(employer, nullptr);
  ASSERT_EQ(employer->history.size(), 1u);
  EXPECT_EQ(employer->history[0].value, "Infosys");
  for (const ProfileFacet& f : *facets) {
    EXPECT_EQ(f.key.find('_'), std::string::npos) << f.key;
    EXPECT_EQ(f.value.find("换个话题"), std::string::npos) << f.value;
  }
  // The graph says the same.
  auto lives = (*e)->knowledge().GraphQuery(who, {.subject = "user", .predicate = "lives_in"});
  ASSERT_TRUE(lives.ok());
  ASSERT_EQ(lives->size(), 1u);
  EXPECT_EQ((*lives)[0].object, "Bangalore");
}

// Issue 44: supersession in every slot, and "no longer" ends a slot without
// a new value; another person's facts and the past never become facets.
TEST(ArchivistProfile, SlotsAreSupersededAndEndedWithHistory) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  const Principal who;
  const std::vector<std::string> said = {
      "My boss is Grace Hopper.",
      "I work for Initech and I'm flexitarian.",
      "My cousin lives in Quito and works at Globex.",
      "Back in school I lived in Tromso.",
      "Alan Kay is my new boss since the merger.",
      "I'm not flexitarian anymore, strictly keto now.",
      "I no longer work for Initech.",
  };
  const TimeMs start = 1'760'000'000'000;
  for (size_t i = 0; i < said.size(); ++i) {
    ASSERT_TRUE((*e)->archivist()
                    .TurnComplete(who, {.session_id = "slots",
                                        .user_message = said[i],
                                        .assistant_response = "Noted.",
                                        .timestamp = start + static_cast<TimeMs>(i) * 30'000,
                                        .sync = true})
                    .ok());
  }
  ASSERT_TRUE((*e)->archivist().SessionEnd(who, "slots", /*sync=*/true).ok());
  auto facets = (*e)->knowledge().Profile(who);
  ASSERT_TRUE(facets.ok()) << facets.status().ToString();
  std::vector<std::string> current;
  for (const ProfileFacet& f : *facets) current.push_back(f.key + "=" + f.value);
  EXPECT_EQ(current, (std::vector<std::string>{"diet=keto", "manager=Alan Kay"}));
  const ProfileFacet* manager = FindFacet(*facets, "manager");
  ASSERT_NE(manager, nullptr);
  ASSERT_EQ(manager->history.size(), 1u);
  EXPECT_EQ(manager->history[0].value, "Grace Hopper");
  const ProfileFacet* diet = FindFacet(*facets, "diet");
  ASSERT_NE(diet, nullptr);
  ASSERT_FALSE(diet->history.empty());
  EXPECT_EQ(diet->history[0].value, "flexitarian");
}

// Issue 18: memory.profile as_of: each slot with the value it had then.
TEST(ArchivistProfile, AsOfGivesTheValueEachSlotHadThen) {
  testing::TempDir dir;
  auto clock = std::make_shared<testing::ManualClock>();
  auto e = Engine::Open({.workspace = dir.Sub("ws"), .clock = clock});
  ASSERT_TRUE(e.ok());
  const Principal who;
  const TimeMs start = clock->NowMs();
  ASSERT_TRUE((*e)->knowledge().ProfilePut(who, "context", "location", "Pune").ok());
  clock->Advance(1000);
  ASSERT_TRUE((*e)->knowledge().ProfilePut(who, "preference", "editor", "Vim").ok());
  clock->Advance(1000);
  ASSERT_TRUE((*e)->knowledge().ProfilePut(who, "context", "location", "Bangalore").ok());
  auto value_at = [&](std::optional<TimeMs> t) {
    std::map<std::string, std::string> out;
    auto facets = (*e)->knowledge().Profile(who, {.as_of = t});
    EXPECT_TRUE(facets.ok()) << facets.status().ToString();
    for (const ProfileFacet& f : facets.ok() ? *facets : std::vector<ProfileFacet>{}) {
      out[f.key] = f.value;
    }
    return out;
  };
  using Values = std::map<std::string, std::string>;
  EXPECT_EQ(value_at(std::nullopt), (Values{{"location", "Bangalore"}, {"editor", "Vim"}}));
  EXPECT_EQ(value_at(start - 1), Values{});
  EXPECT_EQ(value_at(start), (Values{{"location", "Pune"}}));
  EXPECT_EQ(value_at(start + 1500), (Values{{"location", "Pune"}, {"editor", "Vim"}}));
  EXPECT_EQ(value_at(start + 2000), (Values{{"location", "Bangalore"}, {"editor", "Vim"}}));
}

// A correction through memory.profile_put replaces the value and is not
// counted as a confirmation (spec 40 §5).
TEST(ArchivistProfile, AProfilePutCorrectionSupersedes) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok());
  const Principal who;
  ASSERT_TRUE((*e)->knowledge().ProfilePut(who, "preference", "editor", "Vim").ok());
  auto fixed = (*e)->knowledge().ProfilePut(who, "preference", "editor", "Helix");
  ASSERT_TRUE(fixed.ok());
  EXPECT_EQ(fixed->value, "Helix");
  EXPECT_EQ(fixed->evidence_count, 1);
  ASSERT_EQ(fixed->history.size(), 1u);
  EXPECT_EQ(fixed->history[0].value, "Vim");
  auto rendered = (*e)->knowledge().ProfileRender(who);
  ASSERT_TRUE(rendered.ok());
  EXPECT_EQ(*rendered, "### Preference\n- editor: Helix (confirmed 1x)\n");
  // The same value again is a confirmation.
  EXPECT_EQ((*e)->knowledge().ProfilePut(who, "preference", "editor", "Helix")->evidence_count, 2);
}

}  // namespace
}  // namespace mnemo

namespace mnemo {
namespace {

// Issue 18 §4: a segment document's summary and tags come from what was
// said, not from the role labels every line of it starts with.
TEST(ArchivistDocuments, SegmentSummariesAndTagsLeaveRoleLabelsOut) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok());
  const Principal who;
  ASSERT_TRUE((*e)->archivist()
                  .TurnComplete(who, {.session_id = "docs",
                                      .user_message = "Can you book the Lisbon offsite venue?",
                                      .assistant_response = "The Lisbon offsite venue is booked."})
                  .ok());
  ASSERT_TRUE((*e)->archivist()
                  .TurnComplete(who, {.session_id = "docs",
                                      .user_message = "Add catering for the offsite venue.",
                                      .assistant_response = "Catering for the venue is added."})
                  .ok());
  ASSERT_TRUE((*e)->archivist().SessionEnd(who, "docs", /*sync=*/true).ok());
  auto docs = (*e)->documents().List(who, {.source = "agent://session/"});
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->documents.size(), 1u);
  const Document& d = docs->documents[0];
  for (const std::string& tag : d.tags) {
    EXPECT_NE(tag, "user");
    EXPECT_NE(tag, "assistant");
  }
  EXPECT_EQ(d.summary.find("user:"), std::string::npos) << d.summary;
  EXPECT_EQ(d.summary.find("assistant:"), std::string::npos) << d.summary;
  EXPECT_NE(d.summary.find("Lisbon"), std::string::npos) << d.summary;
}

// Issue 18 §4: greetings, thanks and goodbyes are not what a conversation
// was about, in its summary or its tags.
TEST(ArchivistDocuments, SegmentSummariesAndTagsLeaveSmallTalkOut) {
  testing::TempDir dir;
  auto e = Engine::Open({.workspace = dir.Sub("ws")});
  ASSERT_TRUE(e.ok());
  const Principal who;
  const std::pair<const char*, const char*> turns[] = {
      {"Hi! How are you doing today?", "Hello! I am doing great, thanks for asking."},
      {"I am planning a trip to Lisbon in March.", "Lisbon in March is mild; pack a jacket."},
      {"Great, thanks a lot! Bye!", "No problem! Bye!"},
  };
  for (const auto& [said, answered] : turns) {
    ASSERT_TRUE(
        (*e)->archivist()
            .TurnComplete(
                who, {.session_id = "talk", .user_message = said, .assistant_response = answered})
            .ok());
  }
  ASSERT_TRUE((*e)->archivist().SessionEnd(who, "talk", /*sync=*/true).ok());
  auto docs = (*e)->documents().List(who, {.source = "agent://session/"});
  ASSERT_TRUE(docs.ok());
  ASSERT_EQ(docs->documents.size(), 1u);
  const Document& d = docs->documents[0];
  for (const char* small_talk : {"Hi!", "Hello!", "How are you", "Bye!", "No problem"}) {
    EXPECT_EQ(d.summary.find(small_talk), std::string::npos) << small_talk << " in " << d.summary;
  }
  EXPECT_NE(d.summary.find("Lisbon in March"), std::string::npos) << d.summary;
  for (const std::string& tag : d.tags) {
    for (const char* small_talk : {"hi", "hello", "bye", "great", "thanks", "asking", "problem"}) {
      EXPECT_NE(tag, small_talk);
    }
  }
  EXPECT_NE(std::find(d.tags.begin(), d.tags.end(), "lisbon"), d.tags.end());
}

}  // namespace
}  // namespace mnemo

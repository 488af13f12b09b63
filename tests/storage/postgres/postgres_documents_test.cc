// Documents, context events and the graph of PostgreSQL backends on one
// schema, standing for processes: separate pools, serialised only by the
// schema's writer lock. And the keyword statistics (text_stats), which every
// write keeps by hand: a schema after updates and deletes scores exactly as
// a fresh one holding only what survived.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/backend_factory.h"
#include "storage/postgres/postgres_backend.h"
#include "storage/test_values.h"
#include "text/pipeline/query.h"

namespace mnemo::storage {
namespace {

// Two backends on one new schema.
std::vector<std::unique_ptr<internal::PostgresBackend>> OpenTwo() {
  const PostgresOptions options{
      .url = testing::PostgresTestUrl(), .schema = testing::FreshPostgresSchema(), .pool_size = 2};
  std::vector<std::unique_ptr<internal::PostgresBackend>> out;
  for (int i = 0; i < 2; ++i) {
    auto backend = internal::PostgresBackend::Open(options);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    if (!backend.ok()) return {};
    out.push_back(std::move(backend).value());
  }
  return out;
}

DocumentRow Doc(std::string content, TimeMs created_at = 1000) {
  DocumentRow d;
  d.search_text = content;
  d.content = std::move(content);
  d.created_at = created_at;
  return d;
}

ContextEventRow Event(std::string search_text) {
  ContextEventRow r;
  r.session_id = "s";
  r.event_json = "{}";
  r.search_text = std::move(search_text);
  return r;
}

std::vector<double> DocumentScores(internal::PostgresBackend& b, std::string_view q) {
  auto hits = b.documents().SearchDocuments({.terms = text::QueryTerms(q), .limit = 100});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<double> out;
  if (hits.ok()) {
    for (const DocumentHit& h : *hits) out.push_back(h.score);
  }
  return out;
}

std::vector<double> EventScores(internal::PostgresBackend& b, std::string_view q) {
  auto hits = b.context_events().SearchContextEvents({.terms = text::QueryTerms(q), .limit = 100});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<double> out;
  if (hits.ok()) {
    for (const ContextEventHit& h : *hits) out.push_back(h.score);
  }
  return out;
}

std::vector<double> TurnScores(internal::PostgresBackend& b, std::string_view q) {
  auto hits = b.episodic().SearchTurns({.terms = text::QueryTerms(q), .limit = 100});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<double> out;
  if (hits.ok()) {
    for (const TurnHit& h : *hits) out.push_back(h.score);
  }
  return out;
}

std::vector<double> EpisodeEventScores(internal::PostgresBackend& b, std::string_view q) {
  auto hits = b.episodic().SearchEvents({.terms = text::QueryTerms(q), .limit = 100});
  EXPECT_TRUE(hits.ok()) << hits.status().ToString();
  std::vector<double> out;
  if (hits.ok()) {
    for (const EventHit& h : *hits) out.push_back(h.score);
  }
  return out;
}

TEST(PostgresDocuments, TwoProcessesStoreAContentOnceAndLoseNoCountedRead) {
  std::vector<std::unique_ptr<internal::PostgresBackend>> b = OpenTwo();
  ASSERT_EQ(b.size(), 2u);
  constexpr int kEach = 30;
  std::atomic<int> created{0};
  auto put = [&](internal::PostgresBackend* backend) {
    for (int i = 0; i < kEach; ++i) {
      auto r = backend->documents().PutDocument(Doc("shared evidence " + std::to_string(i)));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->created) ++created;
    }
  };
  std::thread t1(put, b[0].get());
  std::thread t2(put, b[1].get());
  t1.join();
  t2.join();
  EXPECT_EQ(created.load(), kEach);
  auto count = b[1]->documents().CountDocuments(std::nullopt);
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, kEach);
  auto df = b[0]->documents().DocumentFrequencies(text::QueryTerms("evidence"));
  ASSERT_TRUE(df.ok());
  EXPECT_THAT(*df, ::testing::ElementsAre(kEach));

  auto first = b[0]->documents().ListDocuments(std::nullopt, std::nullopt, 1, 0);
  ASSERT_TRUE(first.ok() && first->size() == 1u);
  const std::string id = (*first)[0].id;
  auto read = [&](internal::PostgresBackend* backend) {
    for (int i = 0; i < kEach; ++i) ASSERT_TRUE(backend->documents().GetDocument(id, true).ok());
  };
  std::thread r1(read, b[0].get());
  std::thread r2(read, b[1].get());
  r1.join();
  r2.join();
  auto doc = b[1]->documents().GetDocument(id, false);
  ASSERT_TRUE(doc.ok() && doc->has_value());
  EXPECT_EQ((*doc)->access_count, 2 * kEach);
}

TEST(PostgresContextEvents, TwoProcessesNeverShareOrSkipASeq) {
  std::vector<std::unique_ptr<internal::PostgresBackend>> b = OpenTwo();
  ASSERT_EQ(b.size(), 2u);
  constexpr int kEach = 25;
  auto append = [&](internal::PostgresBackend* backend) {
    for (int i = 0; i < kEach; ++i) {
      auto r = backend->context_events().AppendContextEvent(Event("event " + std::to_string(i)));
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  };
  std::thread t1(append, b[0].get());
  std::thread t2(append, b[1].get());
  t1.join();
  t2.join();
  auto events = b[0]->context_events().ContextEvents("local", TestSessionId("s"));
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), static_cast<size_t>(2 * kEach));
  for (size_t i = 0; i < events->size(); ++i) EXPECT_EQ((*events)[i].seq, static_cast<int64_t>(i));
}

TEST(PostgresGraph, TwoProcessesLeaveOneCurrentTriple) {
  std::vector<std::unique_ptr<internal::PostgresBackend>> b = OpenTwo();
  ASSERT_EQ(b.size(), 2u);
  auto work = [](internal::PostgresBackend* backend, const std::string& zone) {
    for (int i = 0; i < 25; ++i) {
      TripleRow t;
      t.subject = "user";
      t.predicate = "timezone";
      t.object = zone;
      t.confidence = 0.6;
      t.valid_from = 1000 + i;
      t.created_at = 1000 + i;
      auto r = backend->graph().UpsertTriple(t, true);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  };
  std::thread t1(work, b[0].get(), "CET");
  std::thread t2(work, b[1].get(), "UTC");
  t1.join();
  t2.join();
  auto current = b[1]->graph().QueryTriples({.subject = "user", .predicate = "timezone"});
  ASSERT_TRUE(current.ok());
  EXPECT_EQ(current->size(), 1u);
}

TEST(PostgresDocuments, KeywordStatisticsStayExactThroughUpdatesAndDeletes) {
  auto open_fresh = [] {
    auto b = internal::PostgresBackend::Open({.url = testing::PostgresTestUrl(),
                                              .schema = testing::FreshPostgresSchema(),
                                              .pool_size = 2});
    return b.ok() ? std::move(b).value() : nullptr;
  };
  auto churned = open_fresh();
  auto fresh = open_fresh();
  ASSERT_NE(churned, nullptr);
  ASSERT_NE(fresh, nullptr);
  // Documents: one replaced by its derived fields, one deleted.
  std::vector<std::string> ids;
  for (const char* text : {"dark mode everywhere", "tea with milk", "dark roast coffee beans",
                           "a very long note about dark chocolate and more"}) {
    auto put = churned->documents().PutDocument(Doc(text));
    ASSERT_TRUE(put.ok()) << put.status().ToString();
    ids.push_back(put->row.id);
  }
  const std::vector<std::string> tags = {"dark"};
  ASSERT_TRUE(churned->documents()
                  .UpdateDocumentDerived(ids[1], "dark tea", "a summary", tags, {}, 2000)
                  .ok());
  ASSERT_TRUE(churned->documents().DeleteDocument(ids[3]).ok());
  for (const char* text : {"dark mode everywhere", "dark roast coffee beans"}) {
    ASSERT_TRUE(fresh->documents().PutDocument(Doc(text)).ok());
  }
  DocumentRow derived = Doc("tea with milk");
  derived.search_text = "dark tea";
  derived.summary = "a summary";
  derived.tags = tags;
  ASSERT_TRUE(fresh->documents().PutDocument(derived).ok());
  std::vector<double> expected = DocumentScores(*fresh, "dark tea mode");
  ASSERT_EQ(expected.size(), 3u);
  EXPECT_EQ(DocumentScores(*churned, "dark tea mode"), expected);

  // Context events: some deleted by seq, some by id.
  std::vector<int64_t> event_ids;
  for (const char* text : {"first dark event", "second event", "third dark dark event",
                           "fourth light event", "fifth dark event"}) {
    auto r = churned->context_events().AppendContextEvent(Event(text));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    event_ids.push_back(r->id);
  }
  ASSERT_TRUE(
      churned->context_events().DeleteContextEventsUpTo("local", TestSessionId("s"), 1).ok());
  const std::vector<int64_t> doomed = {event_ids[3]};
  ASSERT_TRUE(churned->context_events().DeleteContextEventsByIds(doomed).ok());
  for (const char* text : {"third dark dark event", "fifth dark event"}) {
    ASSERT_TRUE(fresh->context_events().AppendContextEvent(Event(text)).ok());
  }
  std::vector<double> expected_events = EventScores(*fresh, "dark light");
  ASSERT_EQ(expected_events.size(), 2u);
  EXPECT_EQ(EventScores(*churned, "dark light"), expected_events);
}

// Restore writes each row through the statements of the live writes and
// counts its keyword statistics as they do: a restored schema scores turns,
// events and context events exactly as one written live, and a second
// restore, or a row skipped as already stored, counts nothing.
TEST(PostgresDocuments, ARestoredSchemaScoresAsOneWrittenLive) {
  auto open_fresh = [] {
    auto b = internal::PostgresBackend::Open({.url = testing::PostgresTestUrl(),
                                              .schema = testing::FreshPostgresSchema(),
                                              .pool_size = 2});
    return b.ok() ? std::move(b).value() : nullptr;
  };
  auto live = open_fresh();
  auto restored = open_fresh();
  ASSERT_NE(live, nullptr);
  ASSERT_NE(restored, nullptr);
  const std::vector<std::string> texts = {"dark mode everywhere", "tea with milk",
                                          "a long dark note about dark chocolate and more"};
  RestoreBatch batch;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto at = static_cast<int64_t>(i);
    TurnWrite turn{.row = {.owner = "alice",
                           .session_id = "s1",
                           .seq = at,
                           .role = "user",
                           .content = texts[i],
                           .timestamp_ms = 1000 + at},
                   .search_text = texts[i]};
    ASSERT_TRUE(live->episodic().AppendTurns(std::vector<TurnWrite>{turn}).ok());
    turn.row.id = 100 + at;
    batch.turns.push_back(turn);
    const EventRow event{.id = "ev-" + std::to_string(i),
                         .owner = "alice",
                         .session_id = "s1",
                         .type = "decision",
                         .text = texts[i],
                         .confidence = 0.6,
                         .created_at = 1000 + at};
    ASSERT_TRUE(live->episodic().AddEvents(std::vector<EventRow>{event}).ok());
    batch.events.push_back(event);
    ContextEventRow context = Event(texts[i]);
    auto appended = live->context_events().AppendContextEvent(context);
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    context.owner = "local";
    context.seq = appended->seq;
    context.id = appended->id;
    context.timestamp_ms = appended->timestamp_ms;
    context.created_at = appended->created_at;
    batch.context_events.push_back(context);
  }
  // Stored already under another id: skipped, not counted.
  batch.events.push_back(batch.events[0]);
  batch.events.back().id = "ev-again";

  auto first = restored->admin().Restore(batch);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->skipped, 1);
  auto again = restored->admin().Restore(batch);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->skipped, 3 + 4 + 3);

  for (const char* q : {"dark tea", "dark chocolate milk"}) {
    const std::vector<double> turns = TurnScores(*live, q);
    ASSERT_FALSE(turns.empty()) << q;
    EXPECT_EQ(TurnScores(*restored, q), turns) << q;
    const std::vector<double> events = EpisodeEventScores(*live, q);
    ASSERT_FALSE(events.empty()) << q;
    EXPECT_EQ(EpisodeEventScores(*restored, q), events) << q;
    const std::vector<double> context = EventScores(*live, q);
    ASSERT_FALSE(context.empty()) << q;
    EXPECT_EQ(EventScores(*restored, q), context) << q;
  }
}

}  // namespace
}  // namespace mnemo::storage

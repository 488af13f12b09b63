// Idle segments close (spec 40, learning.session_idle_close_secs) with a
// clock the test moves: not before the idle time, after it, never with 0,
// at the next open, and with the same recap, events, profile and document
// as memory.session_end gives.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "mnemo/engine.h"
#include "test_util.h"

namespace mnemo {
namespace {

constexpr TimeMs kSecond = 1000;

class IdleSegments : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(const std::string& ws, int64_t idle_secs = 1800) {
    Config config;
    config.embedding.provider = "none";
    config.learning.session_idle_close_secs = idle_secs;
    auto e = Engine::Open({.workspace = dir_.Sub(ws), .config = config, .clock = clock_});
    EXPECT_TRUE(e.ok()) << e.status().ToString();
    return e.ok() ? std::move(*e) : nullptr;
  }

  void Converse(Engine& e, const std::string& session) {
    for (const char* text :
         {"I prefer window seats on long flights.",
          "We decided to ship the billing migration on Friday.", "My timezone is Europe/Lisbon."}) {
      auto r =
          e.archivist().TurnComplete(me_, {.session_id = session,
                                           .user_message = text,
                                           .assistant_response = std::string("Noted: ") + text});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
    }
  }

  SegmentInfo Only(Engine& e, const std::string& session) {
    auto segments = e.archivist().Segments(me_, session);
    EXPECT_TRUE(segments.ok());
    EXPECT_EQ(segments.ok() ? segments->size() : 0u, 1u);
    return segments.ok() && !segments->empty() ? (*segments)[0] : SegmentInfo{};
  }

  // A sync session end of an unused session: waits for the worker.
  void Drain(Engine& e) { ASSERT_TRUE(e.archivist().SessionEnd(me_, "drain-barrier", true).ok()); }

  testing::TempDir dir_;
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  Principal me_;
};

TEST_F(IdleSegments, AnOpenSegmentClosesOnlyOnceItsLastTurnIsIdleLongEnough) {
  auto e = Open("ws");
  ASSERT_NE(e, nullptr);
  Converse(*e, "s");
  // A new turn (within learning.max_time_gap_secs) restarts the idle time.
  clock_->Advance(500 * kSecond);
  ASSERT_TRUE(e->archivist()
                  .TurnComplete(me_, {.session_id = "s",
                                      .user_message = "One more thing.",
                                      .assistant_response = "Sure."})
                  .ok());
  clock_->Advance(1799 * kSecond);
  EXPECT_EQ(e->archivist().CloseIdleSegments(/*sync=*/true).value(), 0);
  EXPECT_EQ(Only(*e, "s").status, "open");
  clock_->Advance(2 * kSecond);
  EXPECT_EQ(e->archivist().CloseIdleSegments(/*sync=*/true).value(), 1);
  const SegmentInfo closed = Only(*e, "s");
  EXPECT_EQ(closed.status, "closed");
  EXPECT_EQ(closed.closed_at, clock_->NowMs());
  EXPECT_FALSE(closed.recap.empty());
  EXPECT_EQ(closed.recap_source, "extractive");
  EXPECT_EQ(e->archivist().CloseIdleSegments(/*sync=*/true).value(), 0);  // once
  EXPECT_FALSE(e->archivist().SessionEnd(me_, "s", true).value().closed);
}

TEST_F(IdleSegments, ZeroNeverCloses) {
  auto e = Open("ws", /*idle_secs=*/0);
  ASSERT_NE(e, nullptr);
  Converse(*e, "s");
  clock_->Advance(400LL * 24 * 3600 * kSecond);
  EXPECT_EQ(e->archivist().CloseIdleSegments(/*sync=*/true).value(), 0);
  EXPECT_EQ(Only(*e, "s").status, "open");
}

TEST_F(IdleSegments, TheNextOpenClosesWhatWasLeftOpen) {
  {
    auto e = Open("ws");
    ASSERT_NE(e, nullptr);
    Converse(*e, "abandoned");
  }
  clock_->Advance(1801 * kSecond);
  auto e = Open("ws");
  ASSERT_NE(e, nullptr);
  Drain(*e);
  const SegmentInfo s = Only(*e, "abandoned");
  EXPECT_EQ(s.status, "closed");
  EXPECT_FALSE(s.recap.empty());
  auto events = e->archivist().Events(me_, {});
  ASSERT_TRUE(events.ok());
  EXPECT_FALSE(events->empty());
}

TEST_F(IdleSegments, AnIdleCloseFinalisesExactlyAsSessionEnd) {
  auto ended = Open("ended");
  auto idle = Open("idle");
  ASSERT_NE(ended, nullptr);
  ASSERT_NE(idle, nullptr);
  Converse(*ended, "s");
  Converse(*idle, "s");
  clock_->Advance(1801 * kSecond);
  ASSERT_TRUE(ended->archivist().SessionEnd(me_, "s", /*sync=*/true).value().closed);
  ASSERT_EQ(idle->archivist().CloseIdleSegments(/*sync=*/true).value(), 1);

  const SegmentInfo a = Only(*ended, "s");
  const SegmentInfo b = Only(*idle, "s");
  EXPECT_EQ(b.status, a.status);
  EXPECT_EQ(b.recap, a.recap);
  EXPECT_EQ(b.recap_source, a.recap_source);
  EXPECT_EQ(b.closed_at, a.closed_at);
  EXPECT_EQ(b.turn_count, a.turn_count);

  auto events_a = ended->archivist().Events(me_, {.limit = 100});
  auto events_b = idle->archivist().Events(me_, {.limit = 100});
  ASSERT_TRUE(events_a.ok() && events_b.ok());
  // Events of equal time are ordered by their (random) ids: compare by text.
  for (auto* events : {&*events_a, &*events_b}) {
    std::sort(events->begin(), events->end(),
              [](const EventInfo& x, const EventInfo& y) { return x.text < y.text; });
  }
  ASSERT_FALSE(events_a->empty());
  ASSERT_EQ(events_b->size(), events_a->size());
  for (size_t i = 0; i < events_a->size(); ++i) {
    EXPECT_EQ((*events_b)[i].type, (*events_a)[i].type);
    EXPECT_EQ((*events_b)[i].text, (*events_a)[i].text);
    EXPECT_EQ((*events_b)[i].confidence, (*events_a)[i].confidence);
  }

  auto profile_a = ended->knowledge().Profile(me_);
  auto profile_b = idle->knowledge().Profile(me_);
  ASSERT_TRUE(profile_a.ok() && profile_b.ok());
  ASSERT_FALSE(profile_a->empty());
  ASSERT_EQ(profile_b->size(), profile_a->size());
  for (size_t i = 0; i < profile_a->size(); ++i) {
    EXPECT_EQ((*profile_b)[i].key, (*profile_a)[i].key);
    EXPECT_EQ((*profile_b)[i].value, (*profile_a)[i].value);
    EXPECT_EQ((*profile_b)[i].evidence_count, (*profile_a)[i].evidence_count);
  }
  EXPECT_EQ(ended->knowledge().ProfileRender(me_).value(),
            idle->knowledge().ProfileRender(me_).value());

  auto docs_a = ended->documents().List(me_, {});
  auto docs_b = idle->documents().List(me_, {});
  ASSERT_TRUE(docs_a.ok() && docs_b.ok());
  ASSERT_EQ(docs_a->documents.size(), 1u);
  ASSERT_EQ(docs_b->documents.size(), 1u);
  EXPECT_EQ(docs_b->documents[0].summary, docs_a->documents[0].summary);
}

}  // namespace
}  // namespace mnemo

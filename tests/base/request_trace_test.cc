#include "base/request_trace.h"

#include <gtest/gtest.h>

#include <thread>

namespace mnemo::internal {
namespace {

TEST(RequestTrace, StagesAddUpByNameInFirstSeenOrder) {
  RequestTrace trace;
  trace.Add("parse", 0.5);
  trace.Add("keyword", 1.25);
  trace.Add("parse", 0.25);
  EXPECT_EQ(trace.Summary(), "parse 0.75 ms, keyword 1.25 ms");
}

TEST(RequestTrace, ScopedStageTimesTheCurrentTrace) {
  EXPECT_EQ(RequestTrace::Current(), nullptr);
  RequestTrace trace;
  EXPECT_EQ(RequestTrace::Current(), &trace);
  {
    ScopedStage stage("store");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const std::string summary = trace.Summary();
  ASSERT_TRUE(summary.starts_with("store ")) << summary;
  EXPECT_GE(std::stod(summary.substr(6)), 1.5) << summary;
  EXPECT_GE(trace.ElapsedMs(), 1.5);
}

TEST(RequestTrace, NestedTracesRestoreTheOuterOne) {
  RequestTrace outer;
  {
    RequestTrace inner;
    EXPECT_EQ(RequestTrace::Current(), &inner);
    ScopedStage stage("vector");
  }
  EXPECT_EQ(RequestTrace::Current(), &outer);
  EXPECT_EQ(outer.Summary(), "");
}

TEST(RequestTrace, AStageWithoutATraceIsIgnored) {
  ScopedStage stage("fuse");  // no current trace: nothing to record, no crash
  EXPECT_EQ(RequestTrace::Current(), nullptr);
}

TEST(RequestTrace, EachThreadHasItsOwnCurrentTrace) {
  RequestTrace mine;
  RequestTrace* seen = &mine;
  std::thread([&] { seen = RequestTrace::Current(); }).join();
  EXPECT_EQ(seen, nullptr);
}

// The wait of a framed request for a worker is noted on the worker before
// the request's trace exists: it becomes that trace's first stage, once.
TEST(RequestTrace, TheNotedQueueWaitIsTheNextTracesFirstStage) {
  RequestTrace::NoteQueueWait(1.5);
  {
    RequestTrace trace;
    trace.Add("parse", 0.25);
    EXPECT_EQ(trace.Summary(), "queue 1.50 ms, parse 0.25 ms");
  }
  RequestTrace next;
  EXPECT_EQ(next.Summary(), "");
}

TEST(FormatMs, TwoDecimalsAndTheUnit) { EXPECT_EQ(FormatMs(1.256), "1.26 ms"); }

}  // namespace
}  // namespace mnemo::internal

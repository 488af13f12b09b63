// Time by stage of one request, for the debug line the transports log per
// request (MNEMO_LOG=debug, docs/architecture.md "Logging"). A RequestTrace
// on the stack of the thread serving a request becomes that thread's
// current trace; code below (validation, the keyword and vector sides,
// fusion, the store) times its stage with a ScopedStage, which does nothing
// when the thread serves no traced request. Only stage names and durations
// are kept: never a request's content.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mnemo::internal {

class RequestTrace {
 public:
  // Becomes the calling thread's current trace until destroyed (then the
  // previous one is current again). Not thread-safe: one thread's.
  RequestTrace();
  ~RequestTrace();
  RequestTrace(const RequestTrace&) = delete;
  RequestTrace& operator=(const RequestTrace&) = delete;

  // Adds `ms` to `stage` (a string literal: the name is kept as a view).
  // Stages keep the order they were first added in.
  void Add(std::string_view stage, double ms);
  // Milliseconds since construction.
  double ElapsedMs() const;
  // "parse 0.04 ms, keyword 1.20 ms"; "" without stages.
  std::string Summary() const;

  // The calling thread's current trace, or null.
  static RequestTrace* Current();

  // How long the request the calling thread takes up next waited for it
  // (the daemon's queue of framed requests): the next trace constructed on
  // this thread starts with it as its "queue" stage.
  static void NoteQueueWait(double ms);

 private:
  std::vector<std::pair<std::string_view, double>> stages_;
  std::chrono::steady_clock::time_point start_;
  RequestTrace* previous_;
};

// Adds the time from construction to destruction to the current trace's
// `stage` (a string literal), if the thread has a current trace.
class ScopedStage {
 public:
  explicit ScopedStage(std::string_view stage);
  ~ScopedStage();
  ScopedStage(const ScopedStage&) = delete;
  ScopedStage& operator=(const ScopedStage&) = delete;

 private:
  RequestTrace* trace_;
  std::string_view stage_;
  std::chrono::steady_clock::time_point start_;
};

// `ms` with two decimals and its unit: "1.25 ms".
std::string FormatMs(double ms);

}  // namespace mnemo::internal

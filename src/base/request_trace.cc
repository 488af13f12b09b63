#include "base/request_trace.h"

#include <algorithm>
#include <cstdio>
#include <utility>

namespace mnemo::internal {
namespace {

thread_local RequestTrace* current_trace = nullptr;
thread_local double pending_queue_ms = -1;

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

RequestTrace::RequestTrace() : start_(std::chrono::steady_clock::now()), previous_(current_trace) {
  current_trace = this;
  if (pending_queue_ms >= 0) Add("queue", std::exchange(pending_queue_ms, -1));
}

void RequestTrace::NoteQueueWait(double ms) { pending_queue_ms = ms; }

RequestTrace::~RequestTrace() { current_trace = previous_; }

void RequestTrace::Add(std::string_view stage, double ms) {
  auto it =
      std::find_if(stages_.begin(), stages_.end(), [&](const auto& s) { return s.first == stage; });
  if (it == stages_.end()) {
    stages_.emplace_back(stage, ms);
  } else {
    it->second += ms;
  }
}

double RequestTrace::ElapsedMs() const { return MsSince(start_); }

std::string RequestTrace::Summary() const {
  std::string out;
  for (const auto& [stage, ms] : stages_) {
    if (!out.empty()) out += ", ";
    out += stage;
    out += ' ';
    out += FormatMs(ms);
  }
  return out;
}

RequestTrace* RequestTrace::Current() { return current_trace; }

ScopedStage::ScopedStage(std::string_view stage) : trace_(current_trace), stage_(stage) {
  if (trace_ != nullptr) start_ = std::chrono::steady_clock::now();
}

ScopedStage::~ScopedStage() {
  if (trace_ != nullptr) trace_->Add(stage_, MsSince(start_));
}

std::string FormatMs(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f ms", ms);
  return buf;
}

}  // namespace mnemo::internal

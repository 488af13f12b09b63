// mnemo::Context — what goes into the model's context (spec 50): the
// context window of a session's events, and the memory context block built
// for a turn.
//
// Made by Engine::Open and handed out by Engine::context(); it lives as long
// as its Engine. Every call checks its request (include/mnemo/limits.h) and
// answers kDisabled while memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <string_view>

#include "mnemo/context_window_types.h"
#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

class Context {
 public:
  // Made by Engine::Open only.
  explicit Context(const internal::Services& services) : services_(services) {}
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  // The context window. Events are the caller's own, per session.
  Result<ContextAppendResult> Append(const Principal& who, const ContextAppendRequest& req);
  // The newest `protected_count` events, taken newest first while they fit
  // the budget (the newest always, cut to the budget when it alone is
  // larger), then the older events that match the query, best first, each
  // when it still fits; returned in seq order. The rendered texts never sum
  // to more than budget_chars code points.
  Result<ContextWindow> Window(const Principal& who, const ContextWindowRequest& req);
  // Removes every event but the newest `keep` from the window; the removed
  // events are archived as documents first (nothing is lost; a prune
  // repeated after a crash stores no duplicate).
  Result<ContextPruneResult> Prune(const Principal& who, std::string_view session_id, int64_t keep);

  // The memory context to inject for this turn (memory.context_build):
  // relevant entries, the profile, recaps of earlier segments, relevant
  // turns and documents, each within its share of the budget; the same
  // store and request give the same bytes.
  Result<ContextBlock> Build(const Principal& who, const ContextBuildRequest& req);

 private:
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop

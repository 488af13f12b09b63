// mnemo::Context — what goes into the model's context (spec 50): the
// context window of a session's events, and the memory context block built
// for a turn.
//
// The context window service itself: made by Engine::Open over the engine's
// context-event, document and graph stores and handed out by
// Engine::context(); it lives as long as its Engine. Events are the caller's
// own, per session (like a session's turns); pruned events become the
// caller's documents. The block is built by recall (src/core/search). Every
// call answers kDisabled while memory.enabled = false, then checks its
// request (include/mnemo/limits.h).
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "mnemo/clock.h"
#include "mnemo/context_window_types.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage); no caller can make one. Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace storage {
class ContextEventStore;
class DocumentStore;
class GraphStore;
}  // namespace storage
namespace internal {
class AuditLog;         // src/core/audit_log.h: null when [security.audit] is off
struct ContextOptions;  // src/core/services/context_options.h
}  // namespace internal
class RecallService;
#pragma GCC visibility pop

class Context {
 public:
  // Made by Engine::Open: the stores, recall and the options are the engine's.
  [[gnu::visibility("hidden")]] Context(storage::ContextEventStore& events,
                                        storage::DocumentStore& documents,
                                        storage::GraphStore& graph, RecallService& recall,
                                        internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                                        internal::ContextOptions options);
  ~Context();
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
  storage::ContextEventStore& events_;
  storage::DocumentStore& documents_;
  storage::GraphStore& graph_;
  RecallService& recall_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::unique_ptr<const internal::ContextOptions> options_;
};

}  // namespace mnemo

#pragma GCC visibility pop

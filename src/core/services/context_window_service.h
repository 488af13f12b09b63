// The context window service (spec 50): memory.context_append,
// memory.context_window and memory.context_prune. Events are the caller's
// own, per session (like a session's turns); pruned events become the
// caller's documents. It holds no state of its own and takes only the
// context-event, document and graph stores, the clock, its options and a
// hook that hands it the tool registry, refreshed (whose no_memory and
// cleaners decide what of an event is indexed).
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "context/tool_registry.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/context_window_types.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/context_event_store.h"
#include "storage/document_store.h"
#include "storage/graph_store.h"

namespace mnemo {

// Built by ContextWindowOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ContextWindowOptions {
  int64_t max_event_bytes{};  // server.max_body_bytes: an event's JSON
};

ContextWindowOptions ContextWindowOptionsOf(const Config& config);

// The tool registry, brought up to date with what other processes
// registered.
using ToolRegistryFn = std::function<Result<const context::ToolRegistry*>()>;

class ContextWindowService {
 public:
  ContextWindowService(storage::ContextEventStore& events, storage::DocumentStore& documents,
                       storage::GraphStore& graph, std::shared_ptr<Clock> clock,
                       ContextWindowOptions options, ToolRegistryFn registry);

  // Context::Append, Window and Prune (mnemo/context.h).
  Result<ContextAppendResult> Append(const Principal& who, const ContextAppendRequest& req);
  Result<ContextWindow> Window(const Principal& who, const ContextWindowRequest& req);
  Result<ContextPruneResult> Prune(const Principal& who, std::string_view session_id, int64_t keep);

 private:
  storage::ContextEventStore& events_;
  storage::DocumentStore& documents_;
  storage::GraphStore& graph_;
  const std::shared_ptr<Clock> clock_;
  const ContextWindowOptions options_;
  const ToolRegistryFn registry_;
};

// The source of a context-prune archive document of `session_id` starts
// with ContextArchiveSourcePrefix ("context:<session>#seq"), followed by
// "<first>-<last>"; IsContextArchiveOf tells it from another session's
// whose id merely starts the same.
std::string ContextArchiveSourcePrefix(std::string_view session_id);
bool IsContextArchiveOf(std::string_view source, std::string_view session_id);

}  // namespace mnemo

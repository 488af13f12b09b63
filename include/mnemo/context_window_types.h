// Value types of the context window (spec 50): memory.context_append,
// memory.context_window and memory.context_prune.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

struct ContextToolResult {
  std::string name;
  std::string output;  // kept raw; rendered as "[tool] <name>: <output>"
  bool success = true;
  std::optional<std::string> clean_output;  // what takes part in computation instead
};

// One event of a harness's working context (one turn).
struct ContextEvent {
  std::string input;     // what the user said
  std::string response;  // what the assistant answered
  std::vector<ContextToolResult> tool_results;
  std::optional<TimeMs> timestamp;  // absent: arrival time
};

struct ContextAppendRequest {
  std::string session_id;
  ContextEvent event;
  // The event's JSON as received, stored byte for byte; when set, the event
  // is read from it and `event` is ignored. "" = the engine stores the
  // canonical JSON of `event`. Like every JSON text the engine stores, at
  // most server.max_body_bytes bytes nesting at most 64 levels (else
  // kInvalidArgument naming "event_json").
  std::string raw_json;
};

struct ContextAppendResult {
  std::string session_id;
  int64_t seq = 0;    // per (principal, session), never reused
  int64_t chars = 0;  // code points of the rendered event
};

struct ContextWindowRequest {
  std::string session_id;
  std::string query;         // ranks the older events ("" = none join)
  int64_t budget_chars = 0;  // >= 1: code points of the rendered events, summed
  int protected_count = 10;  // the most recent events, always preferred; 0..1000
};

struct ContextWindowEvent {
  int64_t seq = 0;
  ContextEvent event;
  std::string raw_json;  // as stored
  // The rendered event ("user: ...\nassistant: ...\n[tool] name: output"),
  // cut to the budget when `truncated`.
  std::string text;
  int64_t chars = 0;  // code points of `text`
  bool is_protected = false;
  bool truncated = false;
  double score = 0;  // keyword score in [0, 1] against the query
  TimeMs timestamp = 0;
};

struct ContextWindow {
  std::string session_id;
  std::vector<ContextWindowEvent> events;  // in seq order
  int64_t used_chars = 0;                  // <= budget_chars
  int64_t total_events = 0;                // events of the session
};

struct ContextArchive {
  std::string document_id;
  std::string source;  // "context:<session_id>#seq<a>-<b>"
  int64_t first_seq = 0;
  int64_t last_seq = 0;
  bool created = false;
};

struct ContextPruneResult {
  std::string session_id;
  int64_t pruned = 0;  // events removed from the window
  int64_t kept = 0;
  std::vector<ContextArchive> documents;  // where the pruned events went
};

}  // namespace mnemo

#pragma GCC visibility pop

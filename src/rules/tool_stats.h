// Per-tool call statistics (spec 30, capture step 4), stored as JSON in
// `tool_effectiveness` under `tool/{name}`, one entry per (owner, tool).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo::rules {

inline constexpr size_t kMaxRecentErrorClasses = 5;

struct ToolStats {
  std::string tool;
  int64_t total_calls = 0;
  int64_t successes = 0;
  int64_t failures = 0;
  double mean_duration_ms = 0;  // running mean over every call
  // Calls whose output cleaner failed or left only whitespace (spec 50): the
  // raw output was indexed instead.
  int64_t cleaner_failures = 0;
  // Up to 5 distinct failure classes, the most recent first.
  std::vector<std::string> recent_error_classes;
};

// One call of a turn, as the statistics see it.
struct CallOutcome {
  bool success = true;
  int64_t duration_ms = 0;
  std::string error_class;  // failures only (ClassifyFailure)
  bool cleaner_failed = false;
};

std::string StatsKey(std::string_view tool);  // "tool/" + tool
std::string EncodeToolStats(const ToolStats& stats);
// Lenient: fields that are missing or of the wrong type read as zero/empty
// (a hand-edited entry never stops the counting).
ToolStats DecodeToolStats(std::string_view json, std::string_view tool);
void AddCall(ToolStats& stats, const CallOutcome& call);

// Adds `calls` of `tool` to the statistics of `owner` in one read-modify-write.
Result<ToolStats> RecordCalls(storage::EntryStore& entries, TimeMs now, const std::string& owner,
                              const std::string& tool, const std::vector<CallOutcome>& calls);

}  // namespace mnemo::rules

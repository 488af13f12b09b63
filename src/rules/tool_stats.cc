#include "rules/tool_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "rules/tool_rule.h"

namespace mnemo::rules {
namespace {

using nlohmann::json;

// Counters are non-negative integers; anything else (a hand edit) reads 0.
int64_t IntField(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return 0;
  if (it->is_number_unsigned()) {
    return static_cast<int64_t>(std::min<uint64_t>(it->get<uint64_t>(), INT64_MAX / 2));
  }
  if (it->is_number_integer()) return std::clamp<int64_t>(it->get<int64_t>(), 0, INT64_MAX / 2);
  return 0;
}

}  // namespace

std::string StatsKey(std::string_view tool) { return "tool/" + std::string(tool); }

std::string EncodeToolStats(const ToolStats& s) {
  json j{{"tool", s.tool},
         {"total_calls", s.total_calls},
         {"successes", s.successes},
         {"failures", s.failures},
         {"mean_duration_ms", s.mean_duration_ms},
         {"cleaner_failures", s.cleaner_failures},
         {"recent_error_classes", s.recent_error_classes}};
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

ToolStats DecodeToolStats(std::string_view text, std::string_view tool) {
  ToolStats s{.tool = std::string(tool)};
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return s;
  s.total_calls = IntField(j, "total_calls");
  s.successes = IntField(j, "successes");
  s.failures = IntField(j, "failures");
  s.cleaner_failures = IntField(j, "cleaner_failures");
  if (auto it = j.find("mean_duration_ms"); it != j.end() && it->is_number()) {
    const double mean = it->get<double>();
    if (std::isfinite(mean) && mean >= 0) s.mean_duration_ms = mean;
  }
  if (auto it = j.find("recent_error_classes"); it != j.end() && it->is_array()) {
    for (const json& c : *it) {
      if (c.is_string() && s.recent_error_classes.size() < kMaxRecentErrorClasses) {
        s.recent_error_classes.push_back(c.get<std::string>());
      }
    }
  }
  return s;
}

void AddCall(ToolStats& s, const CallOutcome& call) {
  ++s.total_calls;
  if (call.cleaner_failed) ++s.cleaner_failures;
  s.mean_duration_ms +=
      (static_cast<double>(std::max<int64_t>(call.duration_ms, 0)) - s.mean_duration_ms) /
      static_cast<double>(s.total_calls);
  if (call.success) {
    ++s.successes;
    return;
  }
  ++s.failures;
  auto& recent = s.recent_error_classes;
  recent.erase(std::remove(recent.begin(), recent.end(), call.error_class), recent.end());
  recent.insert(recent.begin(), call.error_class);
  if (recent.size() > kMaxRecentErrorClasses) recent.resize(kMaxRecentErrorClasses);
}

Result<ToolStats> RecordCalls(storage::EntryStore& entries, TimeMs now, const std::string& owner,
                              const std::string& tool, const std::vector<CallOutcome>& calls) {
  ToolStats stats;
  const std::string key = StatsKey(tool);
  MNEMO_RETURN_IF_ERROR(
      entries
          .Mutate(
              storage::EntryGroup{.owner = owner, .ns = std::string(kStatsNamespace), .key = key},
              [&](const std::vector<Entry>& current) -> Result<std::vector<storage::EntryWrite>> {
                stats = current.empty() ? ToolStats{.tool = tool}
                                        : DecodeToolStats(current[0].content, tool);
                for (const CallOutcome& c : calls) AddCall(stats, c);
                return std::vector<storage::EntryWrite>{
                    storage::EntryWrite{.owner = owner,
                                        .ns = std::string(kStatsNamespace),
                                        .key = key,
                                        .content = EncodeToolStats(stats),
                                        .category = "core",
                                        .now = now}};
              })
          .status());
  return stats;
}

}  // namespace mnemo::rules

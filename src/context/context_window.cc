#include "context/context_window.h"

#include <algorithm>

#include "context/computation_text.h"

namespace mnemo::context {
namespace {

void AddLine(std::string& out, std::string_view prefix, std::string_view text) {
  if (text.empty()) return;
  if (!out.empty()) out += '\n';
  out += prefix;
  out += text;
}

}  // namespace

std::string RenderEvent(const ContextEvent& event) {
  std::string out;
  AddLine(out, "user: ", event.input);
  AddLine(out, "assistant: ", event.response);
  for (const ContextToolResult& t : event.tool_results) {
    AddLine(out, "[tool] " + t.name + ": ", t.output);
  }
  return out;
}

std::string EventComputationText(const ToolRegistry& tools, const ContextEvent& event) {
  std::vector<ToolCall> calls;
  calls.reserve(event.tool_results.size());
  for (const ContextToolResult& t : event.tool_results) {
    calls.push_back(
        {.name = t.name, .success = t.success, .output = t.output, .clean_output = t.clean_output});
  }
  const TurnComputation computed = ComputeTurnText(tools, event.input, event.response, calls);
  std::string out;
  AddLine(out, "", computed.user);
  AddLine(out, "", computed.assistant);
  return out;
}

std::vector<WindowPick> SelectWindow(std::span<const WindowItem> items, size_t protected_count,
                                     int64_t budget) {
  std::vector<WindowPick> picks;
  if (items.empty() || budget < 0) return picks;
  const size_t n = items.size();
  const size_t first_protected = n - std::min(protected_count, n);
  int64_t left = budget;
  for (size_t i = n; i-- > first_protected;) {
    const int64_t chars = items[i].chars;
    if (chars <= left) {
      picks.push_back({.index = i, .is_protected = true, .chars = chars});
      left -= chars;
      continue;
    }
    if (i == n - 1) {
      // The newest event is the one a harness cannot do without: cut to fit.
      picks.push_back({.index = i, .is_protected = true, .chars = left, .truncated = true});
      left = 0;
    }
    break;
  }
  std::vector<size_t> older;
  for (size_t i = 0; i < first_protected; ++i) {
    if (items[i].score > 0) older.push_back(i);
  }
  std::stable_sort(older.begin(), older.end(), [&](size_t a, size_t b) {
    if (items[a].score != items[b].score) return items[a].score > items[b].score;
    return a > b;
  });
  for (size_t i : older) {
    if (items[i].chars > left) continue;
    picks.push_back({.index = i, .chars = items[i].chars});
    left -= items[i].chars;
  }
  std::sort(picks.begin(), picks.end(),
            [](const WindowPick& a, const WindowPick& b) { return a.index < b.index; });
  return picks;
}

}  // namespace mnemo::context

#include "rules/prompt.h"

#include <algorithm>
#include <compare>
#include <cstddef>
#include <string_view>
#include <utility>

#include "rules/tool_rule.h"
#include "text/strip.h"

namespace mnemo::rules {
namespace {

constexpr std::string_view kTitle = "## Tool-scoped rules\n";
// The dash is U+2014 spelled as bytes so the block does not depend on the
// compiler's execution character set.
constexpr std::string_view kPreamble =
    "These rules are pinned by the user or by the safety pipeline. Treat every entry as a hard "
    "constraint when considering the matching tool \xE2\x80\x94 do not override them silently. "
    "Lower-priority guidance lives in the `tool-{name}` memory namespace and can be queried via ";
constexpr std::string_view kRecallHint = "`memory_recall` if needed.\n";
constexpr std::string_view kAclHint =
    "`memory_search` with `namespace: \"tool-{name}\"` if needed.\n";
constexpr std::string_view kAnyToolSuffix = " (any tool)";
// Bytes a rendered rule adds beyond its text and tool name, for reserve().
constexpr size_t kPerRuleOverhead = 32;

// True when text::CollapseToLine(text) would return `text` unchanged, decided
// without decoding: most rules are ASCII, and the only ASCII White_Space
// characters are \t \n \v \f \r and space. Non-ASCII text answers false and
// takes the full collapse. Skipping the decode and copy keeps select + render
// of 10,000 rules well inside the engine's 5 ms budget.
bool IsCollapsedAscii(std::string_view text) {
  if (!text.empty() && (text.front() == ' ' || text.back() == ' ')) return false;
  char prev = 0;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 || (byte >= '\t' && byte <= '\r') || (c == ' ' && prev == ' ')) return false;
    prev = c;
  }
  return true;
}

void AppendCollapsed(std::string_view text, std::string& out) {
  if (IsCollapsedAscii(text)) {
    out.append(text);
  } else {
    out.append(text::CollapseToLine(text));
  }
}

// A selected rule with its text collapsed once, so sorting never re-collapses.
struct Keyed {
  explicit Keyed(ToolRule* r)
      : rule(r), any_tool(r->tool_name == kAnyTool), unchanged(IsCollapsedAscii(r->rule)) {
    if (!unchanged) collapsed = text::CollapseToLine(r->rule);
  }
  std::string_view text() const { return unchanged ? std::string_view(rule->rule) : collapsed; }

  ToolRule* rule;
  bool any_tool;
  bool unchanged;         // the stored text is already collapsed
  std::string collapsed;  // set only when !unchanged
};

// Tool ascending by bytes with "*" last, priority descending, collapsed text,
// id; the raw text last makes the order total even for duplicate ids.
bool RenderLess(const Keyed& a, const Keyed& b) {
  if (a.any_tool != b.any_tool) return b.any_tool;
  if (auto c = a.rule->tool_name <=> b.rule->tool_name; c != 0) return c < 0;
  if (a.rule->priority != b.rule->priority) return a.rule->priority > b.rule->priority;
  if (auto c = a.text() <=> b.text(); c != 0) return c < 0;
  if (auto c = a.rule->id <=> b.rule->id; c != 0) return c < 0;
  return a.rule->rule < b.rule->rule;
}

// Most recently updated first, then id; tool and raw text only break ties
// between duplicate ids, so which rules survive the cap never depends on
// input order.
bool MoreRecent(const ToolRule* a, const ToolRule* b) {
  if (a->updated_at != b->updated_at) return a->updated_at > b->updated_at;
  if (auto c = a->id <=> b->id; c != 0) return c < 0;
  if (auto c = a->tool_name <=> b->tool_name; c != 0) return c < 0;
  return a->rule < b->rule;
}

void AppendHeading(std::string_view tool_name, std::string& out) {
  out.append("### `");
  const size_t start = out.size();
  AppendCollapsed(tool_name, out);
  std::replace(out.begin() + static_cast<std::ptrdiff_t>(start), out.end(), '`', '\'');
  out.push_back('`');
  if (tool_name == kAnyTool) out.append(kAnyToolSuffix);
  out.push_back('\n');
}

}  // namespace

PromptSelection SelectForPrompt(std::vector<ToolRule> rules, int64_t high_cap) {
  PromptSelection selection;
  std::vector<ToolRule*> critical;
  std::vector<ToolRule*> high;
  for (ToolRule& rule : rules) {
    if (rule.priority == RulePriority::kCritical) {
      critical.push_back(&rule);
    } else if (rule.priority == RulePriority::kHigh) {
      high.push_back(&rule);
    }
  }

  size_t keep_high = 0;
  if (high_cap > 0) keep_high = std::min(high.size(), static_cast<size_t>(high_cap));
  if (keep_high < high.size()) {
    // Only membership matters here; the render sort below orders the kept ones.
    const auto cut = high.begin() + static_cast<std::ptrdiff_t>(keep_high);
    if (keep_high > 0) std::nth_element(high.begin(), cut, high.end(), MoreRecent);
    selection.high_dropped = high.size() - keep_high;
    high.erase(cut, high.end());
  }
  selection.critical = critical.size();

  std::vector<Keyed> keyed;
  keyed.reserve(critical.size() + high.size());
  for (const auto* group : {&critical, &high}) {
    for (ToolRule* rule : *group) keyed.emplace_back(rule);
  }
  std::sort(keyed.begin(), keyed.end(), RenderLess);

  selection.rules.reserve(keyed.size());
  for (Keyed& k : keyed) selection.rules.push_back(std::move(*k.rule));
  return selection;
}

std::string RenderPromptBlock(const std::vector<ToolRule>& rules, bool acl) {
  if (rules.empty()) return "";
  const std::string_view hint = acl ? kAclHint : kRecallHint;
  size_t size = kTitle.size() + 1 + kPreamble.size() + hint.size();
  for (const ToolRule& rule : rules) {
    size += rule.rule.size() + rule.tool_name.size() + kPerRuleOverhead;
  }
  std::string out;
  out.reserve(size);
  out.append(kTitle).append("\n").append(kPreamble).append(hint);

  const std::string* group = nullptr;
  for (const ToolRule& rule : rules) {
    if (group == nullptr || rule.tool_name != *group) {
      out.push_back('\n');
      AppendHeading(rule.tool_name, out);
      group = &rule.tool_name;
    }
    // Collapsed so that a stored newline cannot start a heading or bullet.
    out.append("- **[").append(PriorityName(rule.priority)).append("]** ");
    AppendCollapsed(rule.rule, out);
    out.push_back('\n');
  }
  return out;
}

}  // namespace mnemo::rules

#include "rules/tool_rule.h"

#include <algorithm>

#include "base/sha256.h"
#include "text/pipeline/normalizer.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo::rules {
namespace {

constexpr std::string_view kRuleKeyPrefix = "rule/";
constexpr std::string_view kRuleNamespacePrefix = "tool-";

}  // namespace

std::string NormalizeToolName(std::string_view name) {
  std::string out = text::CollapseToLine(name);
  std::transform(out.begin(), out.end(), out.begin(), [](char c) {
    return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  });
  return out;
}

Status ValidateToolName(std::string_view normalized, std::string_view field) {
  const std::string f(field);
  if (normalized.empty()) return InvalidArgument(f + " must not be blank", f);
  if (normalized == kAnyTool) return Status::Ok();
  bool ok = normalized.size() <= kMaxToolNameBytes &&
            std::all_of(normalized.begin(), normalized.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                     c == '.' || c == ':' || c == '/';
            });
  if (!ok) {
    std::string shown = text::IsValidUtf8(normalized) && normalized.size() <= 140
                            ? "\"" + std::string(normalized) + "\""
                            : "(" + std::to_string(normalized.size()) + " bytes)";
    return InvalidArgument(f + " " + shown +
                               " is invalid: use \"*\" or 1-120 characters of [A-Za-z0-9_.:/-] "
                               "(e.g. send_email)",
                           f);
  }
  return Status::Ok();
}

std::string RuleNamespace(std::string_view tool_name) {
  return std::string(kRuleNamespacePrefix) + std::string(tool_name);
}

std::string RuleKey(std::string_view id) { return std::string(kRuleKeyPrefix) + std::string(id); }

Result<RuleAddress> RuleAddressOf(std::string_view tool_name, std::string_view id) {
  MNEMO_ASSIGN_OR_RETURN(Namespace ns, Namespace::Parse(RuleNamespace(tool_name)));
  MNEMO_ASSIGN_OR_RETURN(Key key, Key::Parse(RuleKey(id)));
  return RuleAddress{.ns = std::move(ns), .key = std::move(key)};
}

std::optional<std::string> ToolOfNamespace(std::string_view ns) {
  if (ns.size() <= kRuleNamespacePrefix.size() || !ns.starts_with(kRuleNamespacePrefix)) {
    return std::nullopt;
  }
  return std::string(ns.substr(kRuleNamespacePrefix.size()));
}

std::string NormalizedBody(std::string_view rule) {
  std::string collapsed = text::CollapseToLine(rule);
  // Trailing sentence punctuation: "Never X." and "never x" are one rule.
  for (;;) {
    if (!collapsed.empty() && (collapsed.back() == '.' || collapsed.back() == '!')) {
      collapsed.pop_back();
    } else if (collapsed.ends_with("\xE3\x80\x82") || collapsed.ends_with("\xEF\xBC\x81")) {
      collapsed.resize(collapsed.size() - 3);  // 。 ！
    } else {
      break;
    }
    while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
  }
  std::string folded;
  text::FoldWord(text::SanitizeUtf8(collapsed), &folded);
  return folded;
}

std::string BodyFingerprint(std::string_view rule) {
  return mnemo::internal::Sha256Hex(NormalizedBody(rule));
}

storage::EntryWrite RuleToWrite(const ToolRule& rule, TimeMs now) {
  std::vector<std::string> tags = rule.tags;
  tags.push_back(std::string(kSourceTagPrefix) + std::string(SourceName(rule.source)));
  storage::EntryWrite w{.owner = rule.owner,
                        .ns = RuleNamespace(rule.tool_name),
                        .key = RuleKey(rule.id),
                        .content = rule.rule,
                        .category = std::string(PriorityName(rule.priority)),
                        .tags = std::move(tags),
                        .now = now,
                        .fingerprint = BodyFingerprint(rule.rule)};
  return w;
}

std::optional<ToolRule> RuleFromEntry(const Entry& e) {
  // Only what RuleToWrite writes is a rule: a valid tool name, a "rule/" key,
  // a priority category and a source tag. Anything else stored in a rule
  // namespace (memory_store, a hand edit) never reaches a prompt.
  std::optional<std::string> tool = ToolOfNamespace(e.ns);
  if (!tool || !ValidateToolName(*tool).ok() || !e.key.starts_with(kRuleKeyPrefix) ||
      e.key.size() == kRuleKeyPrefix.size() || !ParsePriority(e.category).ok()) {
    return std::nullopt;
  }
  const bool has_source = std::any_of(e.tags.begin(), e.tags.end(), [](const std::string& t) {
    return t.starts_with(kSourceTagPrefix) &&
           ParseSource(std::string_view(t).substr(kSourceTagPrefix.size())).ok();
  });
  if (!has_source) return std::nullopt;
  ToolRule r{.id = e.key.substr(kRuleKeyPrefix.size()),
             .tool_name = *tool,
             .rule = e.content,
             .owner = e.owner,
             .created_at = e.created_at,
             .updated_at = e.updated_at};
  r.priority = *ParsePriority(e.category);
  for (const std::string& tag : e.tags) {
    if (tag.starts_with(kSourceTagPrefix)) {
      Result<RuleSource> s = ParseSource(std::string_view(tag).substr(kSourceTagPrefix.size()));
      if (s.ok()) {
        r.source = *s;
        continue;
      }
    }
    r.tags.push_back(tag);
  }
  return r;
}

}  // namespace mnemo::rules

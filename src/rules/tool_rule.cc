#include "rules/tool_rule.h"

#include <algorithm>

#include "base/sha256.h"
#include "text/normalizer.h"
#include "text/utf8.h"

namespace mnemo::rules {
namespace {

constexpr std::string_view kRuleKeyPrefix = "rule/";
constexpr std::string_view kRuleNamespacePrefix = "tool-";

// Unicode White_Space (PropList.txt), ASCII included.
bool IsSpace(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::string_view PriorityName(RulePriority p) {
  switch (p) {
    case RulePriority::kCritical: return "critical";
    case RulePriority::kHigh: return "high";
    case RulePriority::kNormal: return "normal";
  }
  return "normal";
}

std::string_view SourceName(RuleSource s) {
  switch (s) {
    case RuleSource::kUserExplicit: return "user_explicit";
    case RuleSource::kPostTurn: return "post_turn";
    case RuleSource::kProgrammatic: return "programmatic";
  }
  return "programmatic";
}

Result<RulePriority> ParsePriority(std::string_view name, std::string_view field) {
  for (RulePriority p : {RulePriority::kCritical, RulePriority::kHigh, RulePriority::kNormal}) {
    if (name == PriorityName(p)) return p;
  }
  return InvalidArgument(std::string(field) + " must be one of critical, high, normal",
                         std::string(field));
}

Result<RuleSource> ParseSource(std::string_view name, std::string_view field) {
  for (RuleSource s :
       {RuleSource::kUserExplicit, RuleSource::kPostTurn, RuleSource::kProgrammatic}) {
    if (name == SourceName(s)) return s;
  }
  return InvalidArgument(
      std::string(field) + " must be one of user_explicit, post_turn, programmatic",
      std::string(field));
}

std::string NormalizeToolName(std::string_view name) {
  std::string out = CollapseWhitespace(name);
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

std::optional<std::string> ToolOfNamespace(std::string_view ns) {
  if (ns.size() <= kRuleNamespacePrefix.size() || !ns.starts_with(kRuleNamespacePrefix)) {
    return std::nullopt;
  }
  return std::string(ns.substr(kRuleNamespacePrefix.size()));
}

std::string CollapseWhitespace(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  bool pending_space = false;
  size_t pos = 0;
  while (pos < in.size()) {
    int32_t cp = static_cast<unsigned char>(in[pos]);
    int len = 1;
    if (cp >= 0x80) len = text::DecodeUtf8(in, pos, &cp);
    if (IsSpace(cp)) {
      pending_space = !out.empty();
    } else {
      if (pending_space) out.push_back(' ');
      pending_space = false;
      if (len == 1) {
        out.push_back(in[pos]);
      } else {
        out.append(in.substr(pos, static_cast<size_t>(len)));
      }
    }
    pos += static_cast<size_t>(len);
  }
  return out;
}

std::string NormalizedBody(std::string_view rule) {
  std::string collapsed = CollapseWhitespace(rule);
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

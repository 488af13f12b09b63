// ToolRule basics shared by the rules room (spec 30): names of priorities and
// sources, tool-name normalisation, where a rule lives, the "same rule" test,
// and the mapping between a rule and the entry that stores it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "mnemo/limits.h"
#include "mnemo/names.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo::rules {

// The tool name of unscoped rules (an edict with no tool in its turn).
inline constexpr std::string_view kAnyTool = "*";
// Rules are stored in `tool-{tool_name}`; statistics in this namespace.
inline constexpr std::string_view kStatsNamespace = "tool_effectiveness";
// User edict bodies are cut to this many characters (code points).
inline constexpr size_t kMaxEdictChars = 240;

// Trims and lower-cases (ASCII) a tool name: "  Send_Email " -> "send_email".
std::string NormalizeToolName(std::string_view name);
// A normalised tool name is "*" or 1-120 bytes of [a-z0-9_.:/-]; otherwise
// kInvalidArgument naming `field` and what is allowed ("must not be blank"
// when blank).
Status ValidateToolName(std::string_view normalized, std::string_view field = "tool_name");

// "tool-" + tool name; "rule/" + id.
std::string RuleNamespace(std::string_view tool_name);
std::string RuleKey(std::string_view id);
// A rule's address as the entry store takes it: RuleNamespace and RuleKey,
// parsed (kInvalidArgument when they are not a namespace and a key).
struct RuleAddress {
  Namespace ns;
  Key key;
};
Result<RuleAddress> RuleAddressOf(std::string_view tool_name, std::string_view id);
// The tool name of a rule namespace ("tool-x" -> "x"), or nullopt.
std::optional<std::string> ToolOfNamespace(std::string_view ns);

// The body compared by the no-duplicate rule: whitespace collapsed, case
// folded, trailing sentence punctuation (. ! 。 ！) dropped.
std::string NormalizedBody(std::string_view rule);
// SHA-256 of NormalizedBody: the entry fingerprint of a rule, so the
// no-duplicate check reads only the rules that may equal a new one.
std::string BodyFingerprint(std::string_view rule);

// Entry <-> rule. The entry's content is the rule text, its category the
// priority, its tags the rule's tags plus "source:<source>", its
// fingerprint BodyFingerprint.
storage::EntryWrite RuleToWrite(const ToolRule& rule, TimeMs now);
// nullopt when the entry is not a rule: a namespace without a valid tool
// name, a key not "rule/<id>", a category that is no priority, or no source
// tag.
std::optional<ToolRule> RuleFromEntry(const Entry& entry);
// Tags starting with this are reserved for the rule's source.
inline constexpr std::string_view kSourceTagPrefix = "source:";

}  // namespace mnemo::rules

// The capture hook of spec 30, run by memory.turn_complete after every turn:
// user edicts become critical rules, a tool that failed twice or more gets a
// normal rule, and every call counts in the tool's statistics.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "rules/edicts.h"
#include "rules/rule_store.h"

namespace mnemo::rules {

// At most this many edicts of one user message become rules (the first ones).
inline constexpr size_t kMaxEdictsPerTurn = 16;

// The turn's tool names, normalised, distinct, in the order they first ran.
std::vector<std::string> TurnTools(const Turn& turn);

// "Tool failed {n} times in one turn ({tool}: failed ({class})). Consider an
// alternative approach before retrying." — `error_class` of the first failure.
std::string FailureRuleText(const std::string& tool, int64_t failures,
                            const std::string& error_class);

struct FailureDraft {
  std::string tool;
  std::string body;
};
// One draft per tool that failed at least twice in `turn`, in tool order.
std::vector<FailureDraft> RepeatedFailures(const Turn& turn);

// Every tool the engine knows (registered, with statistics, with rules), for
// an edict that names no tool of its turn (ToolCandidates::known).
using KnownTools = std::function<Result<std::vector<std::string>>()>;

// Stores the edicts and repeated-failure rules of `turn` for `owner`:
// edicts first (message order), then failures (tool order). Deterministic.
// `known` is called at most once, only when an edict needs it; its error is
// returned and nothing is stored.
Result<std::vector<RulePutOutcome>> CaptureRules(RuleStore& store, const std::string& owner,
                                                 const Turn& turn,
                                                 const std::vector<Alias>& aliases,
                                                 const KnownTools& known = nullptr);
// The same with the user message as the rules read it (`user_message`, say
// with its secrets redacted) instead of turn.user_message.
Result<std::vector<RulePutOutcome>> CaptureRules(RuleStore& store, const std::string& owner,
                                                 const Turn& turn, std::string_view user_message,
                                                 const std::vector<Alias>& aliases,
                                                 const KnownTools& known = nullptr);

// Adds every call of `turn` to its tool's statistics (one write per tool).
// `cleaner_failed_calls`: indexes into turn.tool_calls of the calls whose
// output cleaner failed (spec 50).
Status RecordToolStats(storage::EntryStore& entries, TimeMs now, const std::string& owner,
                       const Turn& turn, std::span<const size_t> cleaner_failed_calls = {});

}  // namespace mnemo::rules

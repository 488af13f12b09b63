#include "rules/capture.h"

#include <algorithm>
#include <map>

#include "rules/tool_rule.h"
#include "rules/tool_stats.h"

namespace mnemo::rules {

std::vector<std::string> TurnTools(const Turn& turn) {
  std::vector<std::string> tools;
  for (const ToolCall& call : turn.tool_calls) {
    std::string name = NormalizeToolName(call.name);
    if (name.empty()) continue;
    if (std::find(tools.begin(), tools.end(), name) == tools.end()) tools.push_back(name);
  }
  return tools;
}

std::string FailureRuleText(const std::string& tool, int64_t failures,
                            const std::string& error_class) {
  return "Tool failed " + std::to_string(failures) + " times in one turn (" + tool + ": failed (" +
         error_class + ")). Consider an alternative approach before retrying.";
}

std::vector<FailureDraft> RepeatedFailures(const Turn& turn) {
  struct Count {
    int64_t failures = 0;
    std::string first_class;
  };
  std::map<std::string, Count> counts;
  for (const ToolCall& call : turn.tool_calls) {
    if (call.success) continue;
    Count& c = counts[NormalizeToolName(call.name)];
    if (c.failures++ == 0) c.first_class = ClassifyFailure(call.output);
  }
  std::vector<FailureDraft> drafts;
  for (const std::string& tool : TurnTools(turn)) {
    auto it = counts.find(tool);
    if (it == counts.end() || it->second.failures < 2) continue;
    drafts.push_back({tool, FailureRuleText(tool, it->second.failures, it->second.first_class)});
  }
  return drafts;
}

Result<std::vector<RulePutOutcome>> CaptureRules(RuleStore& store, const std::string& owner,
                                                 const Turn& turn,
                                                 const std::vector<Alias>& aliases,
                                                 const KnownTools& known) {
  return CaptureRules(store, owner, turn, turn.user_message, aliases, known);
}

Result<std::vector<RulePutOutcome>> CaptureRules(RuleStore& store, const std::string& owner,
                                                 const Turn& turn, std::string_view user_message,
                                                 const std::vector<Alias>& aliases,
                                                 const KnownTools& known) {
  std::vector<RulePutOutcome> out;
  Status known_status = Status::Ok();
  ToolCandidates candidates{.turn = TurnTools(turn), .known = nullptr};
  if (known) {
    candidates.known = [&]() -> std::vector<std::string> {
      Result<std::vector<std::string>> tools = known();
      if (!tools.ok()) {
        known_status = tools.status();
        return {};
      }
      return std::move(tools).value();
    };
  }
  std::vector<Edict> edicts = ExtractEdicts(user_message, candidates, aliases);
  MNEMO_RETURN_IF_ERROR(known_status);
  // Critical rules are never dropped from the prompt: one message cannot
  // flood it.
  if (edicts.size() > kMaxEdictsPerTurn) edicts.resize(kMaxEdictsPerTurn);
  for (Edict& edict : edicts) {
    ToolRulePut put{.tool_name = std::move(edict.tool_name),
                    .rule = std::move(edict.body),
                    .priority = RulePriority::kCritical,
                    .source = RuleSource::kUserExplicit,
                    .tags = {"user-edict"}};
    MNEMO_ASSIGN_OR_RETURN(RulePutOutcome o, store.Put(owner, put));
    out.push_back(std::move(o));
  }
  for (const FailureDraft& f : RepeatedFailures(turn)) {
    MNEMO_ASSIGN_OR_RETURN(RulePutOutcome o, store.PutFailureRule(owner, f.tool, f.body));
    out.push_back(std::move(o));
  }
  return out;
}

Status RecordToolStats(storage::EntryStore& entries, TimeMs now, const std::string& owner,
                       const Turn& turn, std::span<const size_t> cleaner_failed_calls) {
  std::map<std::string, std::vector<CallOutcome>> by_tool;
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const ToolCall& call = turn.tool_calls[i];
    by_tool[NormalizeToolName(call.name)].push_back(CallOutcome{
        .success = call.success,
        .duration_ms = call.duration_ms,
        .error_class = call.success ? std::string() : ClassifyFailure(call.output),
        .cleaner_failed = std::find(cleaner_failed_calls.begin(), cleaner_failed_calls.end(), i) !=
                          cleaner_failed_calls.end()});
  }
  for (const auto& [tool, calls] : by_tool) {
    if (tool.empty()) continue;
    MNEMO_RETURN_IF_ERROR(RecordCalls(entries, now, owner, tool, calls).status());
  }
  return Status::Ok();
}

}  // namespace mnemo::rules

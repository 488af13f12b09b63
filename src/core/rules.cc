// Tool-scoped rules and the per-turn entry point (spec 30): validation,
// principals and vectors around the rules room.

#include <algorithm>
#include <set>

#include "base/json_limits.h"
#include "core/engine_impl.h"
#include "core/turn_result_json.h"
#include "core/validation.h"
#include "rules/capture.h"
#include "rules/prompt.h"
#include "rules/rule_store.h"
#include "rules/tool_rule.h"
#include "rules/tool_stats.h"
#include "text/secrets.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

// Distinct (principal, tools) prompt blocks kept per rules generation.
constexpr size_t kPromptCacheEntries = 64;

Status ValidateRuleText(std::string_view rule) {
  MNEMO_RETURN_IF_ERROR(ValidateContent(rule, "rule"));
  if (rule.size() > kMaxRuleBytes) {
    return InvalidArgument(
        "rule is " + std::to_string(rule.size()) + " bytes long: at most 4096 bytes are allowed",
        "rule");
  }
  return Status::Ok();
}

Status ValidateRuleId(std::string_view id) {
  bool ok =
      !id.empty() && id.size() <= kMaxRuleIdBytes && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
      });
  if (!ok) {
    return InvalidArgument("id is invalid: use 1-64 characters of [A-Za-z0-9_.-] (a UUID)", "id");
  }
  return Status::Ok();
}

Status ValidateRuleTags(const std::vector<std::string>& tags) {
  MNEMO_RETURN_IF_ERROR(ValidateTags(tags, "tags"));
  for (const std::string& t : tags) {
    if (t.starts_with(rules::kSourceTagPrefix)) {
      return InvalidArgument(
          "tags: \"source:\" is reserved (a rule's source is given by the source parameter)",
          "tags");
    }
  }
  return Status::Ok();
}

// The built-in table extended by [[rules.aliases]] (or replaced by it).
std::vector<rules::Alias> AliasesOf(const Config& config) {
  std::vector<rules::Alias> out;
  if (!config.rules.aliases_replace_builtin) out = rules::BuiltinAliases();
  for (const AliasConfig& a : config.rules.aliases) out.push_back({a.words, a.tool_contains});
  return out;
}

}  // namespace

storage::ReadScope Engine::Impl::RuleScope(const Principal& who) const {
  // Rules are pinned into one principal's prompts: under ACL even an admin
  // sees only its own (and public) rules here.
  return {.all = !config.memory.acl_enabled, .principal = who.name};
}

Result<std::string> Engine::Impl::CheckToolName(std::string_view name,
                                                std::string_view field) const {
  std::string tool = rules::NormalizeToolName(name);
  MNEMO_RETURN_IF_ERROR(rules::ValidateToolName(tool, field));
  return tool;
}

void Engine::Impl::EmbedRules(const std::vector<rules::RulePutOutcome>& outcomes) {
  std::vector<storage::Label> labels;
  std::vector<std::string> texts;
  for (const rules::RulePutOutcome& o : outcomes) {
    if (!o.text_changed) continue;
    labels.push_back(o.label);
    texts.push_back(o.rule.rule);
  }
  EmbedAndStore(labels, texts);
}

Result<ToolRule> Engine::Impl::PutToolRule(const Principal& who, const ToolRulePut& req) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(req.tool_name, "tool_name"));
  MNEMO_RETURN_IF_ERROR(ValidateRuleText(req.rule));
  MNEMO_RETURN_IF_ERROR(CheckSecret(config, req.rule, "rule"));
  MNEMO_RETURN_IF_ERROR(ValidateRuleTags(req.tags));
  // A blank id asks for a new rule.
  const bool has_id = req.id && !text::IsBlank(*req.id);
  if (has_id) MNEMO_RETURN_IF_ERROR(ValidateRuleId(*req.id));
  ToolRulePut put{.tool_name = std::move(tool),
                  .rule = req.rule,
                  .priority = req.priority,
                  .source = req.source,
                  .tags = req.tags,
                  .id = has_id ? req.id : std::nullopt};
  rules::RuleStore store(*stores.entries, *clock);
  MNEMO_ASSIGN_OR_RETURN(rules::RulePutOutcome outcome, store.Put(who.name, put));
  EmbedRules({outcome});
  return outcome.rule;
}

Result<std::optional<ToolRule>> Engine::Impl::GetToolRule(const Principal& who,
                                                          std::string_view tool_name,
                                                          std::string_view id) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(tool_name, "tool_name"));
  MNEMO_RETURN_IF_ERROR(ValidateRuleId(id));
  rules::RuleStore store(*stores.entries, *clock);
  return store.Get(RuleScope(who), tool, std::string(id));
}

Result<std::vector<ToolRule>> Engine::Impl::ListToolRules(
    const Principal& who, std::optional<std::string_view> tool_name) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  rules::RuleStore store(*stores.entries, *clock);
  if (!tool_name) return store.ListAll(RuleScope(who));
  MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(*tool_name, "tool_name"));
  return store.List(RuleScope(who), tool);
}

Result<bool> Engine::Impl::DeleteToolRule(const Principal& who, std::string_view tool_name,
                                          std::string_view id) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(tool_name, "tool_name"));
  MNEMO_RETURN_IF_ERROR(ValidateRuleId(id));
  rules::RuleStore store(*stores.entries, *clock);
  return store.Delete(who.name, /*any_owner=*/!config.memory.acl_enabled, tool, std::string(id));
}

Result<PromptRules> Engine::Impl::ToolRulesForPrompt(const Principal& who,
                                                     const std::vector<std::string>& tools) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  std::set<std::string, std::less<>> wanted;
  for (size_t i = 0; i < tools.size(); ++i) {
    MNEMO_ASSIGN_OR_RETURN(std::string tool,
                           CheckToolName(tools[i], "tools[" + std::to_string(i) + "]"));
    wanted.insert(std::move(tool));
  }
  const storage::ReadScope scope = RuleScope(who);
  std::string cache_key = scope.all ? std::string("*") : "=" + scope.principal;
  for (const std::string& tool : wanted) cache_key += "\n" + tool;
  MNEMO_ASSIGN_OR_RETURN(const int64_t generation,
                         stores.entries->Generation(storage::Counter::kToolRules));
  {
    std::lock_guard lock(prompt_mu);
    if (generation != prompt_generation) {
      prompt_cache.clear();
      prompt_generation = generation;
    }
    if (auto it = prompt_cache.find(cache_key); it != prompt_cache.end()) return it->second;
  }
  rules::RuleStore store(*stores.entries, *clock);
  MNEMO_ASSIGN_OR_RETURN(std::vector<ToolRule> all, store.Pinnable(scope));
  if (!wanted.empty()) {
    // Unscoped rules apply to every tool.
    std::erase_if(all, [&](const ToolRule& r) {
      return r.tool_name != rules::kAnyTool && !wanted.contains(r.tool_name);
    });
  }
  rules::PromptSelection selection =
      rules::SelectForPrompt(std::move(all), config.rules.prompt_cap);
  if (selection.critical > rules::kCriticalWarnThreshold) {
    logger->Log(LogLevel::kWarn,
                std::to_string(selection.critical) + " critical tool rules are pinned (more than " +
                    std::to_string(rules::kCriticalWarnThreshold) + "); all are kept");
  }
  PromptRules out;
  out.rendered = rules::RenderPromptBlock(selection.rules, config.memory.acl_enabled);
  out.rules = std::move(selection.rules);
  {
    // Read after `generation`, so at least that new; a later write changes
    // the generation and retires it.
    std::lock_guard lock(prompt_mu);
    if (generation == prompt_generation) {
      if (prompt_cache.size() >= kPromptCacheEntries) prompt_cache.clear();
      prompt_cache.emplace(std::move(cache_key), out);
    }
  }
  return out;
}

Result<TurnResult> Engine::Impl::TurnComplete(const Principal& who, const Turn& turn) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  MNEMO_RETURN_IF_ERROR(ValidateTurn(turn));
  TurnResult result;
  const TimeMs now = clock->NowMs();
  // With a turn_id the rows are stored under a claim of (principal, session,
  // turn id) in the same transaction: of any number of calls with it,
  // threads or processes, one stores the turn and the others replay its
  // result.
  std::optional<storage::TurnClaim> claim;
  if (turn.turn_id) {
    claim = storage::TurnClaim{
        .key = {.owner = who.name, .session_id = turn.session_id, .turn_id = *turn.turn_id},
        .claimed_at = now};
  }
  std::optional<storage::TurnClaim> earlier;
  // Episodic rows first: the turn is kept even if rule capture fails later.
  std::vector<size_t> cleaner_failed;
  Status done = IndexTurnRows(who, turn, turn.timestamp.value_or(now), claim ? &*claim : nullptr,
                              earlier, result, cleaner_failed);
  if (earlier) {
    Result<TurnResult> replayed = ReplayTurn(std::move(*earlier));
    if (turn.sync) {
      archive->Flush();
      segment_worker->Flush();
    }
    return replayed;
  }
  if (done.ok()) done = CaptureTurn(who, turn, now, cleaner_failed, result);
  if (claim) {
    // Stored even after a failure part way, so a retry answers with what
    // was done instead of waiting; kNotFound: the failure came before the
    // claim.
    Result<bool> finished = stores.episodic->FinishTurnClaim(claim->key, EncodeTurnResult(result));
    if (!finished.ok() && finished.status().code() != StatusCode::kNotFound) {
      logger->Log(LogLevel::kWarn, "cannot store the result of turn " + claim->key.turn_id + ": " +
                                       finished.status().message());
    }
  }
  MNEMO_RETURN_IF_ERROR(done);
  return result;
}

Status Engine::Impl::CaptureTurn(const Principal& who, const Turn& turn, TimeMs now,
                                 const std::vector<size_t>& cleaner_failed, TurnResult& result) {
  if (config.learning.tool_memory_capture_enabled) {
    Turn captured = turn;
    // Rules are pinned into prompts: never a credential, even from an edict.
    if (config.security.secrets != "allow") {
      int redacted = 0;
      captured.user_message = text::RedactSecrets(turn.user_message, &redacted);
    }
    rules::RuleStore store(*stores.entries, *clock);
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<rules::RulePutOutcome> outcomes,
        rules::CaptureRules(store, who.name, captured, AliasesOf(config),
                            [&]() -> Result<std::vector<std::string>> { return KnownTools(who); }));
    EmbedRules(outcomes);
    for (rules::RulePutOutcome& o : outcomes) {
      if (o.created) {
        result.new_rules.push_back(std::move(o.rule));
      } else {
        result.refreshed_rules.push_back(std::move(o.rule));
      }
    }
    result.rules_captured = true;
  }
  return rules::RecordToolStats(*stores.entries, now, who.name, turn, cleaner_failed);
}

Result<std::vector<std::string>> Engine::Impl::KnownTools(const Principal& who) {
  std::set<std::string> names;
  MNEMO_RETURN_IF_ERROR(RefreshStoredTools());
  for (const context::ToolRegistry::Listed& l : tools->All()) names.insert(l.spec->name);
  const storage::ReadScope scope = RuleScope(who);
  const std::string stats_prefix = rules::StatsKey("");
  MNEMO_RETURN_IF_ERROR(
      stores.entries->ForEach(scope, rules::kStatsNamespace, [&](const Entry& e) -> Status {
        if (e.ns == rules::kStatsNamespace && e.key.starts_with(stats_prefix)) {
          names.insert(e.key.substr(stats_prefix.size()));
        }
        return Status::Ok();
      }));
  MNEMO_RETURN_IF_ERROR(
      stores.entries->ForEach(scope, rules::RuleNamespace(""), [&](const Entry& e) -> Status {
        if (std::optional<std::string> tool = rules::ToolOfNamespace(e.ns)) names.insert(*tool);
        return Status::Ok();
      }));
  names.erase("");
  names.erase(std::string(rules::kAnyTool));
  return std::vector<std::string>(names.begin(), names.end());
}

Status Engine::Impl::ValidateTurn(const Turn& turn) const {
  if (text::IsBlank(turn.session_id)) {
    return InvalidArgument("session_id must not be blank", "session_id");
  }
  MNEMO_RETURN_IF_ERROR(ValidateKey(turn.session_id, "session_id"));
  if (turn.turn_id && (turn.turn_id->empty() || turn.turn_id->size() > kMaxTurnIdBytes ||
                       !text::IsValidUtf8(*turn.turn_id))) {
    return InvalidArgument("turn_id must be 1 to 128 bytes of UTF-8 (it is " +
                               std::to_string(turn.turn_id->size()) + " bytes long)",
                           "turn_id");
  }
  for (size_t i = 0; i < turn.tool_calls.size(); ++i) {
    const std::string field = "tool_calls[" + std::to_string(i) + "].name";
    MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(turn.tool_calls[i].name, field));
    // "*" names the unscoped rules, never a tool that ran.
    if (tool == rules::kAnyTool) {
      return InvalidArgument(field + " \"*\" is reserved for unscoped rules: use the tool's name",
                             field);
    }
    MNEMO_RETURN_IF_ERROR(internal::CheckJsonLimits(
        turn.tool_calls[i].arguments_json, "tool_calls[" + std::to_string(i) + "].arguments",
        config.server.max_body_bytes));
    if (turn.tool_calls[i].duration_ms < 0) {
      return InvalidArgument(
          "tool_calls[" + std::to_string(i) + "].duration_ms must not be negative",
          "tool_calls[" + std::to_string(i) + "].duration_ms");
    }
  }
  for (const auto& [text, field] : {std::pair{&turn.user_message, "user_message"},
                                    std::pair{&turn.assistant_response, "assistant_response"}}) {
    if (!text::IsValidUtf8(*text)) {
      return InvalidArgument(std::string(field) + " is not valid UTF-8", field);
    }
  }
  return Status::Ok();
}

}  // namespace mnemo

// mnemo::Rules (mnemo/rules.h), tool-scoped rules (spec 30): the enabled
// check, validation, scopes, vectors and the pinned prompt block around the
// rules room; the rule capture and tool statistics of memory.turn_complete.
#include "mnemo/rules.h"

#include <algorithm>
#include <set>
#include <utility>

#include "core/audit_record.h"
#include "core/services/rules_options.h"
#include "core/validation.h"
#include "rules/capture.h"
#include "rules/prompt.h"
#include "rules/rule_store.h"
#include "rules/tool_rule.h"
#include "rules/tool_stats.h"
#include "text/secrets.h"
#include "text/strip.h"

namespace mnemo {
namespace {

// Distinct (principal, tools) prompt blocks kept per rules generation.
constexpr size_t kPromptCacheEntries = 64;

}  // namespace

internal::RulesOptions internal::RulesOptionsOf(const Config& config, EmbedFn embed) {
  RulesOptions options{.enabled = config.memory.enabled,
                       .acl_enabled = config.memory.acl_enabled,
                       .prompt_cap = config.rules.prompt_cap,
                       .capture_enabled = config.learning.tool_memory_capture_enabled,
                       .secrets = config.security.secrets,
                       .embed = std::move(embed)};
  // The built-in table extended by [[rules.aliases]] (or replaced by it).
  if (!config.rules.aliases_replace_builtin) options.aliases = rules::BuiltinAliases();
  for (const AliasConfig& a : config.rules.aliases) {
    options.aliases.push_back({a.words, a.tool_contains});
  }
  return options;
}

Rules::Rules(storage::EntryStore& entries, internal::AuditLog* audit, std::shared_ptr<Clock> clock,
             std::shared_ptr<Logger> logger, internal::RulesOptions options)
    : entries_(entries),
      audit_(audit),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::make_unique<const internal::RulesOptions>(std::move(options))) {}

Rules::~Rules() = default;

rules::RuleStore Rules::Store() { return rules::RuleStore(entries_, *clock_); }

bool Rules::RedactsEdicts() const { return options_->secrets != "allow"; }

storage::ReadScope Rules::Scope(const Principal& who) const {
  // Rules are pinned into one principal's prompts: under ACL even an admin
  // sees only its own (and public) rules here.
  return {.all = !options_->acl_enabled, .principal = who.name};
}

Result<std::string> Rules::CheckToolName(std::string_view name, std::string_view field) {
  std::string tool = rules::NormalizeToolName(name);
  MNEMO_RETURN_IF_ERROR(rules::ValidateToolName(tool, field));
  return tool;
}

void Rules::Embed(const std::vector<rules::RulePutOutcome>& outcomes) {
  std::vector<storage::Label> labels;
  std::vector<std::string> texts;
  for (const rules::RulePutOutcome& o : outcomes) {
    if (!o.text_changed) continue;
    labels.push_back(o.label);
    texts.push_back(o.rule.rule);
  }
  if (options_->embed) options_->embed(labels, texts);
}

Result<ToolRule> Rules::Put(const Principal& who, const ToolRulePut& req) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rule_put");
  return audit.End([&]() -> Result<ToolRule> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(req.tool_name, "tool_name"));
    MNEMO_RETURN_IF_ERROR(ValidateRuleText(req.rule));
    MNEMO_RETURN_IF_ERROR(CheckSecret(options_->secrets, req.rule, "rule"));
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
    rules::RuleStore store = Store();
    MNEMO_ASSIGN_OR_RETURN(rules::RulePutOutcome outcome, store.Put(who.name, put));
    Embed({outcome});
    return outcome.rule;
  }());
}

Result<std::optional<ToolRule>> Rules::Get(const Principal& who, std::string_view tool_name,
                                           std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rule_get");
  return audit.End([&]() -> Result<std::optional<ToolRule>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(tool_name, "tool_name"));
    MNEMO_RETURN_IF_ERROR(ValidateRuleId(id));
    return Store().Get(Scope(who), tool, std::string(id));
  }());
}

Result<std::vector<ToolRule>> Rules::List(const Principal& who,
                                          std::optional<std::string_view> tool_name) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rule_list");
  return audit.End([&]() -> Result<std::vector<ToolRule>> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    rules::RuleStore store = Store();
    if (!tool_name) return store.ListAll(Scope(who));
    MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(*tool_name, "tool_name"));
    return store.List(Scope(who), tool);
  }());
}

Result<bool> Rules::Delete(const Principal& who, std::string_view tool_name, std::string_view id) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rule_delete");
  return audit.End([&]() -> Result<bool> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    MNEMO_ASSIGN_OR_RETURN(std::string tool, CheckToolName(tool_name, "tool_name"));
    MNEMO_RETURN_IF_ERROR(ValidateRuleId(id));
    return Store().Delete(who.name, /*any_owner=*/!options_->acl_enabled, tool, std::string(id));
  }());
}

Result<int64_t> Rules::Count(const Principal& who, std::optional<std::string_view> tool_name) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rule_count");
  return audit.End([&]() -> Result<int64_t> {
    MNEMO_ASSIGN_OR_RETURN(std::vector<ToolRule> listed, List(who, tool_name));
    return static_cast<int64_t>(listed.size());
  }());
}

Result<PromptRules> Rules::ForPrompt(const Principal& who, const std::vector<std::string>& tools) {
  internal::AuditRecord audit(audit_, who, "memory.tool_rules_for_prompt");
  return audit.End([&]() -> Result<PromptRules> {
    MNEMO_RETURN_IF_ERROR(CheckMemoryEnabled(options_->enabled));
    std::set<std::string, std::less<>> wanted;
    for (size_t i = 0; i < tools.size(); ++i) {
      MNEMO_ASSIGN_OR_RETURN(std::string tool,
                             CheckToolName(tools[i], "tools[" + std::to_string(i) + "]"));
      wanted.insert(std::move(tool));
    }
    const storage::ReadScope scope = Scope(who);
    std::string cache_key = scope.all ? std::string("*") : "=" + scope.principal;
    for (const std::string& tool : wanted) cache_key += "\n" + tool;
    MNEMO_ASSIGN_OR_RETURN(const int64_t generation,
                           entries_.Generation(storage::Counter::kToolRules));
    {
      std::lock_guard lock(prompt_mu_);
      if (generation != prompt_generation_) {
        prompt_cache_.clear();
        prompt_generation_ = generation;
      }
      if (auto it = prompt_cache_.find(cache_key); it != prompt_cache_.end()) return it->second;
    }
    MNEMO_ASSIGN_OR_RETURN(std::vector<ToolRule> all, Store().Pinnable(scope));
    if (!wanted.empty()) {
      // Unscoped rules apply to every tool.
      std::erase_if(all, [&](const ToolRule& r) {
        return r.tool_name != rules::kAnyTool && !wanted.contains(r.tool_name);
      });
    }
    rules::PromptSelection selection = rules::SelectForPrompt(std::move(all), options_->prompt_cap);
    if (selection.critical > rules::kCriticalWarnThreshold) {
      logger_->Log(LogLevel::kWarn, std::to_string(selection.critical) +
                                        " critical tool rules are pinned (more than " +
                                        std::to_string(rules::kCriticalWarnThreshold) +
                                        "); all are kept");
    }
    PromptRules out;
    out.rendered = rules::RenderPromptBlock(selection.rules, options_->acl_enabled);
    out.rules = std::move(selection.rules);
    {
      // Read after `generation`, so at least that new; a later write changes
      // the generation and retires it.
      std::lock_guard lock(prompt_mu_);
      if (generation == prompt_generation_) {
        if (prompt_cache_.size() >= kPromptCacheEntries) prompt_cache_.clear();
        prompt_cache_.emplace(std::move(cache_key), out);
      }
    }
    return out;
  }());
}

Status Rules::Capture(const Principal& who, const Turn& turn, std::string_view user_message,
                      bool redacted, TimeMs now, std::span<const size_t> cleaner_failed,
                      const std::function<Result<std::vector<std::string>>()>& registered,
                      TurnResult& result) {
  if (options_->capture_enabled) {
    // Rules are pinned into prompts: never a credential, even from an edict.
    std::string redacted_here;
    if (RedactsEdicts() && !redacted) {
      int count = 0;
      redacted_here = text::RedactSecrets(user_message, &count);
      user_message = redacted_here;
    }
    rules::RuleStore store = Store();
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<rules::RulePutOutcome> outcomes,
        rules::CaptureRules(store, who.name, turn, user_message, options_->aliases,
                            [&]() -> Result<std::vector<std::string>> {
                              MNEMO_ASSIGN_OR_RETURN(std::vector<std::string> names, registered());
                              return KnownTools(who, std::move(names));
                            }));
    Embed(outcomes);
    for (rules::RulePutOutcome& o : outcomes) {
      if (o.created) {
        result.new_rules.push_back(std::move(o.rule));
      } else {
        result.refreshed_rules.push_back(std::move(o.rule));
      }
    }
    result.rules_captured = true;
  }
  return rules::RecordToolStats(entries_, now, who.name, turn, cleaner_failed);
}

Result<std::vector<std::string>> Rules::KnownTools(const Principal& who,
                                                   std::vector<std::string> registered) {
  std::set<std::string> names(std::make_move_iterator(registered.begin()),
                              std::make_move_iterator(registered.end()));
  const storage::ReadScope scope = Scope(who);
  const std::string stats_prefix = rules::StatsKey("");
  MNEMO_RETURN_IF_ERROR(
      entries_.ForEach(scope, rules::kStatsNamespace, [&](const Entry& e) -> Status {
        if (e.ns == rules::kStatsNamespace && e.key.starts_with(stats_prefix)) {
          names.insert(e.key.substr(stats_prefix.size()));
        }
        return Status::Ok();
      }));
  MNEMO_RETURN_IF_ERROR(
      entries_.ForEach(scope, rules::RuleNamespace(""), [&](const Entry& e) -> Status {
        if (std::optional<std::string> tool = rules::ToolOfNamespace(e.ns)) names.insert(*tool);
        return Status::Ok();
      }));
  names.erase("");
  names.erase(std::string(rules::kAnyTool));
  return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace mnemo

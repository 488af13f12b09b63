// The rules service (spec 30): tool-scoped rules over the entry store. Put,
// get, list and delete with their validation, the pinned prompt block with
// its cache, and the rule capture and tool statistics of
// memory.turn_complete. It owns its state (the prompt cache) and takes only
// what it needs: the entry store, the clock, the logger, its options and a
// hook that embeds rule texts that changed.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "rules/capture.h"
#include "rules/rule_store.h"
#include "rules/tool_match.h"
#include "storage/entry_store.h"

namespace mnemo {

// Built by RulesOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct RulesOptions {
  bool acl_enabled{};                 // memory.acl_enabled
  int64_t prompt_cap{};               // rules.prompt_cap: high rules pinned per block
  std::vector<rules::Alias> aliases;  // the built-in table with [[rules.aliases]]
  bool capture_enabled{};             // learning.tool_memory_capture_enabled
  std::string secrets;                // security.secrets
};

RulesOptions RulesOptionsOf(const Config& config);

// Embeds `texts` and stores their vectors under `labels`; a failure is not
// fatal (the rules stay without a vector, as entries do).
using EmbedFn =
    std::function<void(std::span<const storage::Label> labels, std::span<const std::string> texts)>;

class RulesService {
 public:
  RulesService(storage::EntryStore& entries, std::shared_ptr<Clock> clock,
               std::shared_ptr<Logger> logger, RulesOptions options, EmbedFn embed);

  // Rules::Put and its siblings (mnemo/rules.h says what each does).
  Result<ToolRule> Put(const Principal& who, const ToolRulePut& req);
  Result<std::optional<ToolRule>> Get(const Principal& who, std::string_view tool,
                                      std::string_view id);
  Result<std::vector<ToolRule>> List(const Principal& who, std::optional<std::string_view> tool);
  Result<bool> Delete(const Principal& who, std::string_view tool, std::string_view id);
  Result<PromptRules> ForPrompt(const Principal& who, const std::vector<std::string>& tools);

  // memory.turn_complete's rules part into `result`: the turn's edicts and
  // repeated failures become rules (unless capture is switched off), then
  // every call counts in its tool's statistics. Edicts are read from
  // `redacted_user`, the turn's user message with its secrets redacted by
  // the caller (text::RedactSecrets), unless secrets are allowed; null:
  // redacted here when needed. `registered` lists the tools of the
  // registry, for an edict that names none of the turn's (KnownTools).
  Status Capture(const Principal& who, const Turn& turn, const std::string* redacted_user,
                 TimeMs now, std::span<const size_t> cleaner_failed,
                 const std::function<Result<std::vector<std::string>>()>& registered,
                 TurnResult& result);
  // Whether edicts are read from the redacted user message.
  bool RedactsEdicts() const { return options_.secrets != "allow"; }
  // Every tool the engine knows for `who`'s edicts (spec 30, capture): the
  // `registered` ones, tools with statistics, tools with rules; by name.
  Result<std::vector<std::string>> KnownTools(const Principal& who,
                                              std::vector<std::string> registered);

  // Whose rules `who` reads: its own (and public ones) under ACL, all without.
  storage::ReadScope Scope(const Principal& who) const;
  // The normalised tool name, or kInvalidArgument naming `field`.
  static Result<std::string> CheckToolName(std::string_view name, std::string_view field);

 private:
  void Embed(const std::vector<rules::RulePutOutcome>& outcomes);
  rules::RuleStore Store() { return rules::RuleStore(entries_, *clock_); }

  storage::EntryStore& entries_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const RulesOptions options_;
  const EmbedFn embed_;

  // Pinned prompt blocks by (scope, tools), valid for one generation of the
  // tool rules (EntryStore::Generation): a session start costs one counter
  // read while the rules are unchanged.
  std::mutex prompt_mu_;
  int64_t prompt_generation_ = -1;
  std::map<std::string, PromptRules> prompt_cache_;
};

}  // namespace mnemo

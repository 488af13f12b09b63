// mnemo::Rules — tool-scoped rules (spec 30). Rules are the caller's own
// under ACL.
//
// The rules service itself: made by Engine::Open over the engine's entry
// store and handed out by Engine::rules(); it lives as long as its Engine.
// Every call answers kDisabled while memory.enabled = false, then checks its
// request (include/mnemo/limits.h) and does the work.
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
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage, src/rules); no caller can make one.
// Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace storage {
class EntryStore;
struct ReadScope;
}  // namespace storage
namespace rules {
class RuleStore;
struct RulePutOutcome;
}  // namespace rules
namespace internal {
class AuditLog;       // src/core/audit_log.h: null when [security.audit] is off
struct RulesOptions;  // src/core/services/rules_options.h
}  // namespace internal
#pragma GCC visibility pop
class Archivist;

class Rules {
 public:
  // Made by Engine::Open: the entry store and the options are the engine's.
  [[gnu::visibility("hidden")]] Rules(storage::EntryStore& entries, internal::AuditLog* audit,
                                      std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                                      internal::RulesOptions options);
  ~Rules();
  Rules(const Rules&) = delete;
  Rules& operator=(const Rules&) = delete;

  // Upsert by id; without an id an equal rule (same tool, same text up to
  // case and whitespace) is refreshed instead of duplicated.
  Result<ToolRule> Put(const Principal& who, const ToolRulePut& req);
  // nullopt when there is no such rule (or the caller may not read it).
  Result<std::optional<ToolRule>> Get(const Principal& who, std::string_view tool,
                                      std::string_view id);
  // One tool's rules in list order (priority, then most recently updated);
  // every tool's (grouped by tool) when `tool` is absent.
  Result<std::vector<ToolRule>> List(const Principal& who, std::optional<std::string_view> tool);
  Result<bool> Delete(const Principal& who, std::string_view tool, std::string_view id);
  // How many rules List(who, tool) gives: one tool's, every tool's when
  // `tool` is absent.
  Result<int64_t> Count(const Principal& who, std::optional<std::string_view> tool);
  // The pinned block for the system prompt: every critical rule and the most
  // recent `rules.prompt_cap` high rules of `tools` (empty: every tool), plus
  // the unscoped ones. Byte-stable.
  Result<PromptRules> ForPrompt(const Principal& who, const std::vector<std::string>& tools = {});

 private:
  // memory.turn_complete (Archivist) captures rules and counts tool
  // calls through Capture, and checks tool names with CheckToolName.
  friend class Archivist;

  // memory.turn_complete's rules part into `result`: the turn's edicts and
  // repeated failures become rules (unless capture is switched off), then
  // every call counts in its tool's statistics. Edicts are read from
  // `user_message`, the turn's user message (the turn's own may have moved
  // into its stored row), with its secrets redacted unless secrets are
  // allowed: `redacted` says the caller redacted it already
  // (text::RedactSecrets), else it is redacted here when needed.
  // `registered` lists the tools of the registry, for an edict that names
  // none of the turn's (KnownTools).
  Status Capture(const Principal& who, const Turn& turn, std::string_view user_message,
                 bool redacted, TimeMs now, std::span<const size_t> cleaner_failed,
                 const std::function<Result<std::vector<std::string>>()>& registered,
                 TurnResult& result);
  // Whether edicts are read from the redacted user message.
  bool RedactsEdicts() const;
  // Every tool the engine knows for `who`'s edicts (spec 30, capture): the
  // `registered` ones, tools with statistics, tools with rules; by name.
  Result<std::vector<std::string>> KnownTools(const Principal& who,
                                              std::vector<std::string> registered);
  // Whose rules `who` reads: its own (and public ones) under ACL, all without.
  storage::ReadScope Scope(const Principal& who) const;
  // The normalised tool name, or kInvalidArgument naming `field`.
  static Result<std::string> CheckToolName(std::string_view name, std::string_view field);

  [[gnu::visibility("hidden")]] void Embed(const std::vector<rules::RulePutOutcome>& outcomes);
  rules::RuleStore Store();

  storage::EntryStore& entries_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::unique_ptr<const internal::RulesOptions> options_;

  // Pinned prompt blocks by (scope, tools), valid for one generation of the
  // tool rules (EntryStore::Generation): a session start costs one counter
  // read while the rules are unchanged.
  std::mutex prompt_mu_;
  int64_t prompt_generation_ = -1;
  std::map<std::string, PromptRules> prompt_cache_;
};

}  // namespace mnemo

#pragma GCC visibility pop

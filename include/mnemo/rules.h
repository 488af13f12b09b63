// mnemo::Rules — tool-scoped rules (spec 30). Rules are the caller's own
// under ACL.
//
// Made by Engine::Open and handed out by Engine::rules(); it lives as long
// as its Engine. Every call checks its request (include/mnemo/limits.h) and
// answers kDisabled while memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

class Rules {
 public:
  // Made by Engine::Open only.
  explicit Rules(const internal::Services& services) : services_(services) {}
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
  // The pinned block for the system prompt: every critical rule and the most
  // recent `rules.prompt_cap` high rules of `tools` (empty: every tool), plus
  // the unscoped ones. Byte-stable.
  Result<PromptRules> ForPrompt(const Principal& who, const std::vector<std::string>& tools = {});

 private:
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop

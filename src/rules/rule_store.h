// The rule store of spec 30 over a storage::EntryStore: rules are entries in
// `tool-{tool}` under `rule/{id}` (tool_rule.h gives the mapping). Every
// write is one EntryStore::Mutate of the rule's (owner, namespace) group, so the
// no-duplicate test and the upsert see a consistent view and concurrent puts
// (threads or processes) never regress `created_at` or add a twin.
//
// Inputs are validated by the caller (the engine); the store trusts them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/entry_store.h"

namespace mnemo::rules {

struct RulePutOutcome {
  ToolRule rule;              // as stored
  bool created = false;       // a new rule (false: updated by id, or refreshed)
  bool refreshed = false;     // an equal rule existed and was refreshed instead
  storage::Label label = 0;   // the entry's label (for its vector)
  bool text_changed = false;  // the entry's text changed: its vector needs recomputing
};

class RuleStore {
 public:
  RuleStore(storage::EntryStore& entries, const Clock& clock) : entries_(entries), clock_(clock) {}

  // Upsert by id when `req.id` is set; otherwise a rule of the same tool and
  // NormalizedBody is refreshed (priority the higher of the two, tags merged)
  // or a new rule is created. `req.tool_name` must be normalised.
  Result<RulePutOutcome> Put(const std::string& owner, const ToolRulePut& req);

  // The one repeated-failure rule of `tool` (tag "repeated-failure", source
  // post_turn) gets `body`, or is created with it (priority normal).
  Result<RulePutOutcome> PutFailureRule(const std::string& owner, const std::string& tool,
                                        const std::string& body);

  // The rule (tool, id) visible in `scope`, the caller's own first.
  Result<std::optional<ToolRule>> Get(const storage::ReadScope& scope, const std::string& tool,
                                      const std::string& id);

  // Rules of one tool visible in `scope`, in list order (priority
  // descending, updated_at descending, id).
  Result<std::vector<ToolRule>> List(const storage::ReadScope& scope, const std::string& tool);

  // Rules of every tool visible in `scope`, ordered by tool then list order;
  // only `min_priority` and above.
  Result<std::vector<ToolRule>> ListAll(const storage::ReadScope& scope,
                                        RulePriority min_priority = RulePriority::kNormal);

  // The critical and high rules of every tool visible in `scope`, in no
  // particular order (SelectForPrompt orders them): the prompt's input.
  Result<std::vector<ToolRule>> Pinnable(const storage::ReadScope& scope);

  // Deletes the rule (tool, id) of `owner`; with `any_owner` (admins) the
  // one Get would return. Returns whether it existed.
  Result<bool> Delete(const std::string& owner, bool any_owner, const std::string& tool,
                      const std::string& id);

 private:
  storage::EntryStore& entries_;
  const Clock& clock_;
};

// List order: priority descending, updated_at descending, id ascending.
void SortForList(std::vector<ToolRule>& rules);

}  // namespace mnemo::rules

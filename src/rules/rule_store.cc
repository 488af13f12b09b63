#include "rules/rule_store.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/uuid.h"
#include "rules/tool_rule.h"

namespace mnemo::rules {
namespace {

constexpr std::string_view kFailureTag = "repeated-failure";

// The rules among a group's entries (anything else in a rule namespace is
// left alone).
std::vector<ToolRule> RulesOf(const std::vector<Entry>& entries) {
  std::vector<ToolRule> rules;
  for (const Entry& e : entries) {
    if (std::optional<ToolRule> r = RuleFromEntry(e)) rules.push_back(std::move(*r));
  }
  return rules;
}

void MergeTags(std::vector<std::string>& into, const std::vector<std::string>& more) {
  for (const std::string& t : more) {
    if (std::find(into.begin(), into.end(), t) == into.end()) into.push_back(t);
  }
}

bool HasTag(const ToolRule& r, std::string_view tag) {
  return std::find(r.tags.begin(), r.tags.end(), tag) != r.tags.end();
}

// Runs one read-modify-write of (owner, tool): `decide` sees the group's
// rules (narrowed by `narrow`'s key or fingerprint) and returns the rule to
// write (created or changed) and whether it refreshed an equal one.
template <typename Decide>
Result<RulePutOutcome> MutateRule(storage::EntryStore& entries, TimeMs now,
                                  const std::string& owner, const std::string& tool,
                                  storage::EntryGroup narrow, Decide decide) {
  ToolRule written;
  bool refreshed = false;
  narrow.owner = owner;
  narrow.ns = RuleNamespace(tool);
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<storage::UpsertResult> results,
      entries.Mutate(
          narrow,
          [&](const std::vector<Entry>& current) -> Result<std::vector<storage::EntryWrite>> {
            written = decide(RulesOf(current), &refreshed);
            written.owner = owner;
            written.tool_name = tool;
            return std::vector<storage::EntryWrite>{RuleToWrite(written, now)};
          }));
  if (results.size() != 1) return Internal("rule write: expected one result");
  std::optional<ToolRule> stored = RuleFromEntry(results[0].entry);
  if (!stored) return Internal("rule write: the stored entry is not a rule");
  return RulePutOutcome{.rule = std::move(*stored),
                        .created = results[0].created,
                        .refreshed = refreshed,
                        .label = results[0].label,
                        .text_changed = results[0].text_changed};
}

}  // namespace

void SortForList(std::vector<ToolRule>& rules) {
  std::sort(rules.begin(), rules.end(), [](const ToolRule& a, const ToolRule& b) {
    return std::make_tuple(static_cast<int>(b.priority), b.updated_at, std::cref(a.id),
                           std::cref(a.owner)) < std::make_tuple(static_cast<int>(a.priority),
                                                                 a.updated_at, std::cref(b.id),
                                                                 std::cref(b.owner));
  });
}

Result<RulePutOutcome> RuleStore::Put(const std::string& owner, const ToolRulePut& req) {
  const TimeMs now = clock_.NowMs();
  // An id reads that rule alone; otherwise only rules that may share the
  // normalised body (same fingerprint, or written by another path).
  storage::EntryGroup narrow;
  if (req.id) {
    narrow.key = RuleKey(*req.id);
  } else {
    narrow.fingerprint = BodyFingerprint(req.rule);
  }
  return MutateRule(entries_, now, owner, req.tool_name, std::move(narrow),
                    [&](const std::vector<ToolRule>& existing, bool* refreshed) -> ToolRule {
                      if (req.id) {
                        for (const ToolRule& r : existing) {
                          if (r.id != *req.id) continue;
                          ToolRule updated = r;  // created_at survives (the entries keeps it too)
                          updated.rule = req.rule;
                          if (req.priority) updated.priority = *req.priority;
                          if (req.source) updated.source = *req.source;
                          updated.tags = req.tags;
                          return updated;
                        }
                      } else {
                        const std::string body = NormalizedBody(req.rule);
                        for (const ToolRule& r : existing) {
                          if (NormalizedBody(r.rule) != body) continue;
                          ToolRule updated = r;
                          updated.priority =
                              std::max(r.priority, req.priority.value_or(RulePriority::kNormal));
                          MergeTags(updated.tags, req.tags);
                          *refreshed = true;
                          return updated;
                        }
                      }
                      return ToolRule{.id = req.id.value_or(mnemo::internal::NewUuidV4()),
                                      .rule = req.rule,
                                      .priority = req.priority.value_or(RulePriority::kNormal),
                                      .source = req.source.value_or(RuleSource::kProgrammatic),
                                      .tags = req.tags};
                    });
}

Result<RulePutOutcome> RuleStore::PutFailureRule(const std::string& owner, const std::string& tool,
                                                 const std::string& body) {
  const TimeMs now = clock_.NowMs();
  return MutateRule(entries_, now, owner, tool, storage::EntryGroup{},
                    [&](const std::vector<ToolRule>& existing, bool* refreshed) -> ToolRule {
                      for (const ToolRule& r : existing) {
                        if (r.source != RuleSource::kPostTurn || !HasTag(r, kFailureTag)) continue;
                        ToolRule updated = r;
                        updated.rule = body;
                        *refreshed = true;
                        return updated;
                      }
                      return ToolRule{.id = mnemo::internal::NewUuidV4(),
                                      .rule = body,
                                      .priority = RulePriority::kNormal,
                                      .source = RuleSource::kPostTurn,
                                      .tags = {std::string(kFailureTag)}};
                    });
}

Result<std::optional<ToolRule>> RuleStore::Get(const storage::ReadScope& scope,
                                               const std::string& tool, const std::string& id) {
  MNEMO_ASSIGN_OR_RETURN(const RuleAddress at, RuleAddressOf(tool, id));
  MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> e, entries_.Resolve(at.ns, at.key, scope));
  if (!e) return std::optional<ToolRule>();
  return RuleFromEntry(*e);
}

Result<std::vector<ToolRule>> RuleStore::List(const storage::ReadScope& scope,
                                              const std::string& tool) {
  std::vector<ToolRule> rules;
  storage::EntryFilter filter{.ns = RuleNamespace(tool), .include_archived = true, .scope = scope};
  constexpr int kPage = 1000;
  for (int64_t offset = 0;; offset += kPage) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<Entry> page, entries_.List(filter, kPage, offset));
    for (const Entry& e : page) {
      if (std::optional<ToolRule> r = RuleFromEntry(e)) rules.push_back(std::move(*r));
    }
    if (page.size() < static_cast<size_t>(kPage)) break;
  }
  SortForList(rules);
  return rules;
}

Result<std::vector<ToolRule>> RuleStore::ListAll(const storage::ReadScope& scope,
                                                 RulePriority min_priority) {
  std::vector<ToolRule> rules;
  MNEMO_RETURN_IF_ERROR(entries_.ForEach(scope, "tool-", [&](const Entry& e) -> Status {
    std::optional<ToolRule> r = RuleFromEntry(e);
    if (r && r->priority >= min_priority) rules.push_back(std::move(*r));
    return Status::Ok();
  }));
  std::stable_sort(rules.begin(), rules.end(),
                   [](const ToolRule& a, const ToolRule& b) { return a.tool_name < b.tool_name; });
  // List order within each tool.
  auto begin = rules.begin();
  while (begin != rules.end()) {
    auto end = std::find_if(begin, rules.end(),
                            [&](const ToolRule& r) { return r.tool_name != begin->tool_name; });
    std::vector<ToolRule> group(std::make_move_iterator(begin), std::make_move_iterator(end));
    SortForList(group);
    std::move(group.begin(), group.end(), begin);
    begin = end;
  }
  return rules;
}

Result<std::vector<ToolRule>> RuleStore::Pinnable(const storage::ReadScope& scope) {
  std::vector<ToolRule> rules;
  const std::string_view critical = PriorityName(RulePriority::kCritical);
  const std::string_view high = PriorityName(RulePriority::kHigh);
  MNEMO_RETURN_IF_ERROR(entries_.ForEach(scope, "tool-", [&](const Entry& e) -> Status {
    // The category is the priority: skip normal rules before converting.
    if (e.category != critical && e.category != high) return Status::Ok();
    if (std::optional<ToolRule> r = RuleFromEntry(e)) rules.push_back(std::move(*r));
    return Status::Ok();
  }));
  return rules;
}

Result<bool> RuleStore::Delete(const std::string& owner, bool any_owner, const std::string& tool,
                               const std::string& id) {
  MNEMO_ASSIGN_OR_RETURN(const RuleAddress at, RuleAddressOf(tool, id));
  std::optional<Entry> e;
  if (any_owner) {
    MNEMO_ASSIGN_OR_RETURN(
        e, entries_.Resolve(at.ns, at.key, storage::ReadScope{.all = true, .principal = owner}));
  } else {
    MNEMO_ASSIGN_OR_RETURN(e, entries_.FindExact(owner, at.ns, at.key));
  }
  if (!e) return false;
  return entries_.Delete(e->id);
}

}  // namespace mnemo::rules

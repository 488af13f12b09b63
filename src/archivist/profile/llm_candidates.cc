#include "archivist/profile/llm_candidates.h"

#include <algorithm>
#include <string>
#include <utility>

#include "archivist/profile/clause_reader.h"
#include "archivist/profile/slots.h"

namespace mnemo::archivist {
namespace {

constexpr std::string_view kEventTypes[] = {kEventDecision, kEventReminder, kEventCommitment,
                                            kEventPreference, kEventFact};

bool Within(std::string_view folded_haystack, std::string_view needle) {
  const std::string n = FoldForMatch(clauses::Normalise(needle));
  return !n.empty() && folded_haystack.find(n) != std::string_view::npos;
}

std::vector<clauses::Clause> ClausesOf(std::string_view sentence) {
  return clauses::SplitClauses(clauses::Normalise(sentence));
}

// Whether the clause holding `value` (every clause when none holds it)
// speaks for the user in the present.
bool UsersOwn(std::string_view sentence, std::string_view value) {
  const std::vector<clauses::Clause> all = ClausesOf(sentence);
  bool held = false;
  for (const clauses::Clause& c : all) {
    if (!Within(FoldForMatch(c.text), value)) continue;
    held = true;
    if (!ExtractSlots(c.text).own) return false;
  }
  if (held) return true;
  return !all.empty() && std::all_of(all.begin(), all.end(), [](const clauses::Clause& c) {
    return ExtractSlots(c.text).own;
  });
}

// An event's sentence: the user is a subject of it, and no clause is in the
// past or a condition.
bool UsersEvent(std::string_view sentence) {
  bool user = false;
  clauses::Subject previous = clauses::Subject::kNone;
  for (const clauses::Clause& c : ClausesOf(sentence)) {
    if (clauses::IsPast(c) || clauses::Has(c, {"if", "unless"}) ||
        clauses::HasText(c, {"如果", "要是", "假如"})) {
      return false;
    }
    previous = clauses::SubjectOf(c, clauses::SkipFillers(c), previous);
    user = user || previous == clauses::Subject::kUser;
  }
  return user;
}

std::string LowerAscii(std::string_view s) { return clauses::Lower(clauses::Normalise(s)); }

}  // namespace

LlmFindings ValidateCandidates(const llm::Candidates& candidates, std::string_view user_message,
                               const std::vector<Facet>& found_facets,
                               const std::vector<Event>& found_events,
                               std::string_view segment_id) {
  LlmFindings out;
  const std::string message = FoldForMatch(clauses::Normalise(user_message));
  auto taken = [&](std::string_view type, std::string_view key) {
    auto same = [&](const Facet& f) { return f.facet_type == type && f.key == key; };
    return std::any_of(found_facets.begin(), found_facets.end(), same) ||
           std::any_of(out.facets.begin(), out.facets.end(), same);
  };
  for (const llm::SlotCandidate& c : candidates.slots) {
    if (!Within(message, c.sentence) || c.value.empty()) continue;
    const bool preference = c.slot == kFacetPreference;
    if (!preference && !IsSlotKey(c.slot)) continue;
    if (preference && (c.about.empty() || !Within(FoldForMatch(c.sentence), c.about))) continue;
    if (!UsersOwn(c.sentence, c.value)) continue;
    const std::string type(preference ? kFacetPreference : kFacetContext);
    const std::string key = preference ? LowerAscii(c.about) : c.slot;
    if (taken(type, key)) continue;
    Facet f{.facet_type = type,
            .key = key,
            .value = clauses::Normalise(c.value),
            .confidence = kLlmConfidence,
            .evidence_count = 1,
            .evidence = clauses::Normalise(c.sentence)};
    if (!segment_id.empty()) f.segment_ids.emplace_back(segment_id);
    out.facets.push_back(std::move(f));
  }
  for (const llm::EventCandidate& c : candidates.events) {
    if (!Within(message, c.sentence)) continue;
    if (std::find(std::begin(kEventTypes), std::end(kEventTypes), c.type) ==
        std::end(kEventTypes)) {
      continue;
    }
    const std::string folded = FoldForMatch(clauses::Normalise(c.sentence));
    auto same = [&](const Event& e) {
      const std::string other = FoldForMatch(e.text);
      return other.find(folded) != std::string::npos || folded.find(other) != std::string::npos;
    };
    if (std::any_of(found_events.begin(), found_events.end(), same) ||
        std::any_of(out.events.begin(), out.events.end(), same)) {
      continue;
    }
    if (!UsersEvent(c.sentence) || !SaysSomething(folded)) {
      continue;
    }
    out.events.push_back(
        {.type = c.type, .text = clauses::Normalise(c.sentence), .confidence = kLlmConfidence});
  }
  return out;
}

}  // namespace mnemo::archivist

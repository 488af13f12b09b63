// What an LLM's slot and event candidates (llm/candidates.h) may add to the
// facets and events of one user message (issue 44 §4). A candidate is
// validated against the same slot table (slots.h) and the same reading of
// who a sentence is about and when (clause_reader.h) as the deterministic
// path, which stays the default: a candidate only adds what that path did
// not find in the message. Pure functions; no storage. Thread-safe.
#pragma once

#include <string_view>
#include <vector>

#include "archivist/events.h"
#include "archivist/profile/profile.h"
#include "llm/candidates.h"

namespace mnemo::archivist {

// Confidence of what an LLM extracted (spec 40 §4).
inline constexpr double kLlmConfidence = 0.9;

struct LlmFindings {
  std::vector<Facet> facets;
  std::vector<Event> events;
};

// The candidates whose sentence is in `user_message` (compared case-blind,
// white space folded), kept when:
//  - a slot's name is a slot key (kSlotKeys), or "preference" with an
//    `about` that the sentence contains; its value is not empty;
//  - an event's type is one of events.h's and its sentence says something
//    (not small talk or a reaction);
//  - the sentence is the user's own, present statement: for a slot, the
//    clause that holds its value (every clause when the value is not
//    written as such, "I'm Dutch" -> origin Netherlands) speaks for the
//    user (ExtractSlots' `own`); for an event, some clause has the user as
//    its subject and none is in the past or a condition ("if", 如果);
//  - the deterministic path found no facet of the same (type, key)
//    (`found_facets`) or no event in the same sentence (`found_events`).
// Facets are kFacetContext (slots) or kFacetPreference keyed by the
// lower-cased `about`, with kLlmConfidence, the sentence as evidence and
// `segment_id` (none when empty); events get kLlmConfidence.
LlmFindings ValidateCandidates(const llm::Candidates& candidates, std::string_view user_message,
                               const std::vector<Facet>& found_facets,
                               const std::vector<Event>& found_events, std::string_view segment_id);

}  // namespace mnemo::archivist

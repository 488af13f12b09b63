// Profile facets (spec 40, segment close step 5): what the user prefers and
// who they are, distilled from preference and fact events, merged on
// (facet_type, key) as evidence accumulates, and rendered as Markdown for
// `memory.profile_render`. Pure functions; no storage. Thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "archivist/events.h"

namespace mnemo::archivist {

// Facet types made from events.
inline constexpr std::string_view kFacetPreference = "preference";  // from preference events
inline constexpr std::string_view kFacetContext = "context";        // from fact events

struct Facet {
  std::string facet_type;
  std::string key;    // the slot (FacetFromEvent)
  std::string value;  // the stated thing, without the sentence around it
  double confidence = 0;
  int64_t evidence_count = 0;
  std::vector<std::string> segment_ids;  // segments that gave evidence, first seen first
  std::string evidence;                  // the sentence it was stated in
};

// The facet one event gives (spec 40 §5), a slot and its value, read by the
// graph's own extractor (context/graph.h) so that profile and graph see the
// same statement the same way: the first triple of the sentence whose
// subject is the user maps to a slot: a slot's own predicates
//   (slot_graph.h, kSlotPredicates: lives_in -> location, works_at ->
//   employer, boss -> manager …), is -> role, age, email, language;
//   has <pet kind> ("I have a dog named Rex") -> pet/<kind>: Rex;
//   <kind>'s name (my dog's name is Rex) -> pet/<kind>: Rex;
//   likes / prefers Y -> preference Y: Y; dislikes Y -> preference Y:
//   "dislikes Y"; favorite_X / favourite_X (my favorite X is Y) ->
//   preference X: Y; any other predicate -> its words ("my_team" -> "my team").
// The value is the triple's object: the graph's extractor drops leading
// fillers and topic markers, clause breaks, articles and trailing particles.
// A sentence without such a triple keeps a readable key of the head words
// of the clause that holds the event's pattern (surface words, lower-cased;
// at most 4 words, or 8 characters of a script without spaces) and that
// clause as its value. Preference events -> kFacetPreference, fact events ->
// kFacetContext (preferences found in a fact sentence stay preferences);
// evidence = the sentence; evidence_count 1; segment_ids {segment_id}
// (none when empty). Other event types give no facet.
std::optional<Facet> FacetFromEvent(const Event& event, std::string segment_id);

// The facets of one user message (spec 40 §5), in order: for each sentence
// (EventSentences), the statements ExtractSlots (slots.h) reads from it,
// preferences as kFacetPreference and slots as kFacetContext; a statement
// that ends a slot ("I'm not vegan anymore") has an empty value. A sentence
// that speaks for the user but fills no slot of the table falls back to
// FacetFromEvent when it is a fact event: a slot its triple names (email,
// age …) or a free fact (IsFreeFact) under the head words of its clause. Confidence is
// kHedgedConfidence for a hedged sentence, else kPlainConfidence; evidence
// is the sentence; segment_ids {segment_id} (none when empty). An employer
// whose value the message also gives as the user's location or origin is a
// place, not an employer, and is left out (我住在上海，在上海工作).
std::vector<Facet> FacetsFromMessage(std::string_view user_message, std::string_view segment_id);

// Whether a facet is a free fact: a fact sentence that fits no slot, kept
// by FacetFromEvent under the head words of its clause. It says what
// happened rather than who the user is.
bool IsFreeFact(std::string_view facet_type, std::string_view key, std::string_view value);

// Markdown for `memory.profile_render`: one section per facet type, titled
// "### " + the type with its first letter upper-cased ("### Preference"),
// in the order preference, context, then the other types in byte order; in
// a section one line per facet, sorted by key (then value),
//   "- <key>: <value> (confirmed <evidence_count>x)\n"
// ("(confirmed 1x)" for a single observation: the count is always shown).
// Line breaks inside a key or value become spaces: one facet, one line.
// Sections are separated by one blank line. "" when `facets` is empty.
//   "### Preference\n- tea: tea (confirmed 2x)\n\n"
//   "### Context\n- location: Berlin (confirmed 1x)\n"
std::string RenderProfile(const std::vector<Facet>& facets);

}  // namespace mnemo::archivist

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
  std::string key;    // FacetKey(facet_type, value) for extracted facets
  std::string value;  // the sentence or stated value
  double confidence = 0;
  int64_t evidence_count = 0;
  std::vector<std::string> segment_ids;  // segments that gave evidence, first seen first
};

// facet_type + "_" + the first four meaningful words of `text` joined by "_":
// the terms of the text pipeline's query side (text::QueryTerms: folded,
// Porter-stemmed words, identifiers, and for Chinese the character bigrams
// of each stretch left after ICU-word stop words are removed), stop words
// dropped unless nothing else remains, repeats and identifier parts dropped.
//   ("preference", "I prefer dark mode")  -> "preference_prefer_dark_mode"
//   ("context", "I work at acme.io")      -> "context_work_acme.io"
//   ("context", "我的名字是张伟")         -> "context_名字_张伟"
//   ("context", "我住在北京")             -> "context_住在_在北_北京"
// Pattern words such as "prefer", "like" or "hate" are kept: they carry the
// polarity, so "I like tea" and "I hate tea" stay two facets. A text with no
// term at all (only punctuation or emoji) gets facet_type + "_" + the first
// 12 hex digits of its SHA-256, never a shared "_unknown".
std::string FacetKey(std::string_view facet_type, std::string_view text);

// The facet one event gives: preference events -> kFacetPreference, fact
// events -> kFacetContext, value = the event's text, its confidence,
// evidence_count 1, segment_ids {segment_id} (none when segment_id is
// empty). Other event types give no facet.
std::optional<Facet> FacetFromEvent(const Event& event, std::string segment_id);

// Folds one more observation of the same (facet_type, key) into `existing`:
// evidence_count + 1, the observation's segment ids appended unless already
// present (order kept), and value and confidence taken from the observation
// only when its confidence >= existing.confidence (a hedged restatement
// never overwrites a plain one).
void MergeFacet(Facet& existing, const Facet& observation);

// Markdown for `memory.profile_render`: one section per facet type, titled
// "### " + the type with its first letter upper-cased ("### Preference"),
// in the order preference, context, then the other types in byte order; in
// a section one line per facet, sorted by key (then value),
//   "- <key>: <value> (confirmed <evidence_count>x)\n"
// ("(confirmed 1x)" for a single observation: the count is always shown).
// Line breaks inside a key or value become spaces: one facet, one line.
// Sections are separated by one blank line. "" when `facets` is empty.
//   "### Preference\n- preference_like_tea: I like tea (confirmed 2x)\n\n"
//   "### Context\n- context_live_berlin: I live in Berlin (confirmed 1x)\n"
std::string RenderProfile(const std::vector<Facet>& facets);

}  // namespace mnemo::archivist

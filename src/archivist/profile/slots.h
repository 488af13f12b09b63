// Profile slots (spec 40 §5): what a user says about themselves, read clause
// by clause from one sentence into (slot, value) statements. Pure functions;
// no storage. Thread-safe. Hand-written scanners, linear in the sentence.
//
// The slot table (docs/archivist.md lists it with every cue):
//   name, location, origin, employer, role, manager, partner, children, pet,
//   diet, allergy, birthday, timezone, language   (facet type `context`)
// and preferences (facet type `preference`), keyed by what they are about.
//
// The general mechanisms, in the order they apply:
//  - Clauses: a sentence splits at , ; : ， ； ： and before "and"/"but"/"so"
//    when a new subject follows ("I live in Berlin and I work at Acme").
//    Each clause is a candidate of its own.
//  - Fillers and topic markers at a clause's start ("actually", "also", "big
//    news", "by the way", 其实, 对了, 换个话题 …) are skipped.
//  - Subject: a clause speaks for the user when its subject is I / we (我,
//    我们); a clause without a subject inherits the previous clause's
//    ("I'm not keto anymore, so paleo"); another subject ("my brother
//    lives in Madrid", "Rex barked …", 我哥哥住在…) gives no slot, except
//    the user's own relations and possessions ("my wife Ines", "X is my
//    manager", "my birthday is …"), which name the user's slot whoever the
//    grammatical subject is.
//  - Modality: questions (a clause ending in ? or opening with an auxiliary
//    or wh-word), requests ("please", "can you", "remind me"), hypotheticals
//    ("if", "I'd", "would", 如果), plans ("going to", "will") and the past
//    ("used to", "back in", "years ago", "when I was", 以前, 曾经) give no slot.
//  - Negation: "no longer", "not … anymore", "left", "quit", "laid off
//    from", 不再 end the slot's current value (a statement with an empty
//    value); any other negated clause gives nothing.
//  - Values: a named slot (name, location, origin, employer, manager,
//    partner, children, pet) takes the proper-noun span after its cue
//    (capitalised words, joined by of/de/van/…; Chinese up to a particle or
//    punctuation); "a bank", "the local school" name nothing. When a
//    sentence has no capital letter at all, the span runs to the next
//    boundary word instead. Other slots take the words after the cue up to a
//    boundary word (and, with, near, at, since, when, last, now …) or
//    punctuation, without leading articles.
//  - Derived readings (docs/archivist.md): a nationality after I'm / I am
//    is the origin ("I'm Dutch", by demonym suffix); a chain of moves gives
//    each destination in order ("moved to Leeds and then to York"); 在X工作
//    names no employer when X is a place (我在北京工作).
//  - Preferences keep what they are about and what is preferred: "I prefer
//    reports in Markdown" → reports: "Markdown"; "I drink my coffee black" →
//    coffee: "black"; "I hate meetings before 10am" → meetings: "dislikes
//    meetings before 10am"; "I like aisle seats" → aisle seats: "likes";
//    "my favourite X is Y" → X: Y; a habit with its time ("I usually cycle
//    to work on Tuesdays") → tuesdays: "cycle to work". Keys are the
//    surface words, English lower-cased, Chinese as written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mnemo::archivist {

// Slot keys (facet type `context`), the table's names.
inline constexpr std::string_view kSlotName = "name";
inline constexpr std::string_view kSlotLocation = "location";
inline constexpr std::string_view kSlotOrigin = "origin";
inline constexpr std::string_view kSlotEmployer = "employer";
inline constexpr std::string_view kSlotRole = "role";
inline constexpr std::string_view kSlotManager = "manager";
inline constexpr std::string_view kSlotPartner = "partner";
inline constexpr std::string_view kSlotChildren = "children";
inline constexpr std::string_view kSlotPet = "pet";
inline constexpr std::string_view kSlotDiet = "diet";
inline constexpr std::string_view kSlotAllergy = "allergy";
inline constexpr std::string_view kSlotBirthday = "birthday";
inline constexpr std::string_view kSlotTimezone = "timezone";
inline constexpr std::string_view kSlotLanguage = "language";

// The slot keys above, in the table's order.
inline constexpr std::string_view kSlotKeys[] = {
    kSlotName,    kSlotLocation, kSlotOrigin,   kSlotEmployer, kSlotRole,
    kSlotManager, kSlotPartner,  kSlotChildren, kSlotPet,      kSlotDiet,
    kSlotAllergy, kSlotBirthday, kSlotTimezone, kSlotLanguage};

// Whether `key` is one of kSlotKeys.
bool IsSlotKey(std::string_view key);

// Slots that hold several things at once (pet, children, language,
// allergy): a new one joins the current value instead of replacing it
// (merged with FacetRow::joins; storage::internal::JoinFacetItem).
bool IsListSlot(std::string_view key);

struct SlotStatement {
  bool preference = false;  // facet type `preference`, else `context`
  std::string key;
  std::string value;  // "" when the statement ends the slot's current value
};

// What one sentence says about the user, in clause order. `own` is true
// when some clause speaks for the user in the present, as a statement
// (subject and modality above), whether or not it filled a slot.
struct SentenceSlots {
  std::vector<SlotStatement> statements;
  bool own = false;
};

// `greeting`: the message opened with a greeting, so "I'm <Name>" names the
// user (a sentence that opens with hi/hello/hey counts as one too).
SentenceSlots ExtractSlots(std::string_view sentence, bool greeting = false);

}  // namespace mnemo::archivist

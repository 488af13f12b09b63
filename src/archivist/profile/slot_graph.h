// The profile's slots in the graph (issue 44: profile and graph never
// disagree). A slot with one value at a time has a functional predicate of
// the graph (context::kSingleValuedPredicates); the user's triple of that
// predicate is the slot's current value. It is written from the profile
// (SyncSlotTriple, after each facet is folded) and never read from a chat
// document (the segment documents' extraction leaves the user's triples of
// these predicates out, IsSlotPredicate), so both come from one reading of
// what the user said (slots.h): "I moved to Leeds and then to York" is
// lives_in York in both, 我在北京工作 names no employer in either.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "archivist/profile/slots.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/episodic.h"
#include "storage/graph_store.h"

namespace mnemo::archivist {

struct SlotPredicate {
  std::string_view predicate;  // normalised (storage::internal::NormalizePredicate)
  std::string_view slot;       // a key of kSlotKeys
};

// The mapping, in one place. A slot's first row is the predicate its triple
// is written under; later rows of the same slot are the other names the
// graph's extractor gives it ("my boss is Dana" → boss), which chat
// documents do not give either. Every predicate here is single-valued
// (tests/archivist/profile/slot_graph_test.cc checks it). The list slots (pet,
// children, allergy, language) hold several things and have none.
inline constexpr SlotPredicate kSlotPredicates[] = {
    {"name", kSlotName},         {"lives_in", kSlotLocation}, {"location", kSlotLocation},
    {"comes_from", kSlotOrigin}, {"origin", kSlotOrigin},     {"works_at", kSlotEmployer},
    {"employer", kSlotEmployer}, {"role", kSlotRole},         {"manager", kSlotManager},
    {"boss", kSlotManager},      {"partner", kSlotPartner},   {"wife", kSlotPartner},
    {"husband", kSlotPartner},   {"spouse", kSlotPartner},    {"diet", kSlotDiet},
    {"birthday", kSlotBirthday}, {"timezone", kSlotTimezone},
};

// The source of a slot triple written from a value stated directly
// (memory.profile_put, memory.profile_correct).
inline constexpr std::string_view kStatedSlotSource = "profile:stated";
// The source of a slot triple written from what a session's segment said:
// it starts with the session's SessionDocumentSourcePrefix (segments.h), so
// erasing the session finds it.
std::string SlotStatementSource(std::string_view session_id, std::string_view segment_id);

// The predicate the user's triple of `slot` is written under; "" when the
// slot has none (a list slot, a preference, a free fact).
std::string_view PredicateOfSlot(std::string_view slot);
// The slot a predicate names (any of its rows); "" when none.
std::string_view SlotOfPredicate(std::string_view predicate);
// Whether the user's triples of `predicate` come from the profile only.
bool IsSlotPredicate(std::string_view predicate);

// Makes the owner's triple (user, PredicateOfSlot(facet.key), …) follow
// `facet`, a `context` facet as stored after a fold (MergeFacet):
//  - With a current value: every other current triple of that subject and
//    predicate is closed, whatever its confidence, and (user, predicate,
//    value) upserted with the facet's confidence, its evidence as the
//    sentence and `source` as provenance, valid from when the value was
//    stated (facet.valid_from, else `now`; never before another object's
//    start, so it is current). A history triple of the same object that
//    began when the value was stated (the same statement, superseded by
//    one an erasure took away) is replaced by the current one.
//  - Without one (the slot was ended: "I no longer work at X"): the current
//    triple is closed at facet.valid_from (else `now`) and stays as history.
// Does nothing for any other facet.
Status SyncSlotTriple(storage::GraphStore& graph, const storage::FacetRow& facet,
                      std::string_view source, TimeMs now);

// After an erasure of a session (memory.session_forget) has folded the
// owner's facets again from what is left: deletes the owner's slot triples
// whose source starts with `source_prefix` (the session's words,
// archivist/segments.h SessionDocumentSourcePrefix) and makes every slot
// triple follow its facet again (SyncSlotTriple, source
// SlotStatementSource or kStatedSlotSource of the statement that gave
// the current value), so
// the graph keeps none of the session and the values it had superseded are
// current again.
Status FollowErasure(storage::GraphStore& graph, std::span<const storage::FacetRow> facets,
                     std::string_view owner, std::string_view source_prefix, TimeMs now);

// Deletes the owner's triples (user, PredicateOfSlot(slot), v), current or
// history, for each v of `values` (ASCII case-blind, as the graph compares
// objects): a value deleted or corrected in the profile was never true.
// Does nothing for a slot without a predicate.
Status DeleteSlotTriples(storage::GraphStore& graph, std::string_view owner, std::string_view slot,
                         std::span<const std::string> values);

}  // namespace mnemo::archivist

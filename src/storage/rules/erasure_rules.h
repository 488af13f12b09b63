// Backend-independent rules of erasure (admin_store.h "Erasure"), shared by
// every backend.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "mnemo/status.h"
#include "storage/episodic.h"

namespace mnemo::storage::internal {

// kInvalidArgument for a blank owner (a session id comes parsed: SessionId).
Status ValidateErasure(std::string_view owner);

// A facet after an erasure of the session `session_id` (nullopt: of no
// whole session) whose segments are `erased_segments`:
//  - with recorded statements, those of the session or of an erased
//    segment are taken away and the rest folded again (RefoldFacet): the
//    facet as it would be had the session never been, its value, history,
//    sentence and count from what is left; nullopt when nothing is left;
//  - without (a facet stored before statements were recorded), its erased
//    segment ids are removed and evidence_count reduced by as many, its
//    sentence and history dropped (which segment said them is not known),
//    and it goes when no segment is left or no evidence is.
// `changed` says whether any evidence was removed (an untouched facet is
// returned as it is).
std::optional<FacetRow> FacetAfterErasure(const FacetRow& facet,
                                          std::optional<std::string_view> session_id,
                                          const std::set<std::string>& erased_segments,
                                          bool* changed);

}  // namespace mnemo::storage::internal

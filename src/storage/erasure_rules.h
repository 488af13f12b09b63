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

// kInvalidArgument for a blank owner (and, for a session, a blank session_id).
Status ValidateErasure(std::string_view owner, std::optional<std::string_view> session_id);

// A facet after the evidence of `erased` segments is taken away: the segment
// ids of `erased` removed (order kept) and evidence_count reduced by as many;
// nullopt when nothing is left (no evidence count, or no other segment and no
// evidence beyond the erased segments'). `changed` says whether any evidence
// was removed (an untouched facet is returned as it is).
std::optional<FacetRow> FacetWithoutSegments(const FacetRow& facet,
                                             const std::set<std::string>& erased, bool* changed);

}  // namespace mnemo::storage::internal

// Backend-independent rules of the episodic contract (backend.h), shared by
// every backend.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "mnemo/status.h"
#include "storage/episodic.h"
#include "storage/turn_claims.h"

namespace mnemo::storage::internal {

// An append must name one (owner, session): non-empty, and the same for
// every row; roles are "user" or "assistant" (kInvalidArgument otherwise).
Status ValidateTurnWrites(std::span<const TurnWrite> rows);

// A turn key needs an owner and a session, and a turn id of 1 to
// kMaxTurnIdBytes bytes (kInvalidArgument otherwise).
Status ValidateTurnKey(const TurnKey& key);
// ValidateTurnKey and ValidateTurnWrites, and every row of the key's owner
// and session.
Status ValidateTurnClaim(const TurnClaim& claim, std::span<const TurnWrite> rows);

// A segment must have an id, owner and session, a status of "open" or
// "closed" and a recap_source of "", "llm" or "extractive".
Status ValidateSegment(const SegmentRow& s);

// Whether `s` may replace what is stored (kConflict otherwise):
// `stored_status` is the status of the stored row with `s.id` (none when
// new), `open_id` the id of the open segment of (s.owner, s.session_id)
// (none when it has none). A closed segment never becomes open again, and a
// session has at most one open segment.
Status CheckSegmentPut(const SegmentRow& s, std::optional<std::string_view> stored_status,
                       std::optional<std::string_view> open_id);

// Events need an id, owner and text, a type of decision, commitment,
// preference or fact, and a confidence in [0, 1].
Status ValidateEvents(std::span<const EventRow> rows);

// A facet observation needs an owner, facet_type and key, and a confidence
// in [0, 1].
Status ValidateFacet(const FacetRow& observation);

// The facet stored after folding `observation` into `stored` (backend.h,
// MergeFacet). Mirrors archivist::MergeFacet, which storage cannot depend
// on (layers point downward).
FacetRow MergeFacetRow(const std::optional<FacetRow>& stored, const FacetRow& observation);

}  // namespace mnemo::storage::internal

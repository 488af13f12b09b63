// Episodic rows as the public API shows them, and the one check of a
// session id. Private to src/core.
#pragma once

#include <string_view>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/episodic_store.h"

namespace mnemo {

// A stored turn row as an EpisodicTurn (its public id derived from owner,
// session and seq).
EpisodicTurn ToEpisodicTurn(storage::TurnRow r);

// A stored facet as a ProfileFacet.
ProfileFacet ToProfileFacet(storage::FacetRow r);

}  // namespace mnemo

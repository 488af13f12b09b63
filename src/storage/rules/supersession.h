// Supersession (spec 40 §5, spec 50 "Graph"): when a newer statement of a
// single-valued slot replaces the current value. One rule for profile facets
// (MergeFacetRow) and for graph triples (PlanTripleUpsert), so that profile
// and graph never disagree about the same statement.
#pragma once

#include <string_view>

#include "mnemo/types.h"

namespace mnemo::storage::internal {

// A hedged statement does not replace a surer one: a newer value supersedes
// when its confidence is at most this much below the current one's.
inline constexpr double kSupersedeMargin = 0.2;

// Whether `sentence` says that something changed: "actually", "not
// anymore", "no longer", "now", "moved to", "switched to", "changed to",
// "these days", 现在, 不再, 搬到了, 换成, 改成, and Arabic الآن, لم أعد,
// انتقلت, حاليا (English case-blind at word boundaries; others as substrings).
bool MarksChange(std::string_view sentence);

struct SlotStatement {
  double confidence = 0;
  TimeMs at = 0;              // when it was stated (turn time, or now)
  std::string_view sentence;  // "" when stated directly
};

// Whether `incoming` (a different value) replaces `current` in its slot: it
// is not older (at >= current.at) and either its confidence is no more than
// kSupersedeMargin below current's, or its sentence MarksChange.
bool Supersedes(const SlotStatement& current, const SlotStatement& incoming);

}  // namespace mnemo::storage::internal

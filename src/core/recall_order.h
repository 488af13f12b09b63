// The order of memory_recall's results (spec 10, "memory_recall"): evidence
// first. Entries and conversation turns are what was said; segment recaps,
// events and documents were derived from it. A derived result is kept only
// when it adds something the evidence does not (it quotes none of the
// returned turns), and it never crowds the evidence out: while evidence is
// left, derived results take at most a third of the places.
#pragma once

#include <cstddef>
#include <vector>

#include "mnemo/types.h"

namespace mnemo {

inline constexpr size_t kDerivedShareDivisor = 3;  // at most limit / 3 derived places

// At most `limit` results: the chosen evidence by score (ties: the given
// order), then the chosen derived results by score.
std::vector<RecallHit> EvidenceFirst(std::vector<RecallHit> evidence,
                                     std::vector<RecallHit> derived, size_t limit);

}  // namespace mnemo

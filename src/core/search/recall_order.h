// The order of memory_recall's results (spec 10, "memory_recall"): evidence
// first. Entries and conversation turns are what was said; segment recaps,
// events and documents were derived from it. A derived result never crowds
// the evidence out: it only takes a place the evidence leaves free, and only
// when it adds something (it quotes none of the returned turns).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "mnemo/types.h"

namespace mnemo {

// At most `limit` results: the evidence by score (ties: the given order),
// then, in the places left, the derived results by score that quote none of
// `quoted` (the texts of the turns the evidence returns).
std::vector<RecallHit> EvidenceFirst(std::vector<RecallHit> evidence,
                                     std::vector<RecallHit> derived,
                                     const std::vector<std::string>& quoted, size_t limit);

}  // namespace mnemo

// The extractive recap (spec 40, segment close step 2): what a segment was
// about when no LLM is configured or it failed. Pure function; no storage.
// Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mnemo::archivist {

// Token estimate used for recap budgets: one token per 4 UTF-8 bytes, so a
// recap within `token_budget` tokens is at most 4 * token_budget bytes.
inline constexpr int64_t kBytesPerToken = 4;

// The segment's most central sentences within `token_budget` tokens
// (kBytesPerToken), in their original order, joined by " ".
//  - Sentences: EventSentences (events.h) of each turn text in order;
//    a sentence already seen (byte for byte) is not considered again.
//  - Centrality: each sentence is a vector of term counts (the index tokens
//    of text::Tokenize without stop words), scaled to unit length; its
//    score is the sum of its cosine similarities to every other sentence,
//    so sentences that share the segment's recurring words rank first and
//    an off-topic aside ranks last.
//  - Selection: by score (ties: the earlier sentence), greedily: a
//    sentence is taken when it still fits in the budget (separators
//    counted) and skipped otherwise, so shorter ones may fill what is left.
//    When not even one fits, the best sentence is cut at a code point to fit
//    and ends with "…".
// Deterministic for the same input. "" when token_budget <= 0 or there is no
// sentence of at least kMinSentenceBytes bytes.
std::string ExtractiveRecap(const std::vector<std::string>& turn_texts, int64_t token_budget);

}  // namespace mnemo::archivist

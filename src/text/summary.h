// Extractive summaries: the most central sentences of a text, for segment
// recaps without an LLM (spec 40) and document summaries (spec 50). Pure
// function; no storage. Thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "text/sentences.h"

namespace mnemo::text {

// The most central sentences of `texts` within `max_bytes`, in their
// original order, joined by " ".
//  - Sentences: SplitSentences(text, options) of each text in order; a
//    sentence already seen (byte for byte) is not considered again, nor is
//    a phatic one (phatic.h: "Hi! How are you?", "Thanks, bye!") unless
//    every sentence is.
//  - Centrality: each sentence is a vector of term counts (the index tokens
//    of Tokenize without stop words), scaled to unit length; its score is
//    the sum of its cosine similarities to every other sentence, so
//    sentences that share the text's recurring words rank first and an
//    off-topic aside ranks last.
//  - Selection: by score (ties: the earlier sentence), greedily: a
//    sentence is taken when it still fits (separators counted) and skipped
//    otherwise, so shorter ones may fill what is left. When not even one
//    fits, the best sentence is cut at a code point to fit and ends with "…".
// Deterministic for the same input. "" when max_bytes is 0 or there is no
// sentence.
std::string ExtractiveSummary(const std::vector<std::string>& texts, size_t max_bytes,
                              const SentenceOptions& options = {});

}  // namespace mnemo::text

// Stop words for English, Chinese and Arabic (spec 20): dropped from queries
// that have other terms, given no weight in keyword extraction (spec 50).
#pragma once

#include <string_view>

namespace mnemo::text {

// True when `normalised_token` is a stop word. Takes tokens as the pipeline
// produces them (tokenizer.h): folded, and for English either unstemmed or
// Porter2-stemmed ("does" and its stem "doe" both answer true); Arabic without
// harakat and with bare alef. Covers the question wrappers of memory queries
// ("what did I say about", "remind me about", "do you know"). Thread-safe.
bool IsStopWord(std::string_view normalised_token);

}  // namespace mnemo::text

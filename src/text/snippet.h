// Search-result snippets: the passage of a text that best matches a query.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

// The passage of `content` that matches the most distinct `terms` (index
// tokens, e.g. from QueryTerms), with the original text of every matching
// token wrapped in `**…**` (overlapping and adjacent matches share one pair).
//
// Length: at most `max_chars` code points of visible text, counting the "…"
// added where the passage is cut from the content, NOT counting the `**`
// markers (each highlight adds 4 bytes). A UTF-8 sequence is never cut; the
// cut ends move to a space when one is near. Invalid UTF-8 in `content` comes
// out as U+FFFD. Without a match: the beginning of the content. Content that
// fits is returned whole (highlighted). max_chars == 0 gives "".
std::string MakeSnippet(std::string_view content, const std::vector<std::string>& terms,
                        size_t max_chars = 200);

// The passage MakeSnippet would choose, without the `**` markers.
std::string MakePassage(std::string_view content, const std::vector<std::string>& terms,
                        size_t max_chars = 200);

// Whether some token of `content` is one of `terms` (index tokens).
bool MatchesAnyTerm(std::string_view content, const std::vector<std::string>& terms);

}  // namespace mnemo::text

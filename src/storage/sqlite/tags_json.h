// The `entries.tags` column format: a JSON array of strings, e.g.
// ["a","b \"quoted\""]. Written compactly with only the escapes JSON requires
// (", \, control characters); other bytes are kept as they are, so tags round
// trip byte for byte and SQLite's json_each() reads them for tag filters.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::storage::internal {

std::string EncodeTags(const std::vector<std::string>& tags);

// Accepts any JSON array of strings (all escapes, \u surrogate pairs);
// nullopt when `json` is something else.
std::optional<std::vector<std::string>> DecodeTags(std::string_view json);

}  // namespace mnemo::storage::internal

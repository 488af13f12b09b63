// The `entries.tags` column format (also documents' tags and entities, and the
// facet columns of storage/rules/episodic_rules.h): a JSON array of strings, e.g.
// ["a","b \"quoted\""], written and read by nlohmann::json. Compact, with
// only the escapes JSON requires (", \, control characters); other bytes are
// kept as they are, so tags round trip byte for byte and SQLite's json_each()
// reads them for tag filters.
//
// Control characters (which tags cannot hold: core/validation.h) are written
// in nlohmann's escapes (\n, \t, \u0001); rows written before nlohmann spelt
// them \u000a, \u0009: both forms decode to the same strings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::storage::internal {

// Bytes that are not UTF-8 (no validated input has them) become U+FFFD
// rather than failing.
std::string EncodeTags(const std::vector<std::string>& tags);

// Accepts any JSON array of strings (all escapes, \u surrogate pairs);
// bytes that are not UTF-8 are read as U+FFFD; nullopt when `json` is
// something else.
std::optional<std::vector<std::string>> DecodeTags(std::string_view json);

}  // namespace mnemo::storage::internal

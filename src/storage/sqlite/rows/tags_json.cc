#include "storage/sqlite/rows/tags_json.h"

#include <nlohmann/json.hpp>

#include "text/utf8.h"

namespace mnemo::storage::internal {

using nlohmann::json;

std::string EncodeTags(const std::vector<std::string>& tags) {
  return json(tags).dump(-1, ' ', /*ensure_ascii=*/false, json::error_handler_t::replace);
}

std::optional<std::vector<std::string>> DecodeTags(std::string_view json_text) {
  json parsed = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  // The hand-written codec before nlohmann wrote any bytes as they were;
  // nlohmann rejects bytes that are not UTF-8, so such a row is read with
  // them replaced rather than lost.
  if (parsed.is_discarded() && !text::IsValidUtf8(json_text)) {
    parsed = json::parse(text::SanitizeUtf8(json_text), nullptr, /*allow_exceptions=*/false);
  }
  if (!parsed.is_array()) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(parsed.size());
  for (const json& item : parsed) {
    if (!item.is_string()) return std::nullopt;
    out.push_back(item.get<std::string>());
  }
  return out;
}

}  // namespace mnemo::storage::internal

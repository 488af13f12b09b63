#include "base/json_limits.h"

#include <exception>
#include <set>
#include <string>
#include <vector>

namespace mnemo::internal {

bool JsonDepthWithin(std::string_view text, int max_depth) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return true;
}

Status CheckJsonLimits(std::string_view text, std::string_view field, int64_t max_bytes) {
  const std::string name(field);
  if (max_bytes >= 0 && text.size() > static_cast<uint64_t>(max_bytes)) {
    return InvalidArgument(name + " is " + std::to_string(text.size()) +
                               " bytes of JSON: at most " + std::to_string(max_bytes) +
                               " bytes are allowed (server.max_body_bytes, the limit of a "
                               "request body)",
                           name);
  }
  if (!JsonDepthWithin(text)) {
    return InvalidArgument(name + " nests deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels: a JSON value may nest at most " +
                               std::to_string(kMaxJsonDepth) +
                               " levels (the limit of a request body)",
                           name);
  }
  return Status::Ok();
}

nlohmann::json ParseStrictJson(std::string_view text, JsonTextError& error) {
  using nlohmann::json;
  if (!JsonDepthWithin(text)) {
    error = {JsonTextProblem::kTooDeep,
             "JSON nested deeper than " + std::to_string(kMaxJsonDepth) + " levels"};
    return json::value_t::discarded;
  }
  // The keys seen so far in each object being read, innermost last; arrays
  // need no entry since a key always belongs to the innermost open object.
  std::vector<std::set<std::string, std::less<>>> open;
  std::string duplicate;
  bool has_duplicate = false;
  const json::parser_callback_t track = [&](int /*depth*/, json::parse_event_t event,
                                            json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == json::parse_event_t::key && !open.empty() && !has_duplicate) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open.back().insert(key).second) {
        has_duplicate = true;
        duplicate = key;
      }
    }
    return true;
  };
  json value;
  try {
    value = json::parse(text, track);
  } catch (const std::exception& e) {
    error = {JsonTextProblem::kSyntax, "not valid JSON (UTF-8): " + std::string(e.what())};
    return json::value_t::discarded;
  }
  if (has_duplicate) {
    error = {JsonTextProblem::kDuplicateKey,
             "the key " + json(duplicate).dump(-1, ' ', false, json::error_handler_t::replace) +
                 " appears twice in one object; each key may appear once"};
    return json::value_t::discarded;
  }
  return value;
}

}  // namespace mnemo::internal

#include "base/json_limits.h"

#include <string>

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

}  // namespace mnemo::internal

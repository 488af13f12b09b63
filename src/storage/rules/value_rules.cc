#include "storage/rules/value_rules.h"

#include <algorithm>
#include <string>

#include "mnemo/limits.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

std::string F(std::string_view field) { return std::string(field); }

}  // namespace

bool HasControlCharacter(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

Status ValidateKey(std::string_view key, std::string_view field) {
  if (key.empty() || text::IsBlank(key)) {
    return InvalidArgument(
        F(field) + " must not be blank: use 1-" + std::to_string(kMaxKeyBytes) + " bytes of text",
        F(field));
  }
  if (key.size() > kMaxKeyBytes) {
    return InvalidArgument(F(field) + " is " + std::to_string(key.size()) +
                               " bytes long: at most " + std::to_string(kMaxKeyBytes) +
                               " bytes are allowed",
                           F(field));
  }
  if (!text::IsValidUtf8(key)) {
    return InvalidArgument(F(field) + " is not valid UTF-8", F(field));
  }
  if (HasControlCharacter(key)) {
    return InvalidArgument(F(field) + " contains a control character: use printable text",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateSessionId(std::string_view session_id) {
  if (text::IsBlank(session_id)) {
    return InvalidArgument("session_id must not be blank", "session_id");
  }
  return ValidateKey(session_id, "session_id");
}

Status ValidateCategory(std::string_view category, std::string_view field) {
  bool ok = !category.empty() && category.size() <= kMaxCategoryBytes &&
            std::all_of(category.begin(), category.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
            });
  if (!ok) {
    std::string shown = text::IsValidUtf8(category) && category.size() <= 80
                            ? std::string(category)
                            : std::string("(") + std::to_string(category.size()) + " bytes)";
    return InvalidArgument(F(field) + " \"" + shown +
                               "\" is invalid: use core, daily, conversation or [a-z0-9_-]{1," +
                               std::to_string(kMaxCategoryBytes) + "}",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateNamespace(std::string_view ns, std::string_view field) {
  bool ok = !ns.empty() && ns.size() <= kMaxNamespaceBytes &&
            std::all_of(ns.begin(), ns.end(), [](char c) {
              return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                     c == '_' || c == '-' || c == '.' || c == ':' || c == '*';
            });
  if (!ok) {
    std::string shown = text::IsValidUtf8(ns) && ns.size() <= 140
                            ? std::string(ns)
                            : std::string("(") + std::to_string(ns.size()) + " bytes)";
    return InvalidArgument(F(field) + " \"" + shown + "\" is invalid: use 1-" +
                               std::to_string(kMaxNamespaceBytes) +
                               " characters of [A-Za-z0-9_.:*-] "
                               "(e.g. global, skill-git, tool-send_email)",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateQuery(std::string_view query) {
  if (text::IsBlank(query)) {
    return InvalidArgument("query must not be empty or whitespace: say what to look for", "query");
  }
  return ValidateQueryLength(query);
}

Status ValidateQueryLength(std::string_view query) {
  return ValidateSize(query, "query", kMaxContentBytes);
}

Status ValidateSize(std::string_view value, std::string_view field, size_t max_bytes) {
  if (value.size() > max_bytes) {
    return InvalidArgument(F(field) + " is " + std::to_string(value.size()) +
                               " bytes long: at most " + std::to_string(max_bytes) +
                               " bytes are allowed",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateTurnId(std::string_view turn_id) {
  if (turn_id.empty() || turn_id.size() > kMaxTurnIdBytes || !text::IsValidUtf8(turn_id)) {
    return InvalidArgument("turn_id must be 1 to " + std::to_string(kMaxTurnIdBytes) +
                               " bytes of UTF-8 (it is " + std::to_string(turn_id.size()) +
                               " bytes long)",
                           "turn_id");
  }
  return Status::Ok();
}

Status ValidatePrincipal(std::string_view name, std::string_view field) {
  const std::string allowed = "a principal name is 1-" + std::to_string(kMaxPrincipalBytes) +
                              " bytes of UTF-8 text on one line";
  if (text::IsBlank(name)) {
    return InvalidArgument(F(field) + " must not be blank: " + allowed, F(field));
  }
  if (name.size() > kMaxPrincipalBytes) {
    return InvalidArgument(
        F(field) + " is " + std::to_string(name.size()) + " bytes long: " + allowed, F(field));
  }
  if (!text::IsValidUtf8(name)) {
    return InvalidArgument(F(field) + " is not valid UTF-8: " + allowed, F(field));
  }
  if (HasControlCharacter(name)) {
    return InvalidArgument(F(field) + " contains a control character: " + allowed, F(field));
  }
  return Status::Ok();
}

}  // namespace mnemo

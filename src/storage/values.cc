#include "storage/values.h"

#include "storage/rules/value_rules.h"

namespace mnemo {

// Each Parse is the one door of its type; the rule itself is stated once, in
// storage/rules/value_rules.h.

Result<Query> Query::Parse(std::string_view text) {
  MNEMO_RETURN_IF_ERROR(ValidateQuery(text));
  return Query(text);
}

Result<Key> Key::Parse(std::string text, std::string_view field) {
  MNEMO_RETURN_IF_ERROR(ValidateKey(text, field));
  return Key(std::move(text));
}

Result<Namespace> Namespace::Parse(std::string text, std::string_view field) {
  MNEMO_RETURN_IF_ERROR(ValidateNamespace(text, field));
  return Namespace(std::move(text));
}

Result<Category> Category::Parse(std::string text, std::string_view field) {
  MNEMO_RETURN_IF_ERROR(ValidateCategory(text, field));
  return Category(std::move(text));
}

Result<SessionId> SessionId::Parse(std::string text) {
  MNEMO_RETURN_IF_ERROR(ValidateSessionId(text));
  return SessionId(std::move(text));
}

Result<TurnId> TurnId::Parse(std::string text) {
  MNEMO_RETURN_IF_ERROR(ValidateTurnId(text));
  return TurnId(std::move(text));
}

Result<PrincipalId> PrincipalId::Parse(std::string text, std::string_view field) {
  MNEMO_RETURN_IF_ERROR(ValidatePrincipal(text, field));
  return PrincipalId(std::move(text));
}

}  // namespace mnemo

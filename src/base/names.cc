#include "mnemo/names.h"

#include <string>

namespace mnemo {

std::string_view VisibilityName(Visibility v) {
  return v == Visibility::kPublic ? "public" : "private";
}

std::string_view PriorityName(RulePriority p) {
  switch (p) {
    case RulePriority::kCritical: return "critical";
    case RulePriority::kHigh: return "high";
    case RulePriority::kNormal: return "normal";
  }
  return "normal";
}

std::string_view SourceName(RuleSource s) {
  switch (s) {
    case RuleSource::kUserExplicit: return "user_explicit";
    case RuleSource::kPostTurn: return "post_turn";
    case RuleSource::kProgrammatic: return "programmatic";
  }
  return "programmatic";
}

Result<Visibility> ParseVisibility(std::string_view name, std::string_view field) {
  if (name == "private") return Visibility::kPrivate;
  if (name == "public") return Visibility::kPublic;
  return InvalidArgument(std::string(field) + " must be \"private\" or \"public\"",
                         std::string(field));
}

Result<RulePriority> ParsePriority(std::string_view name, std::string_view field) {
  for (RulePriority p : {RulePriority::kCritical, RulePriority::kHigh, RulePriority::kNormal}) {
    if (name == PriorityName(p)) return p;
  }
  return InvalidArgument(std::string(field) + " must be one of critical, high, normal",
                         std::string(field));
}

Result<RuleSource> ParseSource(std::string_view name, std::string_view field) {
  for (RuleSource s :
       {RuleSource::kUserExplicit, RuleSource::kPostTurn, RuleSource::kProgrammatic}) {
    if (name == SourceName(s)) return s;
  }
  return InvalidArgument(
      std::string(field) + " must be one of user_explicit, post_turn, programmatic",
      std::string(field));
}

}  // namespace mnemo

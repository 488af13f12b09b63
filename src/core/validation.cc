#include "core/validation.h"

#include <algorithm>
#include <cmath>

#include "embed/embedder.h"
#include "rules/tool_rule.h"
#include "text/secrets.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo {
namespace {

std::string F(std::string_view field) { return std::string(field); }

}  // namespace

Status CheckMemoryEnabled(bool enabled) {
  if (enabled) return Status::Ok();
  return Disabled("memory is disabled by configuration (memory.enabled = false)");
}

Status ValidateContent(std::string_view content, std::string_view field) {
  if (content.empty() || text::IsBlank(content)) {
    return InvalidArgument(F(field) + " must not be blank", F(field));
  }
  if (content.size() > kMaxContentBytes) {
    return InvalidArgument(F(field) + " is " + std::to_string(content.size()) +
                               " bytes long: at most 1 MiB (1048576 bytes) is allowed",
                           F(field));
  }
  if (content.find('\0') != std::string_view::npos) {
    return InvalidArgument(F(field) + " contains a NUL character: use UTF-8 text without NUL",
                           F(field));
  }
  if (!text::IsValidUtf8(content)) {
    return InvalidArgument(F(field) + " is not valid UTF-8", F(field));
  }
  return Status::Ok();
}

Status ValidateNamespaceFilter(const std::optional<std::string>& ns,
                               const std::optional<std::string>& prefix) {
  if (ns && prefix) {
    return InvalidArgument("give namespace or namespace_prefix, not both", "namespace_prefix");
  }
  if (ns) return ValidateNamespace(*ns, "namespace");
  if (prefix) return ValidateNamespace(*prefix, "namespace_prefix");
  return Status::Ok();
}

Status ValidateEmbedding(const std::vector<float>& v, std::string_view field) {
  if (v.empty() || v.size() > static_cast<size_t>(embed::kMaxDimensions)) {
    return InvalidArgument(F(field) + " has " + std::to_string(v.size()) +
                               " numbers: use a vector of 1-" +
                               std::to_string(embed::kMaxDimensions) + " numbers",
                           F(field));
  }
  bool nonzero = false;
  for (float x : v) {
    if (!std::isfinite(x)) {
      return InvalidArgument(F(field) + " contains a non-finite number", F(field));
    }
    nonzero = nonzero || x != 0;
  }
  if (!nonzero) return InvalidArgument(F(field) + " must not be all zeros", F(field));
  return Status::Ok();
}

Status ValidateTags(const std::vector<std::string>& tags, std::string_view field) {
  if (tags.size() > kMaxTags) {
    return InvalidArgument(
        F(field) + " has " + std::to_string(tags.size()) + " items: at most 32 tags are allowed",
        F(field));
  }
  for (const std::string& t : tags) {
    if (t.empty() || text::IsBlank(t) || t.size() > kMaxTagBytes || HasControlCharacter(t) ||
        !text::IsValidUtf8(t)) {
      return InvalidArgument(F(field) +
                                 " contains an invalid tag: each tag is 1-64 bytes of UTF-8 "
                                 "text without control characters",
                             F(field));
    }
  }
  return Status::Ok();
}

Status ValidateTimeWindow(const TimeWindow& window) {
  if (window.since && window.until && *window.since >= *window.until) {
    return InvalidArgument("until must be later than since (the window is [since, until))",
                           "until");
  }
  return Status::Ok();
}

Status ValidateRecencyWeight(double weight) {
  if (!(weight >= 0 && weight <= 1)) {
    return InvalidArgument("recency_weight must be between 0 and 1", "recency_weight");
  }
  return Status::Ok();
}

Status ValidateContextTurns(int context_turns, std::string_view field) {
  if (context_turns < 0 || context_turns > kMaxContextTurns) {
    return InvalidArgument(F(field) + " is " + std::to_string(context_turns) + ": use 0 to " +
                               std::to_string(kMaxContextTurns) +
                               " (neighbouring turns returned each side of a hit)",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateMaxResults(int max_results) {
  if (max_results < 1 || max_results > kMaxResults) {
    return InvalidArgument("max_results must be between 1 and " + std::to_string(kMaxResults),
                           "max_results");
  }
  return Status::Ok();
}

Status CheckSecret(std::string_view secrets, std::string_view content, std::string_view field) {
  if (secrets == "allow") return Status::Ok();
  if (auto secret = text::FindSecret(content)) {
    return InvalidArgument(std::string(field) + " looks like it contains a secret (" +
                               std::string(secret->kind) +
                               "); mnemo does not store credentials. Remove it, or set "
                               "security.secrets = \"allow\"",
                           std::string(field));
  }
  return Status::Ok();
}

Status ValidateGraphTerm(std::string_view value, std::string_view field, bool allow_empty) {
  if (allow_empty && value.empty()) return Status::Ok();
  if (value.size() > kMaxGraphTermBytes) {
    return InvalidArgument(std::string(field) + " is " + std::to_string(value.size()) +
                               " bytes long: at most " + std::to_string(kMaxGraphTermBytes) +
                               " bytes are allowed",
                           std::string(field));
  }
  return ValidateContent(value, field);
}

Status ValidateText(std::string_view value, std::string_view field, size_t max_bytes,
                    bool allow_empty) {
  if (allow_empty && value.empty()) return Status::Ok();
  MNEMO_RETURN_IF_ERROR(ValidateSize(value, field, max_bytes));
  if (allow_empty) {
    if (value.find('\0') != std::string_view::npos) {
      return InvalidArgument(F(field) + " contains a NUL character: use UTF-8 text without NUL",
                             F(field));
    }
    if (!text::IsValidUtf8(value))
      return InvalidArgument(F(field) + " is not valid UTF-8", F(field));
    return Status::Ok();
  }
  return ValidateContent(value, field);
}

Status ValidateFacetValue(std::string_view value, std::string_view field) {
  return ValidateText(value, field, kMaxFacetValueBytes, /*allow_empty=*/false);
}

Status ValidateTimeMs(TimeMs ms, std::string_view field) {
  // 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z.
  constexpr TimeMs kFirst = -62'135'596'800'000;
  constexpr TimeMs kLast = 253'402'300'799'999;
  if (ms < kFirst || ms > kLast) {
    return InvalidArgument(F(field) + " is " + std::to_string(ms) +
                               ": use milliseconds since 1970 of a time in the years 0001 to 9999",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateCount(int64_t n, std::string_view field) {
  if (n < 0) {
    return InvalidArgument(F(field) + " is " + std::to_string(n) + ": a count is not negative",
                           F(field));
  }
  return Status::Ok();
}

Status ValidateSeq(int64_t seq, std::string_view field) {
  if (seq < 0 || seq > kMaxSeq) {
    return InvalidArgument(
        F(field) + " is " + std::to_string(seq) + ": use 0 to " + std::to_string(kMaxSeq),
        F(field));
  }
  return Status::Ok();
}

Status ValidateRuleText(std::string_view rule) {
  MNEMO_RETURN_IF_ERROR(ValidateContent(rule, "rule"));
  if (rule.size() > kMaxRuleBytes) {
    return InvalidArgument("rule is " + std::to_string(rule.size()) + " bytes long: at most " +
                               std::to_string(kMaxRuleBytes) + " bytes are allowed",
                           "rule");
  }
  return Status::Ok();
}

Status ValidateRuleId(std::string_view id) {
  bool ok =
      !id.empty() && id.size() <= kMaxRuleIdBytes && std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_' || c == '.';
      });
  if (!ok) {
    return InvalidArgument("id is invalid: use 1-" + std::to_string(kMaxRuleIdBytes) +
                               " characters of [A-Za-z0-9_.-] (a UUID)",
                           "id");
  }
  return Status::Ok();
}

Status ValidateRuleTags(const std::vector<std::string>& tags) {
  MNEMO_RETURN_IF_ERROR(ValidateTags(tags, "tags"));
  for (const std::string& t : tags) {
    if (t.starts_with(rules::kSourceTagPrefix)) {
      return InvalidArgument(
          "tags: \"source:\" is reserved (a rule's source is given by the source parameter)",
          "tags");
    }
  }
  return Status::Ok();
}

}  // namespace mnemo

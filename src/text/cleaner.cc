#include "text/cleaner.h"

#include <unicode/parseerr.h>
#include <unicode/regex.h>
#include <unicode/stringpiece.h>
#include <unicode/unistr.h>
#include <unicode/utypes.h>

#include <array>
#include <climits>
#include <exception>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/json_limits.h"
#include "text/strip.h"
#include "text/utf8.h"

namespace mnemo::text {

struct Cleaner::Compiled {
  // patterns[i] belongs to step i; null for steps without a regex.
  std::vector<std::unique_ptr<icu::RegexPattern>> patterns;
};

namespace {

using nlohmann::json;
using Kind = CleanerStepKind;

// The request parameter that parse errors are about.
constexpr std::string_view kField = "cleaner";

struct KindName {
  Kind kind;
  std::string_view name;
};
constexpr std::array<KindName, 8> kKindNames = {{
    {Kind::kJsonField, "json_field"},
    {Kind::kJsonPointer, "json_pointer"},
    {Kind::kStripHtml, "strip_html"},
    {Kind::kStripAnsi, "strip_ansi"},
    {Kind::kRegexRemove, "regex_remove"},
    {Kind::kRegexExtract, "regex_extract"},
    {Kind::kCollapseWhitespace, "collapse_whitespace"},
    {Kind::kTruncate, "truncate"},
}};

constexpr std::string_view kAllowedSteps =
    "json_field, json_pointer, strip_html, strip_ansi, regex_remove, regex_extract, "
    "collapse_whitespace or truncate";

std::optional<Kind> KindFromName(std::string_view name) {
  for (const KindName& k : kKindNames) {
    if (k.name == name) return k.kind;
  }
  return std::nullopt;
}

bool TakesString(Kind kind) {
  return kind == Kind::kJsonField || kind == Kind::kJsonPointer || kind == Kind::kRegexRemove ||
         kind == Kind::kRegexExtract;
}

std::string StepPrefix(size_t number) { return "cleaner step " + std::to_string(number); }
std::string StepPrefix(size_t number, Kind kind) {
  return StepPrefix(number) + " (" + std::string(CleanerStepName(kind)) + ")";
}

Status SpecError(std::string message) {
  return InvalidArgument(std::move(message), std::string(kField));
}

// At most 40 code points of `s`, marked when cut: error messages quote
// user input without repeating a 4 KB pattern.
std::string Shorten(std::string_view s) {
  constexpr size_t kShown = 40;
  const size_t bytes = Utf8PrefixBytes(s, kShown);
  if (bytes == s.size()) return std::string(s);
  return std::string(s.substr(0, bytes)) + "\xE2\x80\xA6";
}

std::string Describe(const json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  return Shorten(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

// RFC 6901: empty, or "/"-separated tokens where '~' escapes only 0 and 1.
bool IsJsonPointer(std::string_view p) {
  if (p.empty()) return true;
  if (p.front() != '/') return false;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '~' && (i + 1 == p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  }
  return true;
}

// ---- parsing spec JSON into steps -----------------------------------------

// An integer JSON value within int64, or nullopt.
std::optional<int64_t> IntegerValue(const json& v) {
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return static_cast<int64_t>(u);
  }
  if (v.is_number_integer()) return v.get<int64_t>();
  return std::nullopt;
}

std::string TruncateRangeMessage(const std::string& got) {
  return "value must be an integer number of code points between 1 and " +
         std::to_string(kMaxTruncate) + ", got " + got;
}

Result<Kind> StepKindOf(const json& j, size_t number) {
  std::optional<Kind> kind;
  for (const auto& item : j.items()) {
    if (item.key() == "group") continue;
    const std::optional<Kind> k = KindFromName(item.key());
    if (!k) {
      return SpecError(StepPrefix(number) + ": unknown step \"" + Shorten(item.key()) + "\": use " +
                       std::string(kAllowedSteps));
    }
    if (kind) {
      return SpecError(StepPrefix(number) + " names two steps, " +
                       std::string(CleanerStepName(*kind)) + " and " + item.key() +
                       ": put each step in an object of its own");
    }
    kind = k;
  }
  if (!kind) {
    return SpecError(
        StepPrefix(number) +
        (j.contains("group") ? " has \"group\" but no regex_extract" : " is an empty object") +
        ": a step is one of " + std::string(kAllowedSteps));
  }
  return *kind;
}

Result<CleanerStep> StepFromJson(const json& j, size_t number) {
  if (!j.is_object()) {
    return SpecError(StepPrefix(number) + " must be an object such as {\"truncate\": 2000}, got " +
                     Describe(j));
  }
  MNEMO_ASSIGN_OR_RETURN(const Kind kind, StepKindOf(j, number));
  const std::string prefix = StepPrefix(number, kind);
  const json& v = j.at(std::string(CleanerStepName(kind)));
  CleanerStep step{.kind = kind};
  if (TakesString(kind)) {
    if (!v.is_string()) {
      return SpecError(prefix + ": value must be a string, got " + Describe(v));
    }
    step.argument = v.get<std::string>();
  } else if (kind == Kind::kTruncate) {
    const std::optional<int64_t> limit = IntegerValue(v);
    if (!limit) return SpecError(prefix + ": " + TruncateRangeMessage(Describe(v)));
    step.limit = *limit;
  } else if (!v.is_boolean() || !v.get<bool>()) {
    return SpecError(prefix + ": value must be true (leave the step out to skip it), got " +
                     Describe(v));
  }
  if (const auto group = j.find("group"); group != j.end()) {
    if (kind != Kind::kRegexExtract) {
      return SpecError(prefix + ": \"group\" is allowed only with regex_extract");
    }
    const std::optional<int64_t> g = IntegerValue(*group);
    if (!g) {
      return SpecError(prefix + ": group must be an integer between 0 and the pattern's group " +
                       "count, got " + Describe(*group));
    }
    step.group = *g;
  }
  return step;
}

// ---- validation and compilation ------------------------------------------

Result<std::unique_ptr<icu::RegexPattern>> CompileRegex(std::string_view pattern) {
  UErrorCode status = U_ZERO_ERROR;
  UParseError where{};
  std::unique_ptr<icu::RegexPattern> compiled(
      icu::RegexPattern::compile(icu::UnicodeString::fromUTF8(icu::StringPiece(
                                     pattern.data(), static_cast<int32_t>(pattern.size()))),
                                 0, where, status));
  if (U_FAILURE(status) || compiled == nullptr) {
    std::string message = std::string("invalid ICU regular expression: ") + u_errorName(status);
    if (where.line > 1) {
      message +=
          " at line " + std::to_string(where.line) + ", offset " + std::to_string(where.offset);
    } else if (where.offset >= 0) {
      message += " at offset " + std::to_string(where.offset);
    }
    return InvalidArgument(std::move(message));
  }
  return compiled;
}

// Checks one step, clears the fields its kind does not use, and compiles
// its pattern into *pattern.
Status ValidateStep(CleanerStep& step, std::unique_ptr<icu::RegexPattern>* pattern) {
  if (!TakesString(step.kind)) step.argument.clear();
  if (step.kind != Kind::kRegexExtract) step.group = 0;
  if (step.kind != Kind::kTruncate) step.limit = 0;
  if (TakesString(step.kind)) {
    if (step.argument.size() > kMaxCleanerArgumentBytes) {
      return InvalidArgument("value is " + std::to_string(step.argument.size()) +
                             " bytes; at most " + std::to_string(kMaxCleanerArgumentBytes) +
                             " are allowed");
    }
    if (!IsValidUtf8(step.argument)) return InvalidArgument("value is not valid UTF-8");
  }
  switch (step.kind) {
    case Kind::kJsonField:
      if (step.argument.empty()) return InvalidArgument("value must name a member, got \"\"");
      return Status::Ok();
    case Kind::kJsonPointer:
      if (!IsJsonPointer(step.argument)) {
        return InvalidArgument("\"" + Shorten(step.argument) +
                               "\" is not a JSON pointer: use \"\" or \"/\"-separated tokens "
                               "such as \"/data/text\" (\"~\" only as ~0 or ~1)");
      }
      return Status::Ok();
    case Kind::kRegexRemove:
    case Kind::kRegexExtract: {
      if (step.argument.empty()) return InvalidArgument("the pattern must not be empty");
      MNEMO_ASSIGN_OR_RETURN(*pattern, CompileRegex(step.argument));
      // RegexPattern does not expose its group count; a matcher does.
      UErrorCode status = U_ZERO_ERROR;
      const std::unique_ptr<icu::RegexMatcher> probe((*pattern)->matcher(status));
      if (U_FAILURE(status) || probe == nullptr) {
        return Internal(std::string("ICU regular expression error ") + u_errorName(status));
      }
      const int32_t groups = probe->groupCount();
      if (step.group < 0 || step.group > groups) {
        return InvalidArgument("group must be between 0 and " + std::to_string(groups) +
                               " (the pattern's group count), got " + std::to_string(step.group));
      }
      return Status::Ok();
    }
    case Kind::kTruncate:
      if (step.limit < 1 || step.limit > kMaxTruncate) {
        return InvalidArgument(TruncateRangeMessage(std::to_string(step.limit)));
      }
      return Status::Ok();
    case Kind::kStripHtml:
    case Kind::kStripAnsi:
    case Kind::kCollapseWhitespace: return Status::Ok();
  }
  return InvalidArgument("unknown step kind: use " + std::string(kAllowedSteps));
}

// ---- JSON steps ----------------------------------------------------------

Result<json> ParseOutputJson(std::string_view text) {
  if (!internal::JsonDepthWithin(text, kMaxCleanerJsonDepth)) {
    return InvalidArgument("output nests deeper than " + std::to_string(kMaxCleanerJsonDepth) +
                           " levels");
  }
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    return InvalidArgument("output is not JSON (syntax error at byte " + std::to_string(e.byte) +
                           ")");
  }
}

// The text a selected JSON value contributes.
Result<std::string> ValueText(const json& v, const std::string& what) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return InvalidArgument(what + " is null");
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

Result<std::string> JsonField(std::string_view text, const std::string& name) {
  MNEMO_ASSIGN_OR_RETURN(const json doc, ParseOutputJson(text));
  if (!doc.is_object()) {
    return InvalidArgument(std::string("output is a JSON ") + doc.type_name() + ", not an object");
  }
  const auto it = doc.find(name);
  if (it == doc.end()) return NotFound("output has no member \"" + Shorten(name) + "\"");
  return ValueText(*it, "member \"" + Shorten(name) + "\"");
}

Result<std::string> JsonPointer(std::string_view text, const std::string& pointer) {
  MNEMO_ASSIGN_OR_RETURN(const json doc, ParseOutputJson(text));
  const json* found = nullptr;
  try {
    found = &doc.at(json::json_pointer(pointer));
  } catch (const json::exception&) {
    // out_of_range (missing) or parse_error (a non-numeric array index).
  }
  if (found == nullptr) return NotFound("output has nothing at \"" + Shorten(pointer) + "\"");
  return ValueText(*found, "the value at \"" + Shorten(pointer) + "\"");
}

// ---- regex steps -----------------------------------------------------------

Status RegexFailure(UErrorCode status) {
  if (status == U_REGEX_TIME_OUT) {
    return InvalidArgument("the regular expression ran past its time limit (" +
                           std::to_string(kRegexTimeLimit) + " ICU time units)");
  }
  if (status == U_REGEX_STACK_OVERFLOW) {
    return InvalidArgument("the regular expression ran past its backtracking stack limit (" +
                           std::to_string(kRegexStackLimitBytes) + " bytes)");
  }
  return Internal(std::string("ICU regular expression error ") + u_errorName(status));
}

// A matcher over `input` (which must outlive it) with the cleaner limits.
Result<std::unique_ptr<icu::RegexMatcher>> NewMatcher(const icu::RegexPattern& pattern,
                                                      const icu::UnicodeString& input) {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::RegexMatcher> m(pattern.matcher(input, status));
  if (U_SUCCESS(status)) m->setTimeLimit(kRegexTimeLimit, status);
  if (U_SUCCESS(status)) m->setStackLimit(kRegexStackLimitBytes, status);
  if (U_FAILURE(status) || m == nullptr) return RegexFailure(status);
  return m;
}

Result<icu::UnicodeString> ToUtf16(std::string_view text) {
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    return InvalidArgument("output is too long for a regular expression (2 GB)");
  }
  return icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
}

std::string ToUtf8(const icu::UnicodeString& s) {
  std::string out;
  s.toUTF8String(out);
  return out;
}

Result<std::string> RegexRemove(const icu::RegexPattern& pattern, std::string_view text) {
  MNEMO_ASSIGN_OR_RETURN(const icu::UnicodeString input, ToUtf16(text));
  MNEMO_ASSIGN_OR_RETURN(const std::unique_ptr<icu::RegexMatcher> m, NewMatcher(pattern, input));
  // Not replaceAll: it stops silently at the time limit and returns a
  // half-cleaned text with U_ZERO_ERROR.
  UErrorCode status = U_ZERO_ERROR;
  icu::UnicodeString kept;
  const icu::UnicodeString nothing;
  while (m->find(status) && U_SUCCESS(status)) m->appendReplacement(kept, nothing, status);
  if (U_FAILURE(status)) return RegexFailure(status);
  m->appendTail(kept);
  return ToUtf8(kept);
}

Result<std::string> RegexExtract(const icu::RegexPattern& pattern, int64_t group,
                                 std::string_view text) {
  MNEMO_ASSIGN_OR_RETURN(const icu::UnicodeString input, ToUtf16(text));
  MNEMO_ASSIGN_OR_RETURN(const std::unique_ptr<icu::RegexMatcher> m, NewMatcher(pattern, input));
  UErrorCode status = U_ZERO_ERROR;
  const bool found = m->find(status);
  if (U_FAILURE(status)) return RegexFailure(status);
  if (!found) return NotFound("no match");
  const icu::UnicodeString kept = m->group(static_cast<int32_t>(group), status);
  if (U_FAILURE(status)) return RegexFailure(status);
  return ToUtf8(kept);
}

Result<std::string> RunStep(const CleanerStep& step, const icu::RegexPattern* pattern,
                            std::string_view text) {
  switch (step.kind) {
    case Kind::kJsonField: return JsonField(text, step.argument);
    case Kind::kJsonPointer: return JsonPointer(text, step.argument);
    case Kind::kStripHtml: return StripHtml(text);
    case Kind::kStripAnsi: return StripAnsi(text);
    case Kind::kRegexRemove: return RegexRemove(*pattern, text);
    case Kind::kRegexExtract: return RegexExtract(*pattern, step.group, text);
    case Kind::kCollapseWhitespace: return CollapseWhitespace(text);
    case Kind::kTruncate:
      return std::string(text.substr(0, Utf8PrefixBytes(text, static_cast<size_t>(step.limit))));
  }
  return Internal("unknown cleaner step kind");
}

}  // namespace

std::string_view CleanerStepName(CleanerStepKind kind) {
  for (const KindName& k : kKindNames) {
    if (k.kind == kind) return k.name;
  }
  return "unknown";
}

Result<Cleaner> Cleaner::Parse(std::string_view spec_json) {
  // A spec is JSON that enters mnemo and is stored: a request body's depth.
  if (!internal::JsonDepthWithin(spec_json)) {
    return internal::CheckJsonLimits(spec_json, kField, /*max_bytes=*/-1);
  }
  try {
    json spec;
    try {
      spec = json::parse(spec_json);
    } catch (const json::parse_error& e) {
      return SpecError("cleaner is not valid JSON (syntax error at byte " + std::to_string(e.byte) +
                       "): use an array of steps such as [{\"json_field\": \"content\"}]");
    }
    if (!spec.is_array()) {
      return SpecError("cleaner must be an array of steps such as [{\"json_field\": \"content\"}]" +
                       std::string(", got ") + Describe(spec));
    }
    if (spec.size() > kMaxCleanerSteps) {
      return SpecError("cleaner has " + std::to_string(spec.size()) + " steps; at most " +
                       std::to_string(kMaxCleanerSteps) + " are allowed");
    }
    std::vector<CleanerStep> steps;
    steps.reserve(spec.size());
    for (size_t i = 0; i < spec.size(); ++i) {
      MNEMO_ASSIGN_OR_RETURN(CleanerStep step, StepFromJson(spec[i], i + 1));
      steps.push_back(std::move(step));
    }
    return FromSteps(std::move(steps));
  } catch (const std::exception& e) {
    return Internal(std::string("cleaner spec could not be read: ") + e.what());
  }
}

Result<Cleaner> Cleaner::FromSteps(std::vector<CleanerStep> steps) {
  if (steps.size() > kMaxCleanerSteps) {
    return SpecError("cleaner has " + std::to_string(steps.size()) + " steps; at most " +
                     std::to_string(kMaxCleanerSteps) + " are allowed");
  }
  auto compiled = std::make_shared<Compiled>();
  compiled->patterns.resize(steps.size());
  for (size_t i = 0; i < steps.size(); ++i) {
    const Status status = ValidateStep(steps[i], &compiled->patterns[i]);
    if (!status.ok()) return SpecError(StepPrefix(i + 1, steps[i].kind) + ": " + status.message());
  }
  Cleaner cleaner;
  cleaner.steps_ = std::move(steps);
  cleaner.compiled_ = std::move(compiled);
  return cleaner;
}

Result<std::string> Cleaner::Apply(std::string_view output) const {
  std::string text = SanitizeUtf8(output);
  try {
    for (size_t i = 0; i < steps_.size(); ++i) {
      Result<std::string> next = RunStep(steps_[i], compiled_->patterns[i].get(), text);
      if (!next.ok()) {
        return Status(next.status().code(),
                      StepPrefix(i + 1, steps_[i].kind) + ": " + next.status().message());
      }
      text = std::move(next).value();
    }
  } catch (const std::exception& e) {
    return Internal(std::string("cleaner failed unexpectedly: ") + e.what());
  }
  return text;
}

CleanedOutput Cleaner::CleanOrFallback(std::string_view output) const {
  if (empty()) return {.text = std::string(output)};
  Result<std::string> cleaned = Apply(output);
  if (!cleaned.ok()) {
    return {.text = std::string(output), .failed = true, .reason = cleaned.status().message()};
  }
  if (IsBlank(*cleaned)) {
    return {.text = std::string(output), .failed = true, .reason = "cleaner produced empty text"};
  }
  return {.text = std::move(cleaned).value()};
}

std::string Cleaner::ToJson() const {
  nlohmann::ordered_json spec = nlohmann::ordered_json::array();
  for (const CleanerStep& step : steps_) {
    const std::string name(CleanerStepName(step.kind));
    nlohmann::ordered_json object = nlohmann::ordered_json::object();
    if (TakesString(step.kind)) {
      object[name] = step.argument;
    } else if (step.kind == Kind::kTruncate) {
      object[name] = step.limit;
    } else {
      object[name] = true;
    }
    if (step.kind == Kind::kRegexExtract) object["group"] = step.group;
    spec.push_back(std::move(object));
  }
  return spec.dump();
}

}  // namespace mnemo::text

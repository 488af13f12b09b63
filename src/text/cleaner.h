// Declarative tool-output cleaners (spec 50, "Tool registry"): a list of
// steps, applied in order, that turns a tool's raw output into the text that
// takes part in computation. The raw output is always stored as received; a
// cleaner only changes what is indexed.
//
// Spec text is a JSON array of one-key objects (`group` may join
// regex_extract):
//
//   {"json_field": "content"}   the output is a JSON object; take its member
//   {"json_pointer": "/a/0/b"}  the output is JSON; take the RFC 6901 pointee
//       A string gives its text, a number or boolean its JSON text, an
//       object or array its compact JSON; null, a missing member or a
//       non-object output (json_field) fail. json_field looks at the
//       top-level object only. Outputs nested deeper than kMaxCleanerJsonDepth
//       fail.
//   {"strip_html": true}        StripHtml (strip.h): tags out, block tags
//       become line breaks, entities decoded
//   {"strip_ansi": true}        StripAnsi (strip.h): escape sequences and
//       control characters out, "\r" becomes "\n"
//   {"regex_remove": "re"}      removes every match of an ICU regex
//   {"regex_extract": "re", "group": 1}
//       keeps group `group` (default 0, the whole match) of the first match;
//       no match fails, a group that took no part in the match gives "".
//   {"collapse_whitespace": true}
//       CollapseWhitespace (strip.h): each run of Unicode whitespace becomes
//       one "\n" if it holds a line break, else one " "; trimmed
//   {"truncate": 2000}          keeps at most N code points (1..kMaxTruncate);
//       never cuts a UTF-8 sequence and adds no ellipsis.
//
// Regular expressions use ICU syntax (inline flags such as (?i) (?s) (?m)
// are available), run on UTF-16 and are bounded: kRegexTimeLimit and
// kRegexStackLimitBytes per step. Hitting a limit fails the step (a tool
// output is untrusted; std::regex recursion can overflow the stack).
//
// Apply first replaces ill-formed UTF-8 with U+FFFD, so every step and the
// result see valid UTF-8.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"

namespace mnemo::text {

// Limits on a cleaner spec, checked at parse time.
inline constexpr size_t kMaxCleanerSteps = 32;
inline constexpr size_t kMaxCleanerArgumentBytes = 4096;  // field, pointer or pattern
inline constexpr int64_t kMaxTruncate = 1'000'000;        // code points

// Tool outputs nested deeper than this fail json_field/json_pointer, so no
// recursive JSON code sees them. (An output is the tool's text, not JSON
// mnemo stores as JSON; a spec is, and gets a request body's depth,
// internal::kMaxJsonDepth of base/json_limits.h.)
inline constexpr int kMaxCleanerJsonDepth = 256;

// Budget of one regex step in ICU "time units" (RegexMatcher::setTimeLimit):
// one unit is 10,000 steps of the match engine, measured at 0.10-0.15 ms on
// a busy 2-core x86 VM, so 2000 units is ~200-300 ms of CPU. ICU counts from
// the matcher's reset, so the budget covers the whole step (every match of a
// regex_remove), not each match: an output of tens of MB may exhaust it
// legitimately and then falls back like any other failure.
inline constexpr int32_t kRegexTimeLimit = 2000;
// Backtracking stack per step (ICU's default is 8 MB).
inline constexpr int32_t kRegexStackLimitBytes = 1 << 20;

enum class CleanerStepKind {
  kJsonField,
  kJsonPointer,
  kStripHtml,
  kStripAnsi,
  kRegexRemove,
  kRegexExtract,
  kCollapseWhitespace,
  kTruncate,
};

// The spec name of a step kind ("json_field", "regex_extract", ...).
std::string_view CleanerStepName(CleanerStepKind kind);

struct CleanerStep {
  CleanerStepKind kind = CleanerStepKind::kCollapseWhitespace;
  // json_field: member name; json_pointer: the pointer; regex_*: the pattern.
  std::string argument;
  int64_t group = 0;  // regex_extract only: the capture group kept
  int64_t limit = 0;  // truncate only: maximum code points
};

// What CleanOrFallback hands to the caller: the computation text of a tool
// output and whether the cleaner failed (the caller counts failures).
struct CleanedOutput {
  std::string text;
  bool failed = false;
  std::string reason;  // empty unless failed
};

// A validated, compiled cleaner. Copies share the compiled regexes; Apply is
// const and safe to call from several threads at once.
class Cleaner {
 public:
  Cleaner() = default;  // no steps: Apply returns its input

  // Parses spec text (a JSON array of steps, "[]" for none). Errors are
  // InvalidArgument and name the failing step, 1-based:
  // `cleaner step 2 (regex_remove): invalid ICU regular expression: ...`.
  static Result<Cleaner> Parse(std::string_view spec_json);

  // Validates and compiles steps built in C++; same checks and messages.
  static Result<Cleaner> FromSteps(std::vector<CleanerStep> steps);

  // Runs every step on `output`. A failing step stops the run with a Status
  // whose message names it: NotFound when a member, pointee or match is
  // missing; InvalidArgument when the output does not fit (not JSON, null,
  // a regex limit hit); Internal for unexpected ICU errors. An empty result
  // is not an error here.
  Result<std::string> Apply(std::string_view output) const;

  // Apply with the spec 50 fallback: when the cleaner fails or leaves only
  // whitespace, `text` is `output` byte for byte and `failed` is set.
  // Without steps: `output`, not failed.
  CleanedOutput CleanOrFallback(std::string_view output) const;

  // Canonical spec text: compact JSON, one object per step with its key
  // first (regex_extract always carries "group"). Parse(ToJson()) gives an
  // equal cleaner.
  std::string ToJson() const;

  bool empty() const { return steps_.empty(); }
  const std::vector<CleanerStep>& steps() const { return steps_; }

 private:
  struct Compiled;  // ICU patterns, one slot per step (null for non-regex)

  std::vector<CleanerStep> steps_;
  std::shared_ptr<const Compiled> compiled_;
};

}  // namespace mnemo::text

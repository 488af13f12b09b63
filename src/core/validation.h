// Validation of entry fields (spec 10). Messages say what was wrong and what
// is allowed; the Status field names the parameter. The rules of the checked
// values (ValidateKey, ValidateNamespace, ValidateSessionId…) are
// storage/rules/value_rules.h's, which this header exports.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "mnemo/limits.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/rules/value_rules.h"  // IWYU pragma: export

namespace mnemo {

// kDisabled while memory.enabled = false: the first check of every call of a
// service (include/mnemo), one message for all.
Status CheckMemoryEnabled(bool enabled);
// Valid UTF-8 without NUL, not blank, at most 1 MiB.
Status ValidateContent(std::string_view content, std::string_view field = "value");
// A search or list filter: `namespace` or `namespace_prefix` (each a valid
// namespace), not both.
Status ValidateNamespaceFilter(const std::optional<std::string>& ns,
                               const std::optional<std::string>& prefix);
// A bring-your-own vector: 1-16384 finite numbers, not all zero.
Status ValidateEmbedding(const std::vector<float>& v, std::string_view field = "embedding");
// Up to 32 tags of 1-64 bytes, valid UTF-8 without control characters.
Status ValidateTags(const std::vector<std::string>& tags, std::string_view field = "tags");
// 0..kMaxContextTurns.
Status ValidateContextTurns(int context_turns, std::string_view field = "context_turns");
// since before until when both are given (field "until").
Status ValidateTimeWindow(const TimeWindow& window);
// max_results in 1..kMaxResults (field "max_results").
Status ValidateMaxResults(int max_results);
// kInvalidArgument naming `field` when `content` looks like a secret and
// `secrets` (security.secrets) is not "allow" (spec 10). Never echoes the
// secret.
Status CheckSecret(std::string_view secrets, std::string_view content, std::string_view field);
// recency_weight in [0, 1] (SearchRequest, EpisodicQuery, RecallRequest).
Status ValidateRecencyWeight(double weight);
// A graph term (subject, predicate, object; source, which may be empty when
// `allow_empty`): at most kMaxGraphTermBytes of UTF-8 without NUL.
Status ValidateGraphTerm(std::string_view value, std::string_view field, bool allow_empty = false);
// Text of at most `max_bytes` (a limit of mnemo/limits.h), valid UTF-8
// without NUL; blank only when `allow_empty` (else as ValidateContent).
Status ValidateText(std::string_view value, std::string_view field, size_t max_bytes,
                    bool allow_empty);
// A profile facet's value (memory.profile_put): content of at most
// kMaxFacetValueBytes.
Status ValidateFacetValue(std::string_view value, std::string_view field = "value");
// A time in milliseconds since the epoch that RFC 3339 can write: years
// 0001 to 9999 (0 is the epoch, the "not set" of stored rows).
Status ValidateTimeMs(TimeMs ms, std::string_view field);
// A count (evidence, accesses, attempts, cost): not negative.
Status ValidateCount(int64_t n, std::string_view field);
// A turn's or a context event's seq in its session: exact in a JSON number,
// and far enough from the int64 end that the next one never overflows.
inline constexpr int64_t kMaxSeq = (int64_t{1} << 53) - 1;
// A turn's or a context event's position in its session: 0..kMaxSeq.
Status ValidateSeq(int64_t seq, std::string_view field = "seq");
// A tool rule (memory.tool_rule_put, spec 30): its text (content of at
// most kMaxRuleBytes), its id (1-kMaxRuleIdBytes of [A-Za-z0-9_.-]) and its
// tags (ValidateTags, none starting with "source:").
Status ValidateRuleText(std::string_view rule);
Status ValidateRuleId(std::string_view id);
Status ValidateRuleTags(const std::vector<std::string>& tags);

}  // namespace mnemo

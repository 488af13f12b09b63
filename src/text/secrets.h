// The one list of secret patterns (spec 10), used everywhere: memory_store
// refuses content with a secret, episodic redaction and the audit log redact
// them. Hand-written scanners: linear time, no backtracking; clean text
// costs one pass over its bytes with a few compares per word.
//
// Patterns (kind names are stable; callers print the kind, never the secret):
//   "private key block"      -----BEGIN ... PRIVATE KEY----- up to its END line
//   "OpenAI-style API key"   sk-... (>= 20 more chars with letters and digits)
//   "GitHub token"           ghp_/gho_/ghu_/ghs_/ghr_ + >= 30, github_pat_ + >= 20
//   "Slack token"            xoxb-/xoxp-/xoxa-/xoxr-/xoxs- + >= 10
//   "AWS access key"         AKIA/ASIA + 16 [A-Z0-9]
//   "bearer token"           Bearer <token of >= 12 chars with a digit or mixed case>
//   "authorization header"   Authorization: <value holding such a token>
//   "password assignment"    password|passwd|pwd <op> <value>
//   "secret assignment"      secret <op> <value>
//   "token assignment"       token <op> <value>
//   "API key assignment"     api_key|api-key|apikey <op> <value>
//   "high-entropy token"     >= 32 chars, >= 2 of lower/upper/digit, Shannon
//                            entropy >= 3.5 bits/char, with one of password,
//                            secret, token, key, api, bearer, auth, credential
//                            in the 64 bytes before it
// Assignments: the keyword is a component of a name (DB_PASSWORD, apiToken,
// "password" in JSON), <op> is '=', ':', ':=' or '=>' (not '=='), the value
// is quoted or runs to a space or one of , ; & ) } ] < > and is not a
// placeholder ([REDACTED], ***, $VAR, ${...}, {{...}}, null, none, true,
// false). With ':' an unquoted value must look like a secret (a digit or
// symbol, mixed case, or >= 16 chars), so "Password: must be long" is prose.
//
// The match range is the secret itself: the value of an assignment or
// header, the token after "Bearer", the whole key or block. Sentence
// punctuation closing an unquoted value or a header (. ! ? : 。！？ at its
// end) is not part of it, so "Never use password=hunter2." redacts to
// "Never use password=[REDACTED]." (spec 30: a redacted edict keeps it).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::text {

struct SecretMatch {
  std::string_view kind;  // static storage
  size_t start = 0;       // byte range in the scanned text
  size_t end = 0;
};

// The first secret in `text`, if any.
std::optional<SecretMatch> FindSecret(std::string_view text);

// Every secret, in order, non-overlapping.
std::vector<SecretMatch> FindSecrets(std::string_view text);

// `text` with every secret replaced by "[REDACTED]"; *count (optional)
// receives the number replaced. Redacting twice changes nothing more.
std::string RedactSecrets(std::string_view text, int* count);

inline constexpr std::string_view kRedacted = "[REDACTED]";

}  // namespace mnemo::text

// The limits every JSON text mnemo reads is held to: a request body (HTTP,
// stdio, MCP) and every JSON that enters inside one as a string or through
// the C++ API and is stored (context events, tool call arguments, document
// meta, cleaner specs, import lines, saved tool registrations). The size
// limit is the configuration's server.max_body_bytes; the depth limit is
// kMaxJsonDepth. Stored JSON is checked against the depth again before any
// recursive code (dump, copy, comparison) sees it, so data written by an
// older version cannot exhaust a reader's stack either.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "mnemo/status.h"

namespace mnemo::internal {

// Deepest nesting of arrays/objects accepted. nlohmann's parser and
// destructor are iterative, but dumping, copying and comparing recurse:
// depth 80 000 overflowed an 8 MiB stack in memory.context_window.
inline constexpr int kMaxJsonDepth = 64;

// True when the brackets of `text` (outside strings) nest at most
// `max_depth` levels. A linear scan without recursion; the text need not be
// valid JSON.
bool JsonDepthWithin(std::string_view text, int max_depth = kMaxJsonDepth);

// Ok when `text` is at most `max_bytes` long and nests at most kMaxJsonDepth
// levels; else kInvalidArgument naming `field` and the limit, e.g.
// `event_json nests deeper than 64 levels: a JSON value may nest at most 64
// levels (the limit of a request body)`. Validity is the caller's check.
Status CheckJsonLimits(std::string_view text, std::string_view field, int64_t max_bytes);

// Why a request's JSON text was refused by ParseStrictJson.
enum class JsonTextProblem {
  kNone,
  kTooDeep,       // nests deeper than kMaxJsonDepth
  kSyntax,        // not JSON (UTF-8)
  kDuplicateKey,  // an object names one key twice
};

// What ParseStrictJson found wrong: the problem and, for the answer, what
// was wrong in words (naming the duplicate key).
struct JsonTextError {
  JsonTextProblem problem = JsonTextProblem::kNone;
  std::string message;
};

// Parses a request body (JSON-RPC over HTTP and stdio, MCP over HTTP and
// stdio: the one parser of every request). Refuses text nesting deeper than
// kMaxJsonDepth, text that is not JSON, and an object holding one key twice
// (RFC 8259 leaves that to the reader: the last would win here and the
// first in another parser, so two readers of one request could disagree).
// Returns the value, or a discarded value with `error` filled in.
nlohmann::json ParseStrictJson(std::string_view text, JsonTextError& error);

}  // namespace mnemo::internal

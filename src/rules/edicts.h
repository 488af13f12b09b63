// User edicts (spec 30, capture step 1): which sentences of a user message are
// instructions that forbid something ("Never email Sarah.", "别用 sudo。"),
// and which tool of the turn each one is about. Pure text functions; no
// storage.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mnemo::rules {

// One row of the alias table: a sentence word in `words` (English matched as
// a word, inflections like "emailing" included; Chinese as a substring) maps
// to the turn's tools whose name contains one of `tool_contains`.
struct Alias {
  std::vector<std::string> words;
  std::vector<std::string> tool_contains;
};

// The built-in table of spec 30 (replaced by `[[rules.aliases]]`).
const std::vector<Alias>& BuiltinAliases();

// Sentences of `text`, in order, each trimmed and keeping its closing
// punctuation: text::SplitSentences (text/sentences.h) with its defaults.
// Splits after . ! ? ; (followed by whitespace or the end) and after 。！？；
// and line breaks; never inside e-mail addresses, URLs, file names, decimals
// or common abbreviations ("e.g.", "Mr."); keeps every non-empty piece.
std::vector<std::string> SplitSentences(std::string_view text);

// Whether one sentence (an element of SplitSentences) is an edict: after
// list markers, opening quotes and optional openers ("please", "and", "also",
// 请, 也, a vocative or lead-in of 1-3 words before a comma or colon such as
// "hey bot," or "Note:") it begins with "never <verb>",
// "don't/don’t/dont/do not <verb>" or "stop <verb>ing"; in Chinese with
// 永远不要, 不要, 别, 不许, 禁止, 请勿 or 停止 followed by an action. Statements
// ("I never liked that report"), requests ("stop the server") and questions
// are not edicts.
bool IsEdict(std::string_view sentence);

// The tool of this turn an edict is about (spec 30): a tool whose name
// appears in the sentence (as a word; the longest such name wins); else one
// matched through `aliases` (most specific match wins); else the first tool
// of `tools`; else "*" (unscoped). `tools` are the turn's tool names in the
// order they first ran, already normalised.
std::string MatchTool(std::string_view sentence, const std::vector<std::string>& tools,
                      const std::vector<Alias>& aliases);

// The stored body of an edict: the sentence as the user wrote it, trimmed,
// without a leading list marker ("- ", "* ", "> ", "• ", "1) "), cut to
// kMaxEdictChars (240) code points at a character boundary. Ill-formed UTF-8
// becomes U+FFFD (valid text is unchanged).
std::string EdictBody(std::string_view sentence);

struct Edict {
  std::string tool_name;
  std::string body;
};

// Every edict of `user_message`, in message order, one per (tool, normalised
// body): the same edict said twice in a message is one.
std::vector<Edict> ExtractEdicts(std::string_view user_message,
                                 const std::vector<std::string>& tools,
                                 const std::vector<Alias>& aliases);

// The failure class of a failed call from its output (spec 30):
// "unknown_tool", "timeout", "not_found", "permission_denied",
// "connection_error", "parse_error", else "error".
std::string ClassifyFailure(std::string_view output);

}  // namespace mnemo::rules

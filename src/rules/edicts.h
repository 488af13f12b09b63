// User edicts (spec 30, capture step 1): which sentences of a user message are
// instructions that forbid something ("Never email Sarah.", "别用 sudo。"),
// and which tool each one is about (rules/tool_match.h). Pure text
// functions; no storage.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "rules/tool_match.h"

namespace mnemo::rules {

// Sentences of `text`, in order, each trimmed and keeping its closing
// punctuation: text::SplitSentences (text/sentences.h) with its defaults.
// Splits after . ! ? ; (followed by whitespace or the end) and after 。！？；
// and line breaks; never inside e-mail addresses, URLs, file names, decimals
// or common abbreviations ("e.g.", "Mr."); keeps every non-empty piece.
std::vector<std::string> SplitSentences(std::string_view text);

// The clauses of one sentence (an element of SplitSentences), each trimmed,
// in order: the sentence is cut at ", and", "，", "并且" and "而且" where an
// edict begins after more than an introduction (so "如果失败，不要重试" and
// "Never share my address, phone, and email." stay whole), and at " and "
// (no comma) only between two edicts ("Never push and never merge."). The
// joiner belongs to neither clause: "Never A, and do not B." gives "Never A"
// and "do not B.". ';' and '；' already end sentences.
std::vector<std::string_view> SplitClauses(std::string_view sentence);

// Whether one clause (or sentence) is an edict: a prohibition or standing
// instruction about what the agent does (spec 30). After list markers,
// opening quotes and an introduction of at most 8 parts — openers ("please",
// "and", "also", "so", 请, 也…), a vocative of 1-3 words before a comma or
// colon ("hey bot,"), a lead-in of at most 8 words before a colon ("I said it
// before:"), a condition of at most 12 words before a comma ("If it fails,",
// 如果…，), never one that reports someone else's words ("She said,") — it
// begins with "never <verb>", "don't/don’t/dont/do not <verb>" or "stop
// <verb>ing" (also as "can/could/would/will you [please] stop <verb>ing",
// even as a question); in Chinese with 永远不要, 不要, 别, 不许, 禁止, 请勿 or
// 停止 followed by an action. Not edicts: statements ("I never liked that
// report"), requests ("stop the server"), reminders, reassurances and
// fillers ("don't forget", "don't hesitate", "don't worry", "don't mind",
// "never mind", "don't bother", "stop worrying", 不要忘记, 别忘了, 别担心,
// 别着急), "don't you …" (but "don't you dare …" is one) and questions.
bool IsEdict(std::string_view clause);

// The stored body of an edict: the sentence as the user wrote it, trimmed,
// without a leading list marker ("- ", "* ", "> ", "• ", "1) "), cut to
// kMaxEdictChars (240) code points at a character boundary. Ill-formed UTF-8
// becomes U+FFFD (valid text is unchanged).
std::string EdictBody(std::string_view sentence);

struct Edict {
  std::string tool_name;
  std::string body;
};

// Every edict of `user_message` (each clause of each sentence), in message
// order, with its tool (ToolMatcher), one per (tool, normalised body): the
// same edict said twice in a message is one.
std::vector<Edict> ExtractEdicts(std::string_view user_message, const ToolCandidates& tools,
                                 const std::vector<Alias>& aliases);

// The failure class of a failed call from its output (spec 30):
// "unknown_tool", "timeout", "not_found", "permission_denied",
// "connection_error", "parse_error", else "error".
std::string ClassifyFailure(std::string_view output);

}  // namespace mnemo::rules

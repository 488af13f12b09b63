// The clause-level half of triple extraction (graph.h describes the rules):
// one normalised clause in, at most one triple out. Internal to src/context.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mnemo::context::internal {

// Who a line speaks for (graph.h): first person is the user's only for
// kUser and kUnknown.
enum class Speaker { kUnknown, kUser, kAssistant, kTool };

// The speaker a line starts with ("user:", "assistant:", "[tool] <name>:",
// case-blind, after spaces), if any; `line` is left after it.
std::optional<Speaker> TakeSpeaker(std::string_view& line);

struct ClauseTriple {
  std::string subject;
  std::string predicate;  // normalised
  std::string object;
};

// `sentence` with typographic apostrophes as ', ASCII whitespace runs as one
// ' ', trimmed, and "I'm" / "I've" spelled out ("I am", "I have").
std::string NormalizeSentence(std::string_view sentence);

// Whether a normalised sentence is a question (ends in ? or ？ before any
// closing quotes or brackets).
bool IsQuestion(std::string_view sentence);

// Whether a normalised sentence holds a hedge of spec 40.
bool IsHedged(std::string_view sentence);

// The clauses of a normalised sentence (graph.h), trimmed, empty ones left out.
std::vector<std::string> SplitClauses(std::string_view sentence);

// Clauses longer than this are skipped (graph.h).
inline constexpr size_t kMaxClauseBytes = 512;

// The triple of one clause, if any.
std::optional<ClauseTriple> ExtractClause(std::string_view clause, Speaker speaker);

}  // namespace mnemo::context::internal

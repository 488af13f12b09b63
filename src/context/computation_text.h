// The computation text of a turn (spec 00, spec 50 "Computation text"): the
// one function that decides how a turn's parts take part in indexing — FTS,
// vectors (and so segment drift and recall), and what is derived from them.
// It is never stored in place of the original text.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "context/tool_registry.h"
#include "mnemo/types.h"
#include "storage/documents.h"

namespace mnemo::context {

// A tool output whose cleaner failed (or left only whitespace): its raw
// output took part instead, and the engine counts the failure in the tool's
// statistics.
struct CleanerFailure {
  size_t call_index = 0;  // into the turn's tool calls
  std::string tool;       // the name as called
  std::string reason;
};

struct TurnComputation {
  // The user message, viewed, not copied: valid while the message passed to
  // ComputeTurnText is (archivist::IndexTurn moves that message into the
  // user row; everything that reads this view runs before).
  std::string_view user;
  // The assistant response, then, per tool call in call order, the part its
  // output takes (none, cleaned or raw); parts joined by "\n", empty parts
  // left out.
  std::string assistant;
  std::vector<CleanerFailure> failures;

  // user + "\n" + assistant (either may be empty): the whole turn's text.
  std::string Joined() const;
};

// Per tool call, in order:
//  - the tool is no_memory: its output takes no part (clean_output neither);
//  - the caller sent a non-blank clean_output: that text;
//  - the tool has a cleaner: the cleaned output; when the cleaner fails or
//    leaves only whitespace, the raw output, and a CleanerFailure;
//  - otherwise the raw output.
// Unknown tools take part with their raw output.
TurnComputation ComputeTurnText(const ToolRegistry& tools, std::string_view user_message,
                                std::string_view assistant_response,
                                std::span<const ToolCall> calls);

// Hook for `mnemo reindex`: the computation text of a stored document from
// which its summary, tags and entities are derived again. Today: the
// computation text stored beside the content (`search_text`), else the
// content. A document kind whose content holds tool outputs (pruned context
// events) recomputes it here from its content and `tools` once its format
// is fixed.
std::string DocumentComputationText(const ToolRegistry& tools, const storage::DocumentRow& doc);

}  // namespace mnemo::context

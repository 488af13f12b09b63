// The cheap per-turn work of the Archivist (spec 40, "Per turn"): the user and
// assistant episodic rows (redacted, with the lesson and the raw tool calls),
// their keyword index over computation text, and the markdown archive files.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "archivist/archive/markdown_archive.h"
#include "archivist/segments.h"
#include "archivist/topics.h"
#include "context/computation_text.h"
#include "context/tool_registry.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/episodic_store.h"

namespace mnemo::archivist {

struct TurnIndexOptions {
  // Store the rows under this claim (EpisodicStore::RecordTurn); null: a
  // plain append.
  const storage::TurnClaim* claim = nullptr;
  // The segment step taken in the rows' transaction (spec 40, Segmentation).
  SegmentPolicy segments;
  // The turn's vector for the drift check; empty: none. The caller embeds
  // the computation text before IndexTurn, outside the store's writer.
  std::span<const float> turn_vector;
};

struct IndexedTurn {
  storage::TurnRow user;
  storage::TurnRow assistant;
  // With TurnIndexOptions::claim: the earlier claim when the turn was
  // claimed before (then nothing was stored and `user`/`assistant` are
  // empty).
  std::optional<storage::TurnClaim> earlier;
  // The turn's computation text, with the cleaner failures; its `user`
  // view is cleared (the message it viewed moved into the user row, whose
  // search text is its content).
  context::TurnComputation computation;
  // The segment the turn belongs to, and the one it closed ("" = none, or
  // another call closed it).
  SegmentStep segment;
};

// "Tools that failed in this turn: a, b" (distinct names in call order), or
// "" when every call succeeded.
std::string LessonFor(const Turn& turn);

// The calls as stored on the assistant row: a JSON array of {name,
// arguments, success, output, duration_ms[, clean_output]}; "" without calls.
std::string ToolCallsJson(const Turn& turn);

// The calls of a stored `tool_calls_json` (ToolCallsJson's format), for
// recomputing an assistant row's search text; kInvalidArgument when it is
// not that format. "" gives no calls.
Result<std::vector<ToolCall>> ToolCallsFromJson(std::string_view tool_calls_json);

// What the keyword index reads for the assistant row: its computation text
// (the response and the tool outputs that take part, spec 50), then the
// lesson.
std::string AssistantSearchText(const context::TurnComputation& computation,
                                const std::string& lesson);

// The assistant row's search text recomputed from what it stores (content,
// lesson, tool_calls_json) with `tools`; `failures` (optional) receives the
// cleaner failures.
Result<std::string> RecomputeAssistantSearchText(const context::ToolRegistry& tools,
                                                 const storage::TurnRow& row,
                                                 std::vector<context::CleanerFailure>* failures);

// Redacts `turn` in place (messages, tool arguments and outputs): what
// security.redact_episodic asks of everything stored; returns how many
// secrets were replaced.
int RedactTurn(Turn& turn);

// The archive files of stored rows (ArchiveWriter writes them).
std::vector<ArchiveRow> ArchiveRowsOf(const IndexedTurn& turn);
// The archive row of one stored turn row.
ArchiveRow ArchiveRowOf(const storage::TurnRow& row);

// The turn's computation text (spec 50): tool outputs take part as `tools`
// says (null: every output as is).
context::TurnComputation TurnComputationOf(const Turn& turn, const context::ToolRegistry* tools);

// Appends the turn's two rows for `owner` (sequence numbers from the store),
// under options.claim when given, and steps the session's segment, all in
// one write transaction (EpisodicStore::RecordTurn): a failure stores
// nothing. `computation` is TurnComputationOf(turn, ...). The turn is stored
// as given: the caller redacts it first (RedactTurn) when
// security.redact_episodic says so. Its user message is moved, not copied,
// into the user row: read it there after (IndexedTurn::user.content; the
// turn's own is then empty, and lost when nothing was stored).
Result<IndexedTurn> IndexTurn(storage::EpisodicStore& episodic, const std::string& owner,
                              Turn& turn, TimeMs timestamp, context::TurnComputation computation,
                              const TurnIndexOptions& options);

}  // namespace mnemo::archivist

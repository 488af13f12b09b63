// The cheap per-turn work of the Archivist (spec 40, "Per turn"): the user and
// assistant episodic rows (redacted, with the lesson and the raw tool calls),
// their keyword index over computation text, and the markdown archive files.
#pragma once

#include <string>
#include <vector>

#include "archivist/markdown_archive.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/backend.h"

namespace mnemo::archivist {

struct TurnIndexOptions {
  // Replace secret-looking strings by [REDACTED] in everything stored
  // (security.redact_episodic).
  bool redact = true;
};

struct IndexedTurn {
  storage::TurnRow user;
  storage::TurnRow assistant;
  int redactions = 0;
};

// "Tools that failed in this turn: a, b" (distinct names in call order), or
// "" when every call succeeded.
std::string LessonFor(const Turn& turn);

// The calls as stored on the assistant row: a JSON array of {name,
// arguments, success, output, duration_ms[, clean_output]}; "" without calls.
std::string ToolCallsJson(const Turn& turn);

// What the keyword index reads for the assistant row: the response, the
// lesson and each call's output — its `clean_output` when the caller gave
// one (spec 50), else the output as stored.
std::string AssistantSearchText(const Turn& turn, const std::string& lesson);

// Redacts `turn` in place when `redact` (messages, tool arguments and
// outputs); returns how many secrets were replaced.
int RedactTurn(Turn& turn);

// The archive files of stored rows (ArchiveWriter writes them).
std::vector<ArchiveRow> ArchiveRowsOf(const IndexedTurn& turn);

// Appends the turn's two rows for `owner` (sequence numbers from the store).
Result<IndexedTurn> IndexTurn(storage::Backend& backend, const std::string& owner, Turn turn,
                              TimeMs timestamp, const TurnIndexOptions& options);

}  // namespace mnemo::archivist

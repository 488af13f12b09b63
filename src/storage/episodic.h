// Episodic rows of the Archivist (spec 40): every turn through
// memory.turn_complete becomes a user row and an assistant row, ordered by a
// sequence number per (owner, session) that the store assigns, never by
// timestamp. Their keyword index reads the computation text (spec 50), not
// the stored content.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/types.h"

namespace mnemo::storage {

struct TurnRow {
  int64_t id = 0;  // assigned by the store, > 0, never reused while open
  std::string owner = "local";
  std::string session_id;
  int64_t seq = 0;              // assigned by the store: 0, 1, 2, ... per (owner, session)
  std::string role;             // "user" | "assistant"
  std::string content;          // as stored (redacted by the caller when configured)
  std::string lesson;           // assistant rows: "Tools that failed in this turn: a, b"
  std::string tool_calls_json;  // assistant rows: the calls, raw ("" when none)
  TimeMs timestamp_ms = 0;
  int64_t cost_microdollars = 0;
  std::string agent_id;
};

struct TurnWrite {
  TurnRow row;              // id and seq are assigned
  std::string search_text;  // what the keyword index reads (the computation text)
};

struct TurnQuery {
  std::vector<std::string> terms;  // from text::QueryTerms
  std::optional<std::string> session_id;
  // Whose rows: every owner's when `all`, else `owner` only (episodic rows are
  // private to the principal that produced them).
  bool all = true;
  std::string owner;
  int limit = 20;
};

struct TurnHit {
  TurnRow row;
  double score = 0;  // normalised BM25 in [0, 1], the formula of entries (spec 20)
};

}  // namespace mnemo::storage

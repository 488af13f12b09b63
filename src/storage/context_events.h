// Context events (spec 50, "Context window and documents"): the working
// context a harness hands to memory.context_append, one event per turn. The
// event is stored byte for byte as received (`event_json`); the keyword index
// reads only its computation text (`search_text`). Events are ordered by a
// sequence number per (owner, session) that the store assigns in the writing
// transaction and never hands out twice, even after the events are deleted
// (pruned), so an archived run "seq<a>-<b>" is never confused with later
// events.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/types.h"
#include "storage/values.h"

namespace mnemo::storage {

struct ContextEventRow {
  int64_t id = 0;  // assigned by the store, > 0, never reused while open
  std::string owner = "local";
  std::string session_id;
  int64_t seq = 0;          // assigned by the store: 0, 1, 2, ... per (owner, session)
  std::string event_json;   // as received
  std::string search_text;  // computation text the keyword index reads
  TimeMs timestamp_ms = 0;  // the event's own time (the caller's, else its arrival)
  TimeMs created_at = 0;
};

struct ContextEventQuery {
  std::vector<std::string> terms;  // from text::QueryTerms
  // Whose events: every owner's when `all`, else `owner`'s only.
  bool all = true;
  std::string owner;
  std::optional<SessionId> session_id;  // parsed (storage/values.h); nullopt: every session
  int limit = 20;
};

struct ContextEventHit {
  ContextEventRow row;
  double score = 0;  // normalised BM25 in [0, 1], the formula of entries and turns (spec 20)
};

}  // namespace mnemo::storage

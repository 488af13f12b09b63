// Idempotent turns (spec 40, memory.turn_complete `turn_id`): a turn id is
// claimed once per (owner, session), in the transaction that stores the
// turn's rows, and the first call's result is kept with the claim so a retry
// answers with it and stores nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mnemo/limits.h"
#include "mnemo/types.h"
#include "storage/episodic.h"
#include "storage/values.h"

namespace mnemo::storage {

// The session and the turn id come parsed (storage/values.h): the stores
// check neither again.
struct TurnKey {
  std::string owner = "local";
  SessionId session_id;
  TurnId turn_id;
};

struct TurnClaim {
  TurnKey key;
  // The seq of the turn's user row (its assistant row is first_seq + 1);
  // -1 when the turn stored no rows (episodic capture off).
  int64_t first_seq = -1;
  // What the first call answered, as its caller encoded it; "" until
  // FinishTurnClaim.
  std::string result;
  TimeMs claimed_at = 0;
};

struct TurnClaimOutcome {
  // True when this call made the claim (and stored `rows`); false when the
  // key was claimed before (nothing was written).
  bool claimed = false;
  std::vector<TurnRow> rows;  // the rows this call stored (empty unless claimed)
  TurnClaim claim;            // as stored: this call's, or the earlier one
};

// What EpisodicStore::RecordTurn did.
struct RecordedTurn {
  // True when this call stored the rows; false only when its claim's key was
  // claimed before (then nothing was written).
  bool stored = false;
  std::vector<TurnRow> rows;       // the rows this call stored, with id and seq
  std::optional<TurnClaim> claim;  // with a claim: as stored (this call's or the earlier one)
  SegmentChange segment;           // the segment change applied (StepSegment's result)
};

}  // namespace mnemo::storage

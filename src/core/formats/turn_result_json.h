// The stored form of a turn's result (memory.turn_complete with a turn_id,
// EpisodicStore::FinishTurnClaim): what a retry answers. The episodic rows are not
// copied: they are read back from the store by the claim's first_seq.
#pragma once

#include <string>
#include <string_view>

#include "mnemo/status.h"
#include "mnemo/types.h"

namespace mnemo {

// A JSON object: {"v":1,"segment_id","closed_segment_id","redactions",
// "rules_captured","new_rules":[rule...],"refreshed_rules":[rule...]}, a
// rule being {"id","tool_name","rule","priority","source","tags","owner",
// "created_at","updated_at"} (times in ms). user_row, assistant_row and
// replayed are not part of it.
std::string EncodeTurnResult(const TurnResult& result);

// The result EncodeTurnResult encoded (rows absent, replayed false);
// kInternal when `stored` is not that form.
Result<TurnResult> DecodeTurnResult(std::string_view stored);

}  // namespace mnemo

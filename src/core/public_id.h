// The ids mnemo publishes for rows the store numbers from one sequence that
// every principal shares (turns, context events). A storage id would tell a
// caller how many rows others stored between two of its own (issue 17 item
// 7); the published id is derived only from what the caller already knows
// — the row's owner, session and per-session seq — so it reveals nothing
// of anyone else's activity, and it is the same on every backend and after
// a backup is restored into a new store. It is never accepted as input.
#pragma once

#include <cstdint>
#include <string_view>

namespace mnemo::internal {

inline constexpr int kPublicIdBits = 53;  // exact in a JSON number (IEEE double)

// A positive id below 2^kPublicIdBits: the first bits of SHA-256 over
// (kind, owner, session_id, seq). Distinct rows collide with probability
// about n^2 / 2^54 for n rows of one kind.
int64_t PublicRowId(std::string_view kind, std::string_view owner, std::string_view session_id,
                    int64_t seq);

// PublicRowId for an episodic turn row.
int64_t PublicTurnId(std::string_view owner, std::string_view session_id, int64_t seq);

}  // namespace mnemo::internal

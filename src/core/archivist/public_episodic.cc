// Episodic rows as the public API shows them (core/archivist/public_episodic.h).

#include "core/archivist/public_episodic.h"

#include "core/public_id.h"
#include "core/validation.h"
#include "text/strip.h"

namespace mnemo {

EpisodicTurn ToEpisodicTurn(storage::TurnRow r) {
  return EpisodicTurn{.id = internal::PublicTurnId(r.owner, r.session_id, r.seq),
                      .session_id = std::move(r.session_id),
                      .seq = r.seq,
                      .role = std::move(r.role),
                      .content = std::move(r.content),
                      .lesson = std::move(r.lesson),
                      .tool_calls_json = std::move(r.tool_calls_json),
                      .timestamp = r.timestamp_ms,
                      .cost_microdollars = r.cost_microdollars,
                      .agent_id = std::move(r.agent_id),
                      .owner = std::move(r.owner)};
}

}  // namespace mnemo

// mnemo::Archivist — the per-turn entry point and episodic memory (spec 30
// capture, spec 40): a turn's rows, segments and their finalisation, the
// episodic reads, events, MEMORY.md and the markdown archive's queue.
// Episodic rows are the caller's own under ACL.
//
// Made by Engine::Open and handed out by Engine::archivist(); it lives as
// long as its Engine. Every call of a principal checks its request
// (include/mnemo/limits.h: kInvalidArgument naming the field and the limit)
// and answers kDisabled while memory.enabled = false.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "mnemo/services_fwd.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

class Archivist {
 public:
  // Made by Engine::Open only.
  explicit Archivist(const internal::Services& services) : services_(services) {}
  Archivist(const Archivist&) = delete;
  Archivist& operator=(const Archivist&) = delete;

  // memory.turn_complete: rule capture and tool statistics (spec 30); the
  // episodic rows (spec 40). user_message, assistant_response and each tool
  // call's output and clean_output hold at most kMaxContentBytes.
  Result<TurnResult> TurnComplete(const Principal& who, const Turn& turn);

  Result<std::vector<EpisodicHit>> EpisodicSearch(const Principal& who, const EpisodicQuery& q);
  // Every row of one session, in sequence order.
  Result<std::vector<EpisodicTurn>> SessionTurns(const Principal& who, std::string_view session_id);
  // Closes the session's open segment and finalises it (recap, events,
  // profile) in the background; `sync` waits. Idempotent.
  Result<SessionEndResult> SessionEnd(const Principal& who, std::string_view session_id,
                                      bool sync = false);
  // Segments of one session (every session when empty), oldest first.
  Result<std::vector<SegmentInfo>> Segments(const Principal& who, std::string_view session_id);
  Result<std::vector<EventInfo>> Events(const Principal& who, const EventsQuery& q);
  // Corrections (issue 44 section 3), as Knowledge's: a user changes its own
  // events, an admin (everyone while ACL is off) any principal's; another
  // principal's event answers kNotFound exactly like a missing one.
  // EventCorrect changes an event's text and/or type.
  Result<EventInfo> EventCorrect(const Principal& who, const EventCorrection& req);
  Status EventDelete(const Principal& who, std::string_view id);

  // Appends to or replaces a section of MEMORY.md / SKILL.md in the workspace
  // (whitelisted, locked across processes, written atomically).
  Result<MemoryMdReport> UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req);

  // Idle segments (spec 40, learning.session_idle_close_secs; 0 = never):
  // closes every open segment, of any principal, whose last turn is that
  // old by the engine's clock, and finalises it exactly as
  // memory.session_end would (recap, events, profile facets, document) on
  // the background worker; `sync` waits for that. Returns how many this call
  // closed. Also runs at every open; the daemon calls it every minute.
  Result<int64_t> CloseIdleSegments(bool sync = false);

  // The markdown archive's queue (learning.archive_queue_rows): rows waiting
  // now, the most that ever waited (never above `bound`), rows written and
  // rows that failed.
  ArchiveQueueStats ArchiveQueue() const;

 private:
  const internal::Services& services_;
};

}  // namespace mnemo

#pragma GCC visibility pop

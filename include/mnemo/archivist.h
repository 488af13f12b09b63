// mnemo::Archivist — the per-turn entry point and episodic memory (spec 30
// capture, spec 40): a turn's rows, segments and their finalisation, the
// episodic reads, events, MEMORY.md and the markdown archive's queue.
// Episodic rows are the caller's own under ACL.
//
// The Archivist itself: made by Engine::Open over the engine's episodic,
// document and graph stores, the vectors service (the embedder), Tools (how
// a tool's output is indexed), Rules (a turn's edicts and tool statistics)
// and the background worker, and handed out by Engine::archivist(); it
// lives as long as its Engine. It owns the archive writer, the LLM client
// and the recap vectors. Every call of a principal answers kDisabled while
// memory.enabled = false, then checks its request (include/mnemo/limits.h:
// kInvalidArgument naming the field and the limit) and does the work
// (src/core/archivist/archivist_*.cc).
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// The engine's own types, declared here only to be named (src/core,
// src/storage, src/archivist, src/llm); no caller can make one.
// Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
class SessionId;  // src/storage/values.h
namespace storage {
class DocumentStore;
class EpisodicStore;
class GraphStore;
struct TurnClaim;
struct TurnKey;
struct TurnRow;
}  // namespace storage
namespace internal {
class AuditLog;  // src/core/audit_log.h: null when [security.audit] is off
class BackgroundWorker;
}  // namespace internal
namespace archivist {
class ArchiveWriter;
}  // namespace archivist
namespace llm {
class ChatClient;
}  // namespace llm
struct ArchivistOptions;  // src/core/archivist/archivist_options.h
class RecallService;
class RecapVectors;
class VectorsService;
#pragma GCC visibility pop
class Admin;
class Engine;
class Knowledge;
class Rules;
class Tools;

class Archivist {
 public:
  // Made by Engine::Open: the stores, the services, the worker and the
  // options are the engine's. `llm` null: extractive recaps. Embeds earlier
  // recaps that lack a vector of the embedder on `worker`.
  [[gnu::visibility("hidden")]] Archivist(storage::EpisodicStore& episodic,
                                          storage::DocumentStore& documents,
                                          storage::GraphStore& graph, VectorsService& vectors,
                                          Tools& tools, Rules& rules,
                                          internal::BackgroundWorker& worker,
                                          std::unique_ptr<llm::ChatClient> llm,
                                          internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                                          std::shared_ptr<Logger> logger, ArchivistOptions options);
  // Drains the archive queue; the caller drains the worker first.
  ~Archivist();
  Archivist(const Archivist&) = delete;
  Archivist& operator=(const Archivist&) = delete;

  // memory.turn_complete: rule capture and tool statistics (spec 30); the
  // episodic rows (spec 40). user_message, assistant_response and each tool
  // call's output and clean_output hold at most kMaxContentBytes. The turn
  // is taken by value: a caller that moves it in hands its texts down
  // without a copy.
  Result<TurnResult> TurnComplete(const Principal& who, Turn turn);

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
  // What other services reach of the Archivist: the profile (Knowledge),
  // recaps for recall (RecallService), the recap vectors and erasure's part
  // outside storage (Admin).
  friend class Admin;
  friend class Knowledge;
  friend class RecallService;

  // The answer to a repeated turn_id waits this long at most for the first
  // call's result.
  static constexpr std::chrono::milliseconds kReplayWait{10000};
  // Waits until the archive files and segment finalisations queued so far
  // are written.
  void Flush();

  // The profile (Knowledge's, mnemo/knowledge.h).
  Result<std::vector<ProfileFacet>> Profile(const Principal& who, const ProfileRequest& req = {});
  Result<std::string> ProfileRender(const Principal& who);
  Result<ProfileFacet> ProfilePut(const Principal& who, std::string_view facet_type,
                                  std::string_view key, std::string_view value);
  // Corrections (issue 44 section 3; archivist_corrections.cc). A user
  // changes its own facets and events, an admin any principal's; another
  // principal's item answers kNotFound exactly like a missing one.
  // ProfileCorrect states `value` as the facet's current value at full
  // confidence (the old value goes to the history; a refold after an
  // erasure keeps the correction); kNotFound when the facet does not exist.
  Result<ProfileFacet> ProfileCorrect(const Principal& who, const FacetAddress& at,
                                      std::string_view value);
  // Deletes the facet with its history and statements.
  Status ProfileDelete(const Principal& who, const FacetAddress& at);

  // Recaps of closed segments for recall: keyword side over the recap text,
  // vector side over the recap vectors, fused like entries. `owner` "":
  // every owner's recaps.
  Result<std::vector<RecallHit>> RecallRecaps(const std::string& query,
                                              const std::vector<std::string>& terms, int limit,
                                              const std::string& owner = "");
  // Embeds the closed segments' recaps that lack a vector of the embedder's
  // signature; returns how many.
  Result<int64_t> FillMissingRecapVectors();
  // Erasure's part outside storage (spec 10, "Erasure"): the cached recap
  // vectors of `segment_ids` (or of every segment of `owner`), and the
  // archive files of `rows`; returns how many files were removed.
  void ForgetRecapVectors(const std::vector<std::string>& segment_ids,
                          const std::optional<std::string>& owner);
  [[gnu::visibility("hidden")]] Result<int64_t> EraseArchiveFiles(
      const std::vector<storage::TurnRow>& rows);
  // After storage erased `owner`'s session `session_id` and folded the
  // facets again: the graph's slot triples follow (archivist/profile/slot_graph.h,
  // FollowErasure), keeping none of the session's words.
  Status FollowSessionErasure(const std::string& owner, std::string_view session_id);

  Status ValidateTurn(const Turn& turn) const;
  // Records the session the turn's edict rules (new or refreshed) were
  // captured from, so that erasing the session erases them (issue 42).
  [[gnu::visibility("hidden")]] Status RecordRuleCaptures(const Principal& who,
                                                          const SessionId& session_id,
                                                          const TurnResult& result);
  // The episodic part into `result`: the rows of `turn` (already redacted
  // when they are to be; `redactions` counts what was replaced), the
  // archive files, the segment step. `cleaner_failed` receives the indexes
  // of the calls whose cleaner failed. With `claim` the rows are stored
  // under it; when the turn id was claimed before, nothing is stored and
  // `earlier` receives that claim. The turn's user message moves into the
  // user row (result.user_row).
  [[gnu::visibility("hidden")]] Status IndexTurn(const Principal& who, Turn& turn, int redactions,
                                                 TimeMs timestamp, const storage::TurnClaim* claim,
                                                 std::optional<storage::TurnClaim>& earlier,
                                                 TurnResult& result,
                                                 std::vector<size_t>& cleaner_failed);
  // The answer to a repeated turn_id: the earlier call's stored result
  // (waited for up to kReplayWait while that call may still be running,
  // not at all when `wait` is false) with its rows read back; replayed = true.
  [[gnu::visibility("hidden")]] Result<TurnResult> ReplayTurn(storage::TurnClaim claim, bool wait);
  // Turns (by claim key) whose call in this process ended without storing
  // its result under the claim: the server went away (a failover), so the
  // claim may have committed without a result, and no call will add one. A
  // repeat of such a turn through this process replays what was stored at
  // once instead of waiting kReplayWait for it. A call that claims the turn
  // afresh unmarks it.
  [[gnu::visibility("hidden")]] void MarkUnfinishedTurn(const storage::TurnKey& key,
                                                        bool unfinished);
  [[gnu::visibility("hidden")]] bool IsUnfinishedTurn(const storage::TurnKey& key);
  // Stores a turn's `encoded` result under its claim (FinishTurnClaim) once
  // the store takes it again, tried on a thread of its own for kReplayWait
  // after the failure: a server that went away in a failover is back within
  // seconds, and a repeat of the turn through another process, which cannot
  // know this call ended, waits for exactly that result (ReplayTurn).
  [[gnu::visibility("hidden")]] void StoreTurnResultLater(storage::TurnKey key,
                                                          std::string encoded);
  // Finalises a closed segment of (owner, session) on the worker.
  void PostFinalize(const std::string& owner, const std::string& session_id,
                    std::string segment_id);
  // Waits until every finalisation posted for (owner, session) is done.
  void AwaitFinalized(const std::string& owner, std::string_view session_id);

  storage::EpisodicStore& episodic_;
  storage::DocumentStore& documents_;
  storage::GraphStore& graph_;
  VectorsService& vectors_;
  Tools& tools_;
  Rules& rules_;
  internal::BackgroundWorker& worker_;
  internal::AuditLog* const audit_;  // null when [security.audit] is disabled
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::unique_ptr<const ArchivistOptions> options_;
  const std::unique_ptr<llm::ChatClient> llm_;
  // Recap vectors of the embedder's signature (null without an embedder).
  const std::unique_ptr<RecapVectors> recaps_;
  // The markdown archive of episodic rows, written in the background.
  const std::unique_ptr<archivist::ArchiveWriter> archive_;
  // Finalisations posted and not yet done, per (owner, session): what
  // memory.session_end waits for.
  std::mutex finalize_mu_;
  std::condition_variable finalize_cv_;
  std::map<std::pair<std::string, std::string>, int> finalizing_;  // guarded by finalize_mu_
  // MarkUnfinishedTurn's turns, the oldest dropped beyond a bound (a turn
  // dropped early only waits for its result again).
  std::mutex unfinished_mu_;
  std::set<std::string> unfinished_;           // guarded by unfinished_mu_
  std::deque<std::string> unfinished_by_age_;  // guarded by unfinished_mu_
  // StoreTurnResultLater's thread, started at its first use (guarded by
  // unfinished_mu_); its jobs stop early once closing_ is set.
  std::atomic<bool> closing_{false};
  std::unique_ptr<internal::BackgroundWorker> result_retries_;
};

}  // namespace mnemo

#pragma GCC visibility pop

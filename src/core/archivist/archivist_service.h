// The Archivist service (spec 40): a turn's episodic rows, segments and
// markdown archive; the finalisation of closed segments (recap, events,
// profile, document) on a background worker; the reads over them (episodic
// search, a session's turns, segments, events, the profile, recaps for
// recall) and MEMORY.md. It owns the archive writer, the LLM client and the
// recap vectors, and takes the episodic, document and graph stores, the
// vectors service (the embedder), the tools service (how a tool's output is
// indexed), the rules service (a turn's edicts and tool statistics), the
// shared background worker, the clock, the logger and its options. The
// caller checks that memory is enabled.
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "archivist/archive_writer.h"
#include "base/background_worker.h"
#include "context/tool_registry.h"
#include "core/archivist/recap_vectors.h"
#include "core/search/vectors_service.h"
#include "llm/chat_client.h"
#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/logger.h"
#include "mnemo/rules.h"
#include "mnemo/status.h"
#include "mnemo/tools.h"
#include "mnemo/types.h"
#include "storage/document_store.h"
#include "storage/episodic_store.h"
#include "storage/graph_store.h"

namespace mnemo {

// Built by ArchivistOptionsOf from the configuration, whose defaults are the only ones
// (mnemo/config.h): the members here restate none.
struct ArchivistOptions {
  bool memory_enabled{};         // memory.enabled: idle segments stay open while off
  bool acl_enabled{};            // memory.acl_enabled: each principal reads its own
  std::string secrets;           // security.secrets
  bool redact_episodic{};        // security.redact_episodic
  Config::Learning learning;     // [learning]
  Config::Search search;         // [search]: how recaps are fused for recall
  int64_t recap_token_budget{};  // llm.recap_token_budget
  // The segment drift check's floor: learning.min_cosine_similarity, or its
  // default for the configured embedder (spec 15).
  double min_cosine{};
  std::string workspace;     // MEMORY.md and SKILL.md live here
  std::string archive_root;  // <workspace>/memory_tree/content/episodic
  int64_t max_body_bytes{};  // server.max_body_bytes: a tool call's arguments
};

ArchivistOptions ArchivistOptionsOf(const Config& config, const std::string& workspace);

class ArchivistService {
 public:
  // `llm` null: extractive recaps. Embeds earlier recaps that lack a vector
  // of the embedder on `worker`.
  ArchivistService(storage::EpisodicStore& episodic, storage::DocumentStore& documents,
                   storage::GraphStore& graph, VectorsService& vectors, Tools& tools, Rules& rules,
                   internal::BackgroundWorker& worker, std::unique_ptr<llm::ChatClient> llm,
                   std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                   ArchivistOptions options);
  // Drains the archive queue; the caller drains the worker first.
  ~ArchivistService();
  ArchivistService(const ArchivistService&) = delete;
  ArchivistService& operator=(const ArchivistService&) = delete;

  // Archivist::TurnComplete (mnemo/archivist.h): one pipeline, the turn copied
  // and redacted at most once (archivist_turns.cc).
  Result<TurnResult> TurnComplete(const Principal& who, const Turn& turn);
  // The answer to a repeated turn_id waits this long at most for the first
  // call's result.
  static constexpr std::chrono::milliseconds kReplayWait{10000};
  // Waits until the archive files and segment finalisations queued so far
  // are written.
  void Flush();

  // Archivist::EpisodicSearch and the other reads (mnemo/archivist.h, knowledge.h).
  Result<std::vector<EpisodicHit>> EpisodicSearch(const Principal& who, const EpisodicQuery& q);
  Result<std::vector<EpisodicTurn>> SessionTurns(const Principal& who, std::string_view session_id);
  // Returns once the closed segment's recap, events, profile facets and
  // document are stored (and those of every other segment of the session
  // closed before): a read right after it sees them. `sync` also waits for
  // the rest of the worker's queue.
  Result<SessionEndResult> SessionEnd(const Principal& who, std::string_view session_id, bool sync);
  Result<std::vector<SegmentInfo>> Segments(const Principal& who, std::string_view session_id);
  Result<std::vector<EventInfo>> Events(const Principal& who, const EventsQuery& q);
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
  Result<EventInfo> EventCorrect(const Principal& who, const EventCorrection& req);
  Status EventDelete(const Principal& who, std::string_view id);
  // MEMORY.md and SKILL.md (admin role under ACL).
  Result<MemoryMdReport> UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req);

  // Recaps of closed segments for recall: keyword side over the recap text,
  // vector side over the recap vectors, fused like entries. `owner` "":
  // every owner's recaps.
  Result<std::vector<RecallHit>> RecallRecaps(const std::string& query,
                                              const std::vector<std::string>& terms, int limit,
                                              const std::string& owner = "");
  // Embeds the closed segments' recaps that lack a vector of the embedder's
  // signature; returns how many.
  Result<int64_t> FillMissingRecapVectors();
  // Closes (and finalises on the worker, as memory.session_end does) every
  // open segment whose last turn is learning.session_idle_close_secs old;
  // returns how many this call closed. `sync`: wait for the finalisation.
  Result<int64_t> CloseIdleSegments(bool sync);

  // Erasure's part outside storage (spec 10, "Erasure"): the cached recap
  // vectors of `segment_ids` (or of every segment of `owner`), and the
  // archive files of `rows`; returns how many files were removed.
  void ForgetRecapVectors(const std::vector<std::string>& segment_ids,
                          const std::optional<std::string>& owner);
  Result<int64_t> EraseArchiveFiles(const std::vector<storage::TurnRow>& rows);
  // After storage erased `owner`'s session `session_id` and folded the
  // facets again: the graph's slot triples follow (archivist/slot_graph.h,
  // FollowErasure), keeping none of the session's words.
  Status FollowSessionErasure(const std::string& owner, std::string_view session_id);

  // Archivist::ArchiveQueue (mnemo/archivist.h).
  ArchiveQueueStats ArchiveQueue() const {
    const archivist::ArchiveWriter::Counts c = archive_.counts();
    return {.bound = static_cast<int64_t>(c.bound),
            .depth = static_cast<int64_t>(c.depth),
            .peak = static_cast<int64_t>(c.peak),
            .written = c.written,
            .problems = c.problems};
  }
  const ArchivistOptions& options() const { return options_; }

 private:
  Status ValidateTurn(const Turn& turn) const;
  // Records the session the turn's edict rules (new or refreshed) were
  // captured from, so that erasing the session erases them (issue 42).
  Status RecordRuleCaptures(const Principal& who, const std::string& session_id,
                            const TurnResult& result);
  // The episodic part into `result`: the rows of `turn` (already redacted
  // when they are to be; `redactions` counts what was replaced), the
  // archive files, the segment step. `cleaner_failed` receives the indexes
  // of the calls whose cleaner failed. With `claim` the rows are stored
  // under it; when the turn id was claimed before, nothing is stored and
  // `earlier` receives that claim.
  Status IndexTurn(const Principal& who, const Turn& turn, int redactions, TimeMs timestamp,
                   const storage::TurnClaim* claim, std::optional<storage::TurnClaim>& earlier,
                   TurnResult& result, std::vector<size_t>& cleaner_failed);
  // The answer to a repeated turn_id: the earlier call's stored result
  // (waited for up to kReplayWait while that call is still running) with its
  // rows read back; replayed = true.
  Result<TurnResult> ReplayTurn(storage::TurnClaim claim);
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
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const ArchivistOptions options_;
  const std::unique_ptr<llm::ChatClient> llm_;
  // Recap vectors of the embedder's signature (null without an embedder).
  const std::unique_ptr<RecapVectors> recaps_;
  // The markdown archive of episodic rows, written in the background.
  archivist::ArchiveWriter archive_;
  // Finalisations posted and not yet done, per (owner, session): what
  // memory.session_end waits for.
  std::mutex finalize_mu_;
  std::condition_variable finalize_cv_;
  std::map<std::pair<std::string, std::string>, int> finalizing_;  // guarded by finalize_mu_
};

}  // namespace mnemo

// Engine::Impl: the state behind the public Engine. Private to src/core.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "archivist/archive_writer.h"
#include "base/background_worker.h"
#include "core/audit_log.h"
#include "core/context_window_service.h"
#include "core/documents_service.h"
#include "core/graph_service.h"
#include "core/hybrid_search.h"
#include "core/line_reader.h"
#include "core/recap_vectors.h"
#include "core/rules_service.h"
#include "core/tools_service.h"
#include "core/vectors_service.h"
#include "llm/chat_client.h"
#include "mnemo/engine.h"
#include "storage/stores.h"

namespace mnemo {

// The write that restores an imported entry as given (id, times, counters,
// flags); `now` stands in for a missing updated_at (import_v1.cc).
storage::EntryWrite WriteOfEntry(const Entry& e, TimeMs now);

// Hidden (its declaration in engine.h says so): not part of libmnemo's
// interface.
struct Engine::Impl {
  Config config;
  std::string workspace;  // absolute
  std::shared_ptr<Clock> clock;
  // Set by Engine::Open; standard error until then, so an Impl whose open
  // failed still has one to report through while it closes.
  std::shared_ptr<Logger> logger = StderrLogger();
  // Every store of the configured backend (storage/stores.h).
  storage::Stores stores;
  // The embedder and the vector spaces (core/vectors_service.h) over
  // stores.entries; declared before everything that embeds, so it is
  // destroyed (and writes its index files) after them.
  std::unique_ptr<VectorsService> vectors;

  // Tool-scoped rules (core/rules_service.h) over stores.entries.
  std::unique_ptr<RulesService> rules;
  // Facts stated and distilled (core/graph_service.h) over stores.graph.
  std::unique_ptr<GraphService> graph;
  // Documents (core/documents_service.h) over stores.documents and stores.graph.
  std::unique_ptr<DocumentsService> documents;
  // The context window (core/context_window_service.h) over stores.context_events,
  // archiving into stores.documents.
  std::unique_ptr<ContextWindowService> context_window;

  // Markdown archive of episodic rows (spec 40), written in the background;
  // drained when the engine closes.
  std::unique_ptr<archivist::ArchiveWriter> archive;
  std::string archive_root;  // <workspace>/memory_tree/content/episodic
  // Segment finalisation (recap, events, profile) runs here; declared after
  // the backend and the LLM client so it is destroyed (drained) first.
  std::unique_ptr<llm::ChatClient> llm;
  // Recap vectors of the embedder's signature, for recall (null without an
  // embedder).
  std::unique_ptr<RecapVectors> recaps;
  std::unique_ptr<internal::BackgroundWorker> segment_worker;
  // The tool registry (core/tools_service.h) over stores.entries.
  std::unique_ptr<ToolsService> tools;
  // Access counts that could not be written (entries.cc), and when the last
  // warning about them was printed.
  std::atomic<int64_t> access_count_failures{0};
  std::atomic<TimeMs> access_warning_at{0};

  // Whose entries `who` may read: everything while ACL is off or for admins.
  storage::ReadScope ScopeFor(const Principal& who) const;
  bool IsAdmin(const Principal& who) const;
  // kDisabled when memory.enabled = false.
  Status CheckEnabled() const;

  // Access counts are best effort: a read whose count cannot be written (a
  // full or read-only disk, a write lock held elsewhere) still answers.
  // Counts the failure and prints a warning at most once a minute
  // (entries.cc).
  void NoteAccessCountFailure(const Status& s);

  // Entries (entries.cc).
  Result<StoreResult> Store(const Principal& who, const StoreRequest& req);
  Result<Entry> Get(const Principal& who, const GetRequest& req);
  Result<bool> Forget(const Principal& who, const ForgetRequest& req);
  Result<Entry> MarkUseful(const Principal& who, const GetRequest& req);
  Result<ListPage> List(const Principal& who, const ListRequest& req);
  Result<Stats> GetStats(const Principal& who);

  // Search (search.cc).
  Result<SearchResponse> Search(const Principal& who, const SearchRequest& req);
  Result<RecallResponse> Recall(const Principal& who, const RecallRequest& req);
  // Recaps of closed segments for recall: keyword side over the recap text,
  // vector side over the recap vectors, fused like entries (episodic.cc).
  // Embeds the closed segments' recaps that lack a vector of the embedder's
  // signature; returns how many (episodic.cc).
  Result<int64_t> FillMissingRecapVectors();
  // `owner` "": every owner's recaps.
  Result<std::vector<RecallHit>> RecallRecaps(const std::string& query,
                                              const std::vector<std::string>& terms, int limit,
                                              const std::string& owner = "");
  // Hybrid search parts (hybrid_search.cc): picks the vector space and query
  // vector (or records why the vector side is degraded), then gathers the
  // candidates of both sides with both signals.
  Status PrepareVectorSide(const SearchRequest& req, HybridQuery* q,
                           std::optional<std::string>* degraded);
  Result<std::vector<Candidate>> CollectCandidates(const HybridQuery& q);

  // Reindex (reindex.cc).
  Result<ReindexReport> Reindex(const Principal& who, const ProgressFn& progress);

  // The audit log ([security.audit]; null when disabled).
  std::unique_ptr<internal::AuditLog> audit;

  // memory.path_protected (path_guard.cc).
  Result<PathCheck> PathProtected(std::string_view path);

  // Hygiene (hygiene.cc).
  static constexpr TimeMs kHygieneIntervalMs = 12LL * 60 * 60 * 1000;
  Result<HygieneReport> RunHygiene(const Principal& who);
  Result<HygieneReport> RunHygieneNow(TimeMs now);
  Result<std::optional<HygieneReport>> RunHygieneIfDue();

  // memory.turn_complete (turns.cc): the Archivist's rows, then the rules
  // service's capture and statistics.
  Result<TurnResult> TurnComplete(const Principal& who, const Turn& turn);
  Status ValidateTurn(const Turn& turn) const;

  // The Archivist (episodic.cc).
  Result<std::vector<EpisodicHit>> EpisodicSearch(const Principal& who, const EpisodicQuery& q);
  Result<std::vector<EpisodicTurn>> SessionTurns(const Principal& who, std::string_view session_id);
  Result<MemoryMdReport> UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req);
  // Context block (context_build.cc).
  Result<ContextBlock> ContextBuild(const Principal& who, const ContextBuildRequest& req);
  Result<SessionEndResult> SessionEnd(const Principal& who, std::string_view session_id, bool sync);
  Result<std::vector<SegmentInfo>> Segments(const Principal& who, std::string_view session_id);
  Result<std::vector<EventInfo>> Events(const Principal& who, const EventsQuery& q);
  Result<std::vector<ProfileFacet>> Profile(const Principal& who, const ProfileRequest& req = {});
  Result<std::string> ProfileRender(const Principal& who);
  Result<ProfileFacet> ProfilePut(const Principal& who, std::string_view facet_type,
                                  std::string_view key, std::string_view value);
  // The LLM client (when [llm] is configured) and the segment worker.
  Status OpenArchivist();
  // Finalises a closed segment on the worker.
  void PostFinalize(std::string segment_id);
  // The per-turn episodic work of memory.turn_complete into `result`.
  // `cleaner_failed` receives the indexes of the calls whose cleaner failed.
  // With `claim` the rows are stored under it; when the turn id was claimed
  // before, nothing is stored and `earlier` receives that claim.
  Status IndexTurnRows(const Principal& who, const Turn& turn, TimeMs timestamp,
                       const storage::TurnClaim* claim, std::optional<storage::TurnClaim>& earlier,
                       TurnResult& result, std::vector<size_t>& cleaner_failed);
  // Every tool the engine knows for `who`'s edicts (spec 30, capture):
  // registered tools, tools with statistics, tools with rules; by name.
  Result<std::vector<std::string>> KnownTools(const Principal& who);
  // The answer to a repeated turn_id: the earlier call's stored result
  // (waited for up to kReplayWait while that call is still running) with its
  // rows read back; replayed = true.
  static constexpr std::chrono::milliseconds kReplayWait{10000};
  Result<TurnResult> ReplayTurn(storage::TurnClaim claim);
  // Closes (and finalises on the worker, as memory.session_end does) every
  // open segment whose last turn is learning.session_idle_close_secs old;
  // returns how many this call closed. `sync`: wait for the finalisation.
  Result<int64_t> CloseIdleSegments(bool sync);

  // Reindex of what is derived from text with the current registry
  // (reindex.cc).
  Status ReindexDerivedText(ReindexReport& report);

  // Erasure (erasure.cc; spec 10, "Erasure").
  Result<ErasureCounts> SessionForget(const Principal& who, const SessionForgetRequest& req);
  Result<ErasureCounts> PrincipalForget(const Principal& who, std::string_view principal);
  // The owner's documents derived from `session_id`: segment documents and
  // context-prune archives.
  Result<std::vector<std::string>> SessionDocumentIds(const std::string& owner,
                                                      std::string_view session_id);

  // Export (export.cc) and import (import.cc; version 1: import_v1.cc).
  Status ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options);
  Result<ImportReport> ImportJsonl(const Principal& who, std::istream& in,
                                   const ProgressFn& progress, const ImportOptions& options);
  Result<ImportReport> ImportV1(const Principal& who, internal::LineReader& lines,
                                const ProgressFn& progress);
  Result<ImportReport> ImportV2(const Principal& who, const nlohmann::json& header,
                                internal::LineReader& lines, const ProgressFn& progress,
                                const ImportOptions& options);
  // What already holds rows visible to `who` ("3 entries, 12 turns"), "" when nothing.
  Result<std::string> NonEmptyParts(const Principal& who);

 private:
  Result<std::optional<Entry>> ResolveForRead(const Principal& who, const GetRequest& req);
};

}  // namespace mnemo

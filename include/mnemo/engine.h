// mnemo::Engine — the public entry point of libmnemo.
//
// Thread-safety: one Engine serves many threads at once; every member function
// may be called concurrently. Errors are returned as Status/Result, never
// thrown.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/config.h"
#include "mnemo/context_window_types.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

// libmnemo is built with hidden visibility: it exports what include/mnemo
// declares, and nothing else (docs/architecture.md, "Target graph").
#pragma GCC visibility push(default)

namespace mnemo {

namespace internal {
// src/core/services.h. Hidden: no part of libmnemo's interface.
struct __attribute__((visibility("hidden"))) Services;
}  // namespace internal

struct EngineOptions {
  // Workspace folder (spec 00). Created with mode 0700 when missing.
  // Empty: resolved by ResolveWorkspace("").
  std::string workspace;
  Config config;
  std::shared_ptr<Clock> clock;  // null: SystemClock()
  // Where warnings of background work go (mnemo/logger.h). Null: standard
  // error at MNEMO_LOG's level (Open fails when MNEMO_LOG is not a level).
  std::shared_ptr<Logger> logger;
};

// --workspace DIR, else $MNEMO_WORKSPACE, else
// ${XDG_DATA_HOME:-$HOME/.local/share}/mnemo.
std::string ResolveWorkspace(std::string_view flag);

// Called with (done, total) during long operations; total may be 0 if unknown.
using ProgressFn = std::function<void(int64_t done, int64_t total)>;

class Engine {
 public:
  // Opens (and creates, migrating forward if needed) the workspace's storage.
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);

  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const Config& config() const;
  // The engine's logger, for its transports to report through.
  Logger& logger() const;
  // Absolute path of the workspace folder.
  const std::string& workspace() const;

  // The five memory tools (spec 10).
  Result<StoreResult> Store(const Principal& who, const StoreRequest& req);
  // Counts an access, best effort: when the count cannot be written (a full
  // or read-only disk) the entry is returned uncounted and a warning is
  // printed. kNotFound when missing or not readable by `who`.
  Result<Entry> Get(const Principal& who, const GetRequest& req);
  // Returns whether an entry was deleted.
  Result<bool> Forget(const Principal& who, const ForgetRequest& req);
  Result<SearchResponse> Search(const Principal& who, const SearchRequest& req);
  // kDisabled when ACL is on.
  Result<RecallResponse> Recall(const Principal& who, const RecallRequest& req);

  // Increments useful_count (exempts an entry from hygiene at >= 3).
  Result<Entry> MarkUseful(const Principal& who, const GetRequest& req);
  Result<ListPage> List(const Principal& who, const ListRequest& req);
  Result<Stats> GetStats(const Principal& who);

  // Tool-scoped rules (spec 30). Rules are the caller's own under ACL.
  // Upsert by id; without an id an equal rule (same tool, same text up to
  // case and whitespace) is refreshed instead of duplicated.
  Result<ToolRule> PutToolRule(const Principal& who, const ToolRulePut& req);
  // nullopt when there is no such rule (or the caller may not read it).
  Result<std::optional<ToolRule>> GetToolRule(const Principal& who, std::string_view tool,
                                              std::string_view id);
  // One tool's rules in list order (priority, then most recently updated);
  // every tool's (grouped by tool) when `tool` is absent.
  Result<std::vector<ToolRule>> ListToolRules(const Principal& who,
                                              std::optional<std::string_view> tool);
  Result<bool> DeleteToolRule(const Principal& who, std::string_view tool, std::string_view id);
  // The pinned block for the system prompt: every critical rule and the most
  // recent `rules.prompt_cap` high rules of `tools` (empty: every tool), plus
  // the unscoped ones. Byte-stable.
  Result<PromptRules> ToolRulesForPrompt(const Principal& who,
                                         const std::vector<std::string>& tools = {});

  // The per-turn entry point (memory.turn_complete): rule capture and tool
  // statistics (spec 30); the Archivist's episodic memory (spec 40).
  Result<TurnResult> TurnComplete(const Principal& who, const Turn& turn);

  // The Archivist's read side (spec 40). Episodic rows are the caller's own
  // under ACL.
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
  Result<std::vector<ProfileFacet>> Profile(const Principal& who, const ProfileRequest& req = {});
  // States a facet directly (confidence 0.9, spec 40): merged like an
  // observed one, so it replaces weaker values and counts as evidence.
  Result<ProfileFacet> ProfilePut(const Principal& who, std::string_view facet_type,
                                  std::string_view key, std::string_view value);
  // "### Preference" / "- key: value (confirmed Nx)" sections.
  Result<std::string> ProfileRender(const Principal& who);

  // Erasure (spec 10, "Erasure"). Removes one conversation and everything
  // derived from it: turns, segments and recaps, events, the profile
  // evidence its segments gave (a facet with no other evidence goes), its
  // segment documents and context-prune archives with the triples
  // extracted from them, its context events, its markdown archive files,
  // recap vectors and every keyword index row; SQLite's free pages and text
  // index keep none of it (docs/storage.md). The session is `who`'s own;
  // req.owner names another principal's for an admin (or with ACL off) and
  // is ignored for a user, so another principal's session answers exactly
  // like a missing one: all counts 0. Waits for the session's background
  // work (segment finalisation, archive files) first.
  Result<ErasureCounts> SessionForget(const Principal& who, const SessionForgetRequest& req);
  // Everything `principal` owns: entries in every namespace (tool rules and
  // statistics too) with their vectors, and every session as SessionForget
  // removes it, every facet, document and triple. Admin only under ACL
  // (kPermissionDenied). The vector index files are rewritten.
  Result<ErasureCounts> PrincipalForget(const Principal& who, std::string_view principal);

  // Appends to or replaces a section of MEMORY.md / SKILL.md in the workspace
  // (whitelisted, locked across processes, written atomically).
  Result<MemoryMdReport> UpdateMemoryMd(const Principal& who, const MemoryMdRequest& req);

  // The graph (spec 50). Triples belong to the principal that stated them or
  // whose documents they were extracted from; while ACL is off every caller
  // reads every owner's. An upsert of a single-valued predicate (lives_in,
  // works_at, timezone, name, ...) ends the subject's current triple with
  // another object (valid_to), which stays queryable as history. Fields are
  // validated by name: subject, predicate and object non-blank, at most
  // 1024 bytes; confidence in [0, 1].
  Result<GraphUpsertResult> GraphUpsert(const Principal& who, const GraphUpsertRequest& req);
  // Subject, predicate, then current before history and newest first.
  Result<std::vector<Triple>> GraphQuery(const Principal& who, const GraphQueryRequest& req);

  // Corrections (issue 44 section 3): what the Archivist and the graph
  // derived, corrected or deleted. A user changes its own items, an admin
  // (everyone while ACL is off) any principal's; another principal's item
  // answers kNotFound exactly like a missing one, which names the id or the
  // (facet_type, key). A deletion leaves no trace in reads, the export, the
  // context block or the text indexes (as erasure: docs/storage.md).
  // ProfileCorrect makes `value` the facet's current value (the old one
  // goes to the history) at full confidence, and it stays so when an
  // erasure folds the facet again; ProfileDelete drops the facet with its
  // history and the statements it was folded from. EventCorrect changes an
  // event's text and/or type. GraphCorrect restates a current triple (the
  // wrong one is deleted, the corrected one upserted as GraphUpsert does).
  Result<ProfileFacet> ProfileCorrect(const Principal& who, const FacetAddress& at,
                                      std::string_view value);
  Status ProfileDelete(const Principal& who, const FacetAddress& at);
  Result<EventInfo> EventCorrect(const Principal& who, const EventCorrection& req);
  Status EventDelete(const Principal& who, std::string_view id);
  Result<GraphUpsertResult> GraphCorrect(const Principal& who, const GraphCorrection& req);
  Status GraphDelete(const Principal& who, std::string_view id);

  // The memory context to inject for this turn (spec 50): relevant entries,
  // the profile, recaps of earlier segments, relevant turns and documents,
  // each within its share of the budget; the same store and request give
  // the same bytes.
  Result<ContextBlock> ContextBuild(const Principal& who, const ContextBuildRequest& req);

  // The tool registry (spec 50). Sources, a later one hiding an earlier one
  // of the same name: [[tools]] in mnemo.toml < RegisterTool(who, ...)
  // (memory.tool_register: persisted in the reserved namespace
  // `tool_registry`, shared by every process of the workspace) <
  // RegisterTool(spec) (this Engine only; may carry a C++ cleaner).
  // Invalid names or cleaner specs are kInvalidArgument naming the failing
  // step. A change applies to later turns; `mnemo reindex` applies it to
  // what is already stored. Persisting needs the admin role under ACL, and
  // a spec with `cleaner_fn` cannot be persisted (kInvalidArgument).
  Result<ToolInfo> RegisterTool(const Principal& who, const ToolSpec& spec);
  Result<ToolInfo> RegisterTool(const ToolSpec& spec);
  // Every tool in force, by name.
  Result<std::vector<ToolInfo>> ListTools(const Principal& who);

  // Embeds every entry that lacks a vector of the embedder's signature
  // (new signature, text changed, embedder failed earlier) and rebuilds the
  // vector index from storage. Progress counts entries embedded. Then
  // rebuilds what is derived from text with the current tool registry: each
  // assistant turn row's keyword index (from its stored response and tool
  // calls) and each document's summary, tags and entities. Stored text is
  // never changed.
  Result<ReindexReport> Reindex(const Principal& who, const ProgressFn& progress = {});

  // Appends one line to the audit log when [security.audit] is enabled (else
  // nothing). The transports call it for every method they run; direct C++
  // calls are not audited unless the caller does the same.
  void Audit(const Principal& who, const AuditEvent& event);

  // Whether `path` is part of mnemo's storage (spec 10, "Files"): inside the
  // workspace (database, -wal/-shm, index, archive, MEMORY.md/SKILL.md and
  // their lock, mnemo.toml), the markdown store, or the audit log and its
  // rotations; or another name (hard link) of one of those files. Symlinks
  // and `..` are resolved first; a relative path is taken from the working
  // directory of this process. Any principal may ask.
  Result<PathCheck> PathProtected(const Principal& who, std::string_view path);

  // Hygiene (spec 10) now: archives daily and custom entries not written for
  // memory.archive_after_days, deletes conversation entries past
  // memory.conversation_retention_days; core, useful_count >= 3 and system
  // namespaces are exempt. Admin only under ACL. Also runs by itself: at
  // open when 12 hours passed since the last run (by any process), and
  // through RunHygieneIfDue, which the daemon calls periodically.
  Result<HygieneReport> RunHygiene(const Principal& who);
  // The report when a run was due (and done), nullopt otherwise.
  Result<std::optional<HygieneReport>> RunHygieneIfDue();

  // Idle segments (spec 40, learning.session_idle_close_secs; 0 = never):
  // closes every open segment, of any principal, whose last turn is that
  // old by the engine's clock, and finalises it exactly as
  // memory.session_end would (recap, events, profile facets, document) on
  // the background worker; `sync` waits for that. Returns how many this call
  // closed. Also runs at every open; the daemon calls it every minute.
  Result<int64_t> CloseIdleSegments(bool sync = false);

  // Writes the vector index file of every embedding space that has changed
  // enough since its file was written (docs/storage.md "Vector index
  // files"), so that a restart after a crash replays a short tail of the
  // change log instead of rebuilding the index. Searches go on meanwhile.
  // The daemon calls it every index.save_interval_secs; closing the engine
  // does the same. OK when there is nothing to write; kUnavailable when a
  // file cannot be written (read-only folder, full disk): nothing is lost,
  // the next open replays or rebuilds.
  Status SaveVectorIndexes();

  // The markdown archive's queue (learning.archive_queue_rows): rows waiting
  // now, the most that ever waited (never above `bound`), rows written and
  // rows that failed. Thread-safe.
  ArchiveQueueStats ArchiveQueue() const;

  // A backup as JSONL, format version 2 (docs/storage.md "Export format"):
  // a header line {"mnemo_export": 2, "counts": {...}, ...}, then one line
  // per record ("type": entry, vector, turn, segment, event, facet,
  // document, context_event, triple) of everything the workspace holds
  // that `who` may read: everything for an admin (or with ACL off), else
  // the principal's own rows and public entries. Read in pages; the records
  // go to a temporary file first so the header can count them.
  Status ExportJsonl(const Principal& who, std::ostream& out, const ExportOptions& options = {});
  // Reads version 1 (one entry per line, no header: upserted by
  // owner/namespace/key, idempotent) or version 2 (a header line first).
  // Validates every line first; any bad line -> kInvalidArgument whose
  // message lists every bad line by number ("line 3: ...") and nothing is
  // imported. Version 2 also checks the header's counts against the lines,
  // and refuses a workspace that already holds rows (visible to `who`)
  // unless options.merge; then writes every record in one storage
  // transaction (Backend::Restore), and recomputes what is derived: keyword
  // index texts through the tool registry (the file's included), embedder
  // vectors of entries and recaps. Under ACL a user's rows all become theirs.
  Result<ImportReport> ImportJsonl(const Principal& who, std::istream& in,
                                   const ProgressFn& progress = {},
                                   const ImportOptions& options = {});

  // Memory kept by another tool (options.format: mcp-memory, mem0,
  // basic-memory, markdown, jsonl) read from `path`, a file or a folder
  // (docs/storage.md "Imports from other tools" maps each format). Every
  // file is parsed and checked first; a record that cannot be imported (a
  // malformed line, a missing field, a value mnemo refuses) is left out and
  // reported by file and line, the rest is written in one storage
  // transaction with what is derived (document fields, vectors). Keys and
  // ids are derived from the input, so a second run writes nothing new.
  // kInvalidArgument for an unknown format (the message lists the five),
  // kNotFound/kUnavailable for a path that cannot be read; then, as on a
  // failed write, nothing is written. Under ACL a user's records all become
  // theirs (mem0 memories of another user_id are skipped).
  Result<ForeignImportReport> ImportForeign(const Principal& who, const std::string& path,
                                            const ForeignImportOptions& options);

  // Documents (spec 50). Stored byte for byte; summary, tags and entities are
  // derived from the content. An owner's identical contents are stored once
  // (created = false, the first id). Scoped like episodic rows: the
  // caller's own under ACL, where another principal's document is kNotFound
  // (DocGet) or not deleted (DocDelete) exactly like a missing one.
  Result<DocumentPutResult> DocPut(const Principal& who, const DocumentPutRequest& req);
  // Counts an access, best effort like Get. kNotFound when missing or not
  // readable by `who`.
  Result<Document> DocGet(const Principal& who, std::string_view id);
  Result<std::vector<DocumentSearchHit>> DocSearch(const Principal& who,
                                                   const DocumentSearchRequest& req);
  Result<DocumentList> DocList(const Principal& who, const DocumentListRequest& req);
  // Returns whether a document was deleted.
  Result<bool> DocDelete(const Principal& who, std::string_view id);

  // The context window (spec 50). Events are the caller's own, per session.
  Result<ContextAppendResult> ContextAppend(const Principal& who, const ContextAppendRequest& req);
  // The newest `protected_count` events, taken newest first while they fit
  // the budget (the newest always, cut to the budget when it alone is
  // larger), then the older events that match the query, best first, each
  // when it still fits; returned in seq order. The rendered texts never sum
  // to more than budget_chars code points.
  Result<ContextWindow> GetContextWindow(const Principal& who, const ContextWindowRequest& req);
  // Removes every event but the newest `keep` from the window; the removed
  // events are archived as documents first (nothing is lost; a prune
  // repeated after a crash stores no duplicate).
  Result<ContextPruneResult> ContextPrune(const Principal& who, std::string_view session_id,
                                          int64_t keep);

  // src/core/engine_impl.h. Hidden although Engine is exported: the
  // engine's state is no part of libmnemo's interface.
  struct __attribute__((visibility("hidden"))) Impl;
  // The services behind this engine (src/core/services.h), which the
  // transports' method table calls. Hidden: for mnemo's own transports and
  // tools, not part of libmnemo's interface.
  __attribute__((visibility("hidden"))) const internal::Services& services() const;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace mnemo

#pragma GCC visibility pop

// mnemo::Admin — what reaches every concern of a workspace: backup (export,
// import, imports from other tools), reindex, erasure, hygiene, the path
// guard, health, the vector index files and the audit log.
//
// The administration service itself: made by Engine::Open over every store
// of the engine (it reaches every concern), the services whose derived state
// it rebuilds or clears (vectors, the tool registry, the Archivist), the
// memory service (hygiene) and the audit log, and handed out by
// Engine::admin(); it lives as long as its Engine. The calls of a principal
// answer kDisabled while memory.enabled = false (PathProtected answers
// either way), then check their request and do the work
// (src/core/admin/admin*.cc).
//
// Thread-safety: every member function may be called concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/clock.h"
#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"

#pragma GCC visibility push(default)

namespace mnemo {

// Called with (done, total) during long operations; total may be 0 if unknown.
using ProgressFn = std::function<void(int64_t done, int64_t total)>;

// What memory.health reports (the inspector's health page): the store, the
// embedder, the open vector spaces, the archive queue and the audit log's
// last lines (addresses and outcomes only, as the file holds them).
struct HealthReport {
  std::string backend;
  int schema_version = 0;
  std::string embedding_provider;
  std::string embedder_signature;  // "" without an embedder
  // "ok" when the embedder embedded a probe text just now, else why not
  // (searches are keyword-only meanwhile); "" without an embedder.
  std::string embedder_state;
  // The word-vector file of the `words` embedder: "<path> (<source>, sha256
  // <checksum>)"; "" with another embedder.
  std::string word_vectors;
  struct Space {
    std::string signature;
    int64_t dimensions = 0;
    int64_t vectors = 0;
    std::string kind;  // flat | hnsw
  };
  std::vector<Space> spaces;
  ArchiveQueueStats archive;
  // When the scheduled hygiene (at open when due, every 12 h in the daemon)
  // last ran; `mnemo hygiene run` is not scheduled and not counted.
  std::optional<TimeMs> hygiene_last_scheduled_run;
  bool audit_enabled = false;
  std::vector<std::string> audit_tail;  // oldest first
  // The integrity checks: "database" (bounded in time: a large store's
  // answer says the check did not finish) and "vectors <signature>" per open
  // space (its index files against their own checksums). A damaged part is
  // kCorruption; a check that could not run or finish is kUnavailable.
  struct Check {
    std::string part;
    Status status;
  };
  std::vector<Check> integrity;
};

// The engine's own types, declared here only to be named (src/core,
// src/storage); no caller can make one. Hidden: libmnemo exports none of them.
#pragma GCC visibility push(hidden)
namespace storage {
struct Stores;
struct RestoreBatch;
}  // namespace storage
namespace internal {
struct AdminOptions;  // src/core/admin/admin_options.h
class AuditLog;
class LineReader;
}  // namespace internal
class VectorsService;
#pragma GCC visibility pop
class Archivist;
class Memory;
class Tools;

class Admin {
 public:
  // Made by Engine::Open: the stores, the services, the audit log (null when
  // [security.audit] is disabled) and the options are the engine's.
  [[gnu::visibility("hidden")]] Admin(storage::Stores& stores, VectorsService& vectors,
                                      Tools& tools, Archivist& archivist, Memory& memory,
                                      internal::AuditLog* audit, std::shared_ptr<Clock> clock,
                                      std::shared_ptr<Logger> logger,
                                      internal::AdminOptions options);
  ~Admin();
  Admin(const Admin&) = delete;
  Admin& operator=(const Admin&) = delete;

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
  // transaction, and recomputes what is derived: keyword index texts
  // through the tool registry (the file's included), embedder vectors of
  // entries and recaps. Under ACL a user's rows all become theirs.
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

  // Embeds every entry that lacks a vector of the embedder's signature
  // (new signature, text changed, embedder failed earlier) and rebuilds the
  // vector index from storage. Progress counts entries embedded. Then
  // rebuilds what is derived from text with the current tool registry: each
  // assistant turn row's keyword index (from its stored response and tool
  // calls) and each document's summary, tags and entities. Stored text is
  // never changed.
  Result<ReindexReport> Reindex(const Principal& who, const ProgressFn& progress = {});

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

  // Hygiene (spec 10) now: archives daily and custom entries not written for
  // memory.archive_after_days, deletes conversation entries past
  // memory.conversation_retention_days; core, useful_count >= 3 and system
  // namespaces are exempt. Admin only under ACL. Also runs by itself: at
  // open when 12 hours passed since the last run (by any process), and
  // through RunHygieneIfDue, which the daemon calls periodically.
  Result<HygieneReport> RunHygiene(const Principal& who);
  // The report when a run was due (and done), nullopt otherwise.
  Result<std::optional<HygieneReport>> RunHygieneIfDue();

  // Whether `path` is part of mnemo's storage (spec 10, "Files"): inside the
  // workspace (database, -wal/-shm, index, archive, MEMORY.md/SKILL.md and
  // their lock, mnemo.toml), the markdown store, or the audit log and its
  // rotations; or another name (hard link) of one of those files. Symlinks
  // and `..` are resolved first; a relative path is taken from the working
  // directory of this process. Any principal may ask, whether memory is
  // enabled or not.
  Result<PathCheck> PathProtected(const Principal& who, std::string_view path);

  // memory.health: the admin's view (kPermissionDenied for a user under
  // ACL); at most `audit_lines` lines of the audit log.
  Result<HealthReport> Health(const Principal& who, int audit_lines);

  // Writes the vector index file of every embedding space that has changed
  // enough since its file was written (docs/storage.md "Vector index
  // files"), so that a restart after a crash replays a short tail of the
  // change log instead of rebuilding the index. Searches go on meanwhile.
  // The daemon calls it every index.save_interval_secs; closing the engine
  // does the same. OK when there is nothing to write; kUnavailable when a
  // file cannot be written (read-only folder, full disk): nothing is lost,
  // the next open replays or rebuilds.
  Status SaveVectorIndexes();

  // Appends one line to the audit log when [security.audit] is enabled (else
  // nothing). The services audit their own operations; the transports call
  // this only for what reached no service (a request refused for its
  // parameters or its bearer token, a method about the method table), with
  // the method's name, addresses and outcome (never content).
  void Audit(const Principal& who, const AuditEvent& event);

 private:
  // What is derived from text through the tool registry, derived again
  // (admin_reindex.cc).
  Status ReindexDerivedText(ReindexReport& report);
  // Erases the tool rules captured from the session only (issue 42 item
  // 18; admin_erasure.cc); returns how many.
  Result<int64_t> EraseCapturedRules(const std::string& owner, std::string_view session_id);
  // The owner's documents derived from `session_id`: segment documents and
  // context-prune archives.
  Result<std::vector<std::string>> SessionDocumentIds(const std::string& owner,
                                                      std::string_view session_id);
  // Import version 1 (admin_import_v1.cc) and 2 (admin_import.cc; `declared`:
  // the header's counts by kind).
  [[gnu::visibility("hidden")]] Result<ImportReport> ImportV1(const Principal& who,
                                                              internal::LineReader& lines,
                                                              const ProgressFn& progress);
  [[gnu::visibility("hidden")]] Result<ImportReport> ImportV2(
      const Principal& who, const std::map<std::string, int64_t>& declared,
      internal::LineReader& lines, const ProgressFn& progress, const ImportOptions& options);
  // The rows of ImportForeign, checked: entries stored as they are left
  // out, the rest restored in one transaction (counted only on a dry run).
  [[gnu::visibility("hidden")]] Result<ForeignImportReport> WriteForeign(
      storage::RestoreBatch batch, ForeignImportReport report);
  // What already holds rows visible to `who` ("3 entries, 12 turns"), "" when nothing.
  Result<std::string> NonEmptyParts(const Principal& who);

  storage::Stores& stores_;
  VectorsService& vectors_;
  Tools& tools_;
  Archivist& archivist_;
  Memory& memory_;
  internal::AuditLog* const audit_;
  const std::shared_ptr<Clock> clock_;
  const std::shared_ptr<Logger> logger_;
  const std::unique_ptr<const internal::AdminOptions> options_;
};

}  // namespace mnemo

#pragma GCC visibility pop

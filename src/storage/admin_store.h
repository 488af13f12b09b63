// What spans every concern of a store in one write transaction: the restore
// of a full backup and erasure (spec 10 CLI "export/import", "Erasure").
// Every backend implements it over all the stores it opens together.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/restore.h"
#include "storage/rules/erasure.h"

namespace mnemo::storage {

class AdminStore {
 public:
  virtual ~AdminStore() = default;

  // --- Backup: the restore of a full export (version 2; core/admin/admin_export.cc and
  // core/admin/admin_import.cc; restore.h). Its reads are the stores' own
  // (ContextEventStore::ContextEventsAfter, EntryStore::VectorSignatures...).

  // Writes every row of `batch` in ONE write transaction (SQLite: serialised
  // with other processes too), as given: ids, sequence numbers, timestamps,
  // counters and validity are kept, with their keyword index rows (from
  // the rows' search texts). An error writes nothing. The rules per kind
  // (which stored rows make a row a duplicate, what is kept) are those of
  // RestoreBatch in restore.h; duplicates are skipped and counted.
  virtual Result<RestoreReport> Restore(const RestoreBatch& batch) = 0;

  // --- Erasure (spec 10, "Erasure"; storage/rules/erasure.h). Rows are deleted,
  // never flagged, with their keyword index rows and vectors, in one write
  // transaction (all or nothing); what a store keeps of deleted text beyond
  // the rows is its own to clear (SQLite: secure_delete and an FTS5
  // 'optimize' of every index that lost a row, docs/storage.md). The counts
  // are of rows removed; ErasureCounts::archive_files stays 0 (not storage's).

  // Everything of (what.owner, what.session_id): turns, segments, their
  // recaps and recap vectors, events, context events (and the session's seq
  // counter), the owner's documents among what.document_ids and the
  // owner's triples whose source is one of them; the profile evidence of the
  // session (storage::internal::FacetAfterErasure). A session
  // with nothing stored is all zeros, not an error. kInvalidArgument for a
  // blank owner or session_id.
  virtual Result<ErasureCounts> EraseSession(const SessionErasure& what) = 0;
  // Everything `owner` owns: entries (every namespace: tool rules and
  // statistics too) with their vectors, and every row of EraseSession for
  // each of the owner's sessions, every facet, document and triple.
  // kInvalidArgument for a blank owner.
  virtual Result<ErasureCounts> ErasePrincipal(std::string_view owner) = 0;

  // --- Integrity (memory.health): a check of the stored pages bounded by
  // `budget` (SQLite: PRAGMA quick_check on a reader, at most
  // kMaxIntegrityProblems problems). OK when nothing is wrong, or when the
  // backend has nothing of its own to check (postgres checks its pages
  // itself; in_memory has none); kCorruption naming the first problems;
  // kUnavailable when the check could not run or finish within `budget`.
  // A backend that finds its store damaged, here or in any statement,
  // refuses every later write with kCorruption rather than make it worse.
  virtual Status CheckIntegrity(std::chrono::milliseconds budget) {
    (void)budget;
    return Status::Ok();
  }
};

// How many problems CheckIntegrity names at most.
inline constexpr int kMaxIntegrityProblems = 10;

}  // namespace mnemo::storage

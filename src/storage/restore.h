// What AdminStore::Restore writes (a backup's rows, core/admin/admin_import.cc) and the
// rules every backend applies to them. A restore into an empty store
// recreates every row exactly; into a non-empty one (import --merge) a row
// that is already stored, by the identity given per kind below, is skipped
// and the stored one kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/context_events.h"
#include "storage/documents.h"
#include "storage/entry_store.h"
#include "storage/episodic.h"
#include "storage/graph.h"

namespace mnemo::storage {

// A vector of `entries[entry]` of the batch under `signature` (stored as
// given: the caller normalises). Same dimension rules as PutVectors.
struct RestoreVector {
  size_t entry = 0;
  std::string signature;
  std::vector<float> vector;
};

struct RestoreBatch {
  // Entries: as UpsertBatch (by owner, namespace and key; a stored one is
  // updated, never skipped), with id, created_at, counters and archived.
  std::vector<EntryWrite> entries;
  std::vector<RestoreVector> vectors;
  // Turns: skipped when (owner, session_id, seq) is stored; row.id kept
  // unless another turn has it (then a new id), row.seq kept.
  std::vector<TurnWrite> turns;
  // Segments: skipped when the id is stored, or when the row is open and
  // its (owner, session) already has an open segment. Recaps indexed.
  std::vector<SegmentRow> segments;
  // Events: skipped when the id, or the (owner, type, text), is stored.
  std::vector<EventRow> events;
  // Facets: skipped when (owner, facet_type, key) is stored; else stored
  // as given (evidence_count and segment_ids included).
  std::vector<FacetRow> facets;
  // Documents: skipped when the id, or the owner's content, is stored;
  // content_hash is computed.
  std::vector<DocumentRow> documents;
  // Context events: skipped when (owner, session_id, seq) is stored; id kept
  // unless taken (then a new one); the session's next seq becomes at least
  // seq + 1.
  std::vector<ContextEventRow> context_events;
  // Triples: skipped when the id is stored, or when the row is current and
  // its owner has the same current (subject, predicate, object); valid_to
  // kept (history stays history).
  std::vector<TripleRow> triples;
};

struct RestoreReport {
  int64_t entries_created = 0;
  int64_t skipped = 0;  // rows of the other kinds already stored
  // Of `skipped`: documents and triples (an import from another tool
  // reports them apart).
  int64_t documents_skipped = 0;
  int64_t triples_skipped = 0;
};

// What a backend gives the one restore driver (RestoreRows): for each kind,
// whether a row with the batch row's identity (the rules of RestoreBatch
// above) is stored, and the write of one row as given. Every call runs
// inside the backend's one write transaction (or under its one lock), so
// the driver sees its own writes.
class RestoreTarget {
 public:
  virtual ~RestoreTarget() = default;

  // The entries as UpsertBatch writes them, appending each one's label to
  // `labels` in order; returns how many were created.
  virtual Result<int64_t> WriteEntries(std::span<const EntryWrite> entries,
                                       std::vector<Label>& labels) = 0;
  // As PutVectors, without its own transaction.
  virtual Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) = 0;

  virtual Result<bool> HasTurn(const TurnRow& row) = 0;
  virtual Result<bool> HasSegment(const SegmentRow& row) = 0;
  virtual Result<bool> HasEvent(const EventRow& row) = 0;
  virtual Result<bool> HasFacet(const FacetRow& row) = 0;
  virtual Result<bool> HasDocument(const DocumentRow& row) = 0;  // content_hash set
  virtual Result<bool> HasContextEvent(const ContextEventRow& row) = 0;
  virtual Result<bool> HasTriple(const TripleRow& row) = 0;

  // Each writes a row the Has* of its kind did not find, with its index
  // rows. A turn's or context event's id that is taken (or not positive)
  // is replaced by a new one; a context event raises its session's next
  // seq to at least seq + 1.
  virtual Status InsertTurn(const TurnWrite& write) = 0;
  virtual Status InsertSegment(const SegmentRow& row) = 0;
  virtual Status InsertEvent(const EventRow& row) = 0;
  virtual Status InsertFacet(const FacetRow& row) = 0;
  virtual Status InsertDocument(const DocumentRow& row) = 0;
  virtual Status InsertContextEvent(const ContextEventRow& row) = 0;
  virtual Status InsertTriple(const TripleRow& row) = 0;
};

// The one restore: writes every row of `batch` (already validated) into
// `target` kind by kind, in the order of RestoreBatch, skipping and counting
// the rows already stored. Each backend's AdminStore::Restore validates,
// opens its transaction, calls this and commits.
Result<RestoreReport> RestoreRows(const RestoreBatch& batch, RestoreTarget& target);

// Checks every row of `batch` as the kind's own write would (blank owners,
// roles, statuses, confidences, vector dimensions and entry indexes):
// kInvalidArgument naming the first bad row.
// Every backend's Restore calls it first; import calls it per line.
Status ValidateRestoreBatch(const RestoreBatch& batch);

}  // namespace mnemo::storage

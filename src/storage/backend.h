// The narrow storage contract every backend implements (sqlite, in_memory;
// later postgres, markdown). The conformance suite in
// tests/storage/conformance_test.cc is the executable form of this contract
// and runs unchanged against every implementation.
//
// Thread-safety: every method may be called from many threads at once.
// Writes are serialised by the backend; reads run concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/logger.h"
#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/context_events.h"
#include "storage/documents.h"
#include "storage/episodic.h"
#include "storage/erasure.h"
#include "storage/graph.h"
#include "storage/restore.h"
#include "storage/turn_claims.h"

namespace mnemo::storage {

// Whose entries a read may see. `all` for admins and whenever ACL is off;
// otherwise the principal's own entries plus public ones. Backends apply it
// inside the query, before any limit.
struct ReadScope {
  bool all = true;
  std::string principal;
};

struct EntryFilter {
  std::optional<std::string> category;
  std::optional<std::string> ns;  // absent: every namespace but the system ones
  std::vector<std::string> tags;  // all must be present
  bool include_archived = false;
  ReadScope scope;
  // updated_at in [since, until) (the time the entry's content was written).
  std::optional<TimeMs> since;
  std::optional<TimeMs> until;
};

// True for the system namespaces `tool-*`, `tool_effectiveness` (spec 10)
// and `tool_registry` (spec 50): left out of unfiltered search and list.
bool IsSystemNamespace(std::string_view ns);
// Where memory.tool_register persists tool declarations (one entry per tool).
inline constexpr std::string_view kToolRegistryNamespace = "tool_registry";

// A write of one entry, addressed by (owner, ns, key).
struct EntryWrite {
  std::string owner = "local";
  std::string ns = "global";
  std::string key;
  std::string content;
  std::string category = "core";
  std::optional<std::vector<std::string>> tags;  // absent: keep (empty when new)
  std::optional<Visibility> visibility;          // absent: keep (private when new)
  TimeMs now = 0;                                // becomes updated_at, and created_at when new
  // The caller's identity of the content (a hash of a normalised form, say):
  // a Mutate group can be narrowed to it (EntryGroup::fingerprint). Not an
  // entry field; a write without one clears the stored one, so a fingerprint
  // never outlives the content it was computed from.
  std::optional<std::string> fingerprint;

  // Import only: restore these exactly when present.
  std::optional<std::string> id;
  std::optional<TimeMs> created_at;
  std::optional<int64_t> access_count;
  std::optional<int64_t> useful_count;
  std::optional<bool> archived;  // absent: false (any other write un-archives)
};

// Hygiene (spec 10): what ApplyHygiene does to one entry.
enum class HygieneAction { kKeep, kArchive, kDelete };
using HygieneFn = std::function<HygieneAction(const Entry&)>;
struct HygieneCounts {
  int64_t archived = 0;
  int64_t deleted = 0;
};

// Change counters of Backend::Generation.
enum class Counter {
  kToolRules,     // the `tool-*` namespaces (tool rules)
  kToolRegistry,  // kToolRegistryNamespace (saved tool registrations)
};

// The entries of one owner in one namespace (or only the one with `key`).
// With `fingerprint`, only those written with that fingerprint or with none
// (so entries written by other paths are still seen): a de-duplicating
// read-modify-write reads its few candidates instead of the whole group.
struct EntryGroup {
  std::string owner = "local";
  std::string ns;
  std::optional<std::string> key;
  std::optional<std::string> fingerprint;
};
using MutateFn = std::function<Result<std::vector<EntryWrite>>(const std::vector<Entry>& current)>;

// Every entry has a label: a positive integer, stable for the entry's life
// (kept across upserts, never reused while the store is open), that vector
// indexes use as their id. SQLite: the rowid.
using Label = int64_t;

struct UpsertResult {
  Entry entry;  // as stored
  bool created = false;
  Label label = 0;
  // True when the stored text (key or content) changed, or the entry is new:
  // its vectors were deleted in the same transaction and need recomputing.
  bool text_changed = true;
};

struct KeywordQuery {
  // Index tokens produced by text::QueryTerms (already normalised, distinct).
  std::vector<std::string> terms;
  EntryFilter filter;
  int limit = 20;
};

struct KeywordHit {
  Entry entry;
  // min(1, bm25 / sum of the query terms' idf), spec 20.
  double keyword_score = 0;
  Label label = 0;
};

struct LabeledVector {
  Label label = 0;
  std::vector<float> vector;
};

// An entry without a vector of some signature: what `mnemo reindex` and the
// pending-vector filler embed (its key and content are the computation text).
struct MissingVector {
  Label label = 0;
  std::string key;
  std::string content;
};

// One change to the vectors of a signature, in commit order: `vector` empty
// means the label has no vector any more (entry deleted or text changed).
struct VectorChange {
  int64_t seq = 0;
  Label label = 0;
  std::vector<float> vector;
};

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;
  virtual int schema_version() const = 0;
  // An identity of the stored data, created with the store and kept in it
  // (sqlite: table store_info of mnemo.db, schema v11, given to an existing
  // database at its upgrade; postgres: store_info of its schema; markdown:
  // its sqlite index's), for what a process keeps outside the store: every
  // vector index file carries it in its header and is loaded only beside the
  // store it was built from, so a process never applies one store's change
  // log to an index built from another (a copied index file, a database
  // restored from another workspace). Empty for in_memory, which keeps no
  // files.
  virtual std::string_view store_id() const { return {}; }

  // Insert or update by (owner, ns, key). An update keeps id and created_at
  // (unless the write restores them) and replaces content, category and
  // updated_at; tags and visibility only when given.
  virtual Result<UpsertResult> Upsert(const EntryWrite& write) = 0;

  // All writes in one transaction: either every one is applied or none.
  // Returns how many created a new entry.
  // When `labels` is given it receives each write's label, in order.
  virtual Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                                      std::vector<Label>* labels = nullptr) = 0;

  // Read-modify-write of one group of entries: `decide` runs inside one write
  // transaction, serialised with every other writer of the store (SQLite:
  // other processes too). It sees the group's current entries in key order
  // and returns the writes to apply; each must address the group's owner and
  // namespace (else kInvalidArgument). An error from `decide` or from any
  // write applies nothing. Results are in the order of the writes.
  virtual Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                                   const MutateFn& decide) = 0;

  // The entry of exactly this (owner, ns, key), if any.
  virtual Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                                 std::string_view key) = 0;

  // The most recently updated entry with this (ns, key) visible in `scope`,
  // preferring the scope principal's own entry.
  virtual Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                               const ReadScope& scope) = 0;

  // Deletes by id; returns whether it existed.
  virtual Result<bool> Delete(std::string_view id) = 0;

  // Hygiene: in one write transaction, calls `decide` on each entry of `ids`
  // as it is now (gone ones are skipped), so a write racing the caller's
  // scan is judged by its new state. kArchive sets `archived` and changes
  // nothing else (not updated_at); kDelete deletes as Delete does.
  virtual Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                             const HygieneFn& decide) = 0;
  // Claims the periodic hygiene run: true (and `now` recorded as the last
  // run) when none ran in the last `interval` ms, by this or (SQLite) any
  // other process; else false. Atomic, so one process runs it per interval.
  virtual Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) = 0;

  // Adds to the counters of one entry by id and returns it (nullopt: gone).
  virtual Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                                   int64_t useful_delta) = 0;

  // Ordered by updated_at descending, then key, then owner.
  virtual Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) = 0;

  // Best `limit` entries matching any term, ordered by keyword score
  // descending, then updated_at descending, then key ascending. Filters are
  // applied inside the search, so results are never short because of them.
  virtual Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) = 0;

  // Counts of entries visible in `scope` (archived included in `entries`).
  virtual Result<Stats> GetStats(const ReadScope& scope) = 0;

  // Calls `fn` for every entry visible in `scope` whose namespace starts with
  // `ns_prefix` ("" = all), in (ns, key, owner) order, system namespaces and
  // archived entries included. Stops at the first error.
  virtual Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                         const std::function<Status(const Entry&)>& fn) = 0;

  // A number that changes whenever an entry of the counter's namespaces is
  // written or deleted, by this or (SQLite) any other process. Equal numbers
  // mean those entries are unchanged, so a process can cache what it derived
  // from them and check it with one cheap read.
  virtual Result<int64_t> Generation(Counter which) = 0;

  // --- Episodic turns (spec 40; episodic.h).

  // Appends `rows`, all of one (owner, session), in one transaction, with
  // consecutive sequence numbers after the session's last: concurrent
  // appends (threads or processes) never share or skip a number. Returns the
  // rows with id and seq set, in order.
  virtual Result<std::vector<TurnRow>> AppendTurns(std::span<const TurnWrite> rows) = 0;
  // The rows of (owner, session) with from_seq <= seq <= to_seq, by seq.
  virtual Result<std::vector<TurnRow>> SessionTurns(std::string_view owner,
                                                    std::string_view session_id, int64_t from_seq,
                                                    int64_t to_seq) = 0;
  // Best `limit` rows matching any term: score descending, then timestamp
  // descending, then id.
  virtual Result<std::vector<TurnHit>> SearchTurns(const TurnQuery& query) = 0;
  // Up to `limit` rows of every owner with id > after_id, by id (reindex).
  virtual Result<std::vector<TurnRow>> TurnsAfter(int64_t after_id, int limit) = 0;
  // Replaces the text the keyword index reads for row `id` (its stored
  // fields never change): `mnemo reindex` after a tool registry change.
  // kNotFound when there is no such row.
  virtual Status ReplaceTurnSearchText(int64_t id, std::string_view search_text) = 0;

  // Segments (SegmentRow). The session's open segment, if any.
  virtual Result<std::optional<SegmentRow>> OpenSegment(std::string_view owner,
                                                        std::string_view session_id) = 0;
  // Inserts or replaces the segment with `s.id`. kConflict when the put would
  // make a closed segment open again, or a second open segment of its
  // (owner, session); kInvalidArgument for a blank id, owner or session, an
  // unknown status or recap_source.
  virtual Status PutSegment(const SegmentRow& s) = 0;
  // Open -> closed, atomically (threads and processes): true when this call
  // closed it; false when it was not open (already closed, or missing).
  virtual Result<bool> CloseSegment(std::string_view id, TimeMs closed_at) = 0;
  virtual Result<std::optional<SegmentRow>> GetSegment(std::string_view id) = 0;
  // Every owner's segments when `all`, else `owner`'s; of one session when
  // given. By started_at, then id.
  virtual Result<std::vector<SegmentRow>> Segments(bool all, std::string_view owner,
                                                   std::optional<std::string_view> session_id) = 0;
  // Up to `limit` closed segments of any owner whose recap_source is
  // "extractive" and recap_attempts < max_attempts, by closed_at, then id.
  virtual Result<std::vector<SegmentRow>> SegmentsNeedingRecap(int limit, int64_t max_attempts) = 0;
  // Reads the segment state of (owner, session), lets `decide` choose a
  // change and applies it, all in one write transaction (SQLite: serialised
  // with other processes too), so concurrent turns of one session never lose
  // an extension or open two segments. The change obeys the rules of
  // CloseSegment and PutSegment; a callback error aborts with nothing
  // written. Returns the change applied.
  using SegmentDecision = std::function<Result<SegmentChange>(const SegmentView&)>;
  virtual Result<SegmentChange> StepSegment(std::string_view owner, std::string_view session_id,
                                            const SegmentDecision& decide) = 0;

  // Events (EventRow). Adds `rows` in one transaction: a row with the (owner,
  // type, text) of a stored one, or of an earlier row of the batch, is
  // skipped. Returns how many were added. kConflict (nothing added) when a
  // row that is not skipped reuses an id; kInvalidArgument for a blank id,
  // owner or text, an unknown type, or a confidence outside [0, 1].
  virtual Result<int64_t> AddEvents(std::span<const EventRow> rows) = 0;
  // With terms: the best `limit` events matching any term of `text`, by score
  // descending, then created_at descending, then id. Without terms: the
  // newest `limit`, by created_at descending, then id (score 0). The type and
  // owner filters apply before the limit.
  virtual Result<std::vector<EventHit>> SearchEvents(const EventQuery& query) = 0;

  // Profile facets (FacetRow). Folds one observation into the facet of its
  // (owner, facet_type, key) in one write transaction (SQLite: serialised
  // with other processes too). Absent: stored as observed, evidence_count 1.
  // Present: evidence_count + 1, the observation's segment ids appended
  // unless already present (order kept), value and confidence replaced only
  // when observation.confidence >= the stored confidence, updated_at =
  // observation.updated_at. Returns the facet as stored. kInvalidArgument for
  // a blank owner, facet_type or key, or a confidence outside [0, 1].
  virtual Result<FacetRow> MergeFacet(const FacetRow& observation) = 0;
  // Every owner's facets when `all`, else `owner`'s; by facet_type, key,
  // then owner.
  virtual Result<std::vector<FacetRow>> Facets(bool all, std::string_view owner) = 0;

  // --- Idempotent turns and idle segments (issue 16 items 5 and 6;
  // turn_claims.h). One block, so parallel additions to this class merge
  // apart from it.

  // Claims `claim.key` and appends `rows` (none is allowed; else as
  // AppendTurns: one owner and session, the key's) in one write transaction,
  // serialised with every other writer (threads and processes). The claim
  // stores the first row's seq (-1 without rows), claimed_at and an empty
  // result. When the key is already claimed nothing is written and the
  // stored claim is returned with claimed = false. kInvalidArgument for a
  // blank owner or session, a turn id of 0 or more than kMaxTurnIdBytes
  // bytes, or rows of another owner or session.
  virtual Result<TurnClaimOutcome> ClaimTurn(const TurnClaim& claim,
                                             std::span<const TurnWrite> rows) = 0;
  // Stores the result of a claimed turn unless one is stored already (the
  // first one is kept); returns whether this call stored it. kNotFound when
  // the key is not claimed.
  virtual Result<bool> FinishTurnClaim(const TurnKey& key, std::string_view result) = 0;
  // The claim of `key`, if any.
  virtual Result<std::optional<TurnClaim>> GetTurnClaim(const TurnKey& key) = 0;
  // Up to `limit` open segments of every owner with last_turn_at < `before`,
  // by last_turn_at, then id: what learning.session_idle_close_secs closes.
  virtual Result<std::vector<SegmentRow>> IdleOpenSegments(TimeMs before, int limit) = 0;

  // --- Segment recaps (spec 40, "When a segment closes"). Every recap
  // PutSegment (or StepSegment) writes is indexed with it, in the same
  // transaction; a replaced recap replaces its index row.

  // Best `limit` closed segments whose recap matches any term: score
  // descending, then closed_at descending, then id. Open segments and empty
  // recaps are never returned. The owner and session filters apply before
  // the limit.
  virtual Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) = 0;
  // Stores (replaces) the recap vector of `segment_id` for `signature` with
  // a new version, larger than every version written before (by any process).
  // kNotFound when the segment does not exist; kInvalidArgument for a blank
  // signature, an empty vector or a dimension other than that of the
  // signature's stored vectors.
  virtual Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                                  std::span<const float> vector) = 0;
  // Up to `limit` recap vectors of `signature` with version > after_version,
  // by version ascending (fewer than `limit`: caught up). A replaced vector
  // appears once, with its newest version.
  virtual Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                                 int64_t after_version,
                                                                 int limit) = 0;

  // --- Documents (spec 50; documents.h).

  // Stores `row` unless its owner already has a document with the same
  // content: then nothing is written and that document is returned with
  // created = false. Atomic (threads and processes): of many puts of one
  // content, one creates it. The store computes content_hash; an empty id
  // gets a new UUID; updated_at 0 becomes created_at. kInvalidArgument for a
  // blank owner; kConflict when the id is another document's.
  virtual Result<DocumentPut> PutDocument(const DocumentRow& row) = 0;
  // The document `id`, if any. With `count_access`, its access_count is
  // incremented atomically and the incremented value returned.
  virtual Result<std::optional<DocumentRow>> GetDocument(std::string_view id,
                                                         bool count_access) = 0;
  // Best `limit` documents whose search_text, summary or tags match any
  // term: score descending, then created_at descending, then id. The owner
  // filter applies before the limit.
  virtual Result<std::vector<DocumentHit>> SearchDocuments(const DocumentQuery& query) = 0;
  // Newest first (created_at descending, then id), optionally only `owner`'s
  // and only those whose source starts with `source_prefix` (bytes).
  // kInvalidArgument for a negative offset.
  virtual Result<std::vector<DocumentRow>> ListDocuments(std::optional<std::string> owner,
                                                         std::optional<std::string> source_prefix,
                                                         int limit, int64_t offset) = 0;
  // Deletes the document and its index row; returns whether it existed.
  virtual Result<bool> DeleteDocument(std::string_view id) = 0;
  // How many documents (of `owner`, or of every owner).
  virtual Result<int64_t> CountDocuments(std::optional<std::string> owner) = 0;
  // For each index token of `terms` (text::Tokenize output, e.g. a
  // document's own tokens), in how many documents of any owner it occurs
  // (search_text, summary or tags): the document frequencies of TF-IDF tags.
  virtual Result<std::vector<int64_t>> DocumentFrequencies(std::span<const std::string> terms) = 0;
  // Replaces the derived fields of document `id` (content never changes) and
  // its index row; updated_at becomes `updated_at`. kNotFound when missing.
  virtual Status UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                                       std::string_view summary, std::span<const std::string> tags,
                                       std::span<const std::string> entities,
                                       TimeMs updated_at) = 0;

  // --- Context events (spec 50; context_events.h).

  // Appends `row` to its (owner, session) with the next sequence number
  // (one more than any the session ever had, deleted events included),
  // assigned in the writing transaction: concurrent appends (threads or
  // processes) never share or skip a number. Returns the row with id and seq
  // set. kInvalidArgument for a blank owner or session_id.
  virtual Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) = 0;
  // The events of (owner, session), by seq.
  virtual Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                             std::string_view session_id) = 0;
  // Best `limit` events whose search_text matches any term: score
  // descending, then seq descending, then id. The owner and session filters
  // apply before the limit.
  virtual Result<std::vector<ContextEventHit>> SearchContextEvents(
      const ContextEventQuery& query) = 0;
  // Deletes, in one transaction, the events of (owner, session) with
  // seq <= up_to_seq; returns how many.
  virtual Result<int64_t> DeleteContextEventsUpTo(std::string_view owner,
                                                  std::string_view session_id,
                                                  int64_t up_to_seq) = 0;
  // Deletes, in one transaction, the events with these ids (missing ones
  // are skipped); returns how many.
  virtual Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) = 0;

  // --- Graph (spec 50; graph.h).

  // Stores `row` (ids, normalisation and checks of graph_rules.h
  // NewTripleRow) in one write transaction (SQLite: serialised with other
  // processes too). When the owner already has a current triple with the
  // same subject, predicate and object, that one is refreshed instead:
  // confidence becomes the larger of both, nothing else changes, created =
  // false. Otherwise the row is added and, when `single_valued`, every other
  // current triple of the same (owner, subject, predicate) gets valid_to =
  // SupersededAt (it stays stored as history) and is listed in `superseded`.
  // So an owner never has two current triples of a single-valued
  // (subject, predicate), whatever the concurrency.
  virtual Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) = 0;
  // Triples matching every filter of `query`, in TripleOrder (graph_rules.h):
  // subject, predicate, current before history, newest valid_from first,
  // object, id. At most `limit` (none when limit <= 0).
  virtual Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) = 0;
  // Deletes every triple (current and history) whose source is `source`,
  // in one transaction; returns how many. Superseded triples of other
  // sources are not revived.
  virtual Result<int64_t> DeleteTriplesFromSource(std::string_view source) = 0;

  // --- Vectors (spec 20). One vector per (entry, signature); deleting an
  // entry or changing its text deletes its vectors in the same transaction.

  // Stores (replaces) vectors for existing labels in one transaction; labels
  // that no longer exist are skipped silently (deleted meanwhile).
  virtual Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) = 0;

  // Every vector of `signature` in label order; stops at the first error.
  virtual Status ForEachVector(std::string_view signature,
                               const std::function<Status(const LabeledVector&)>& fn) = 0;

  // The vectors of these labels for `signature` (absent ones left out).
  virtual Result<std::vector<LabeledVector>> VectorsFor(std::string_view signature,
                                                        std::span<const Label> labels) = 0;

  // Up to `limit` entries (system namespaces and archived included) that have
  // no vector of `signature`, in label order after `after_label`.
  virtual Result<std::vector<MissingVector>> MissingVectors(std::string_view signature,
                                                            Label after_label, int limit) = 0;
  virtual Result<int64_t> CountMissingVectors(std::string_view signature) = 0;

  // Change log of a signature's vectors, for indexes kept by other processes
  // or loaded from a file: the newest sequence number (0 when none), and the
  // changes after `seq` (at most `limit`; fewer means caught up).
  // `VectorChangesSince` fails with kNotFound when `seq` is older than the
  // oldest change kept (the log is trimmed): the caller rebuilds instead.
  virtual Result<int64_t> VectorWatermark(std::string_view signature) = 0;
  virtual Result<std::vector<VectorChange>> VectorChangesSince(std::string_view signature,
                                                               int64_t seq, int limit) = 0;
  // How many vectors `signature` has (what a full ForEachVector would
  // visit). Cheap (an index count): a loaded index checks against it that
  // it describes this store.
  virtual Result<int64_t> CountVectors(std::string_view signature) = 0;

  // The entries among `labels` that pass `filter` (scope included), each with
  // its keyword score for `terms` (0 when it contains none of them; the same
  // score KeywordSearch would give). Order: as `labels`. Used to filter vector
  // candidates in batches and to score them on the keyword side.
  virtual Result<std::vector<KeywordHit>> FetchByLabels(std::span<const Label> labels,
                                                        const EntryFilter& filter,
                                                        const std::vector<std::string>& terms) = 0;

  // How many entries pass `filter`, and (when few) their labels: the vector
  // search scans a selective filter's entries exactly instead of the graph.
  virtual Result<int64_t> CountMatching(const EntryFilter& filter) = 0;
  virtual Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) = 0;

  // --- Backup: the full export and its restore (spec 10 CLI, export/import
  // version 2; core/export.cc and core/import.cc; restore.h). Kept in one
  // block so the reads and the one write a backup needs stay together.

  // Up to `limit` context events of every owner with id > after_id, by id.
  virtual Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) = 0;
  // Every signature with at least one entry vector, ascending.
  virtual Result<std::vector<std::string>> VectorSignatures() = 0;
  // Writes every row of `batch` in ONE write transaction (SQLite: serialised
  // with other processes too), as given: ids, sequence numbers, timestamps,
  // counters and validity are kept, with their keyword index rows (from
  // the rows' search texts). An error writes nothing. The rules per kind
  // (which stored rows make a row a duplicate, what is kept) are those of
  // RestoreBatch in restore.h; duplicates are skipped and counted.
  virtual Result<RestoreReport> Restore(const RestoreBatch& batch) = 0;

  // --- Erasure (spec 10, "Erasure"; storage/erasure.h). Rows are deleted,
  // never flagged, with their keyword index rows and vectors, in one write
  // transaction (all or nothing); what a store keeps of deleted text beyond
  // the rows is its own to clear (SQLite: secure_delete and an FTS5
  // 'optimize' of every index that lost a row, docs/storage.md). The counts
  // are of rows removed; ErasureCounts::archive_files stays 0 (not storage's).

  // Everything of (what.owner, what.session_id): turns, segments, their
  // recaps and recap vectors, events, context events (and the session's seq
  // counter), the owner's documents among what.document_ids and the
  // owner's triples whose source is one of them; the profile evidence of the
  // session's segments (storage::internal::FacetWithoutSegments). A session
  // with nothing stored is all zeros, not an error. kInvalidArgument for a
  // blank owner or session_id.
  virtual Result<ErasureCounts> EraseSession(const SessionErasure& what) = 0;
  // Everything `owner` owns: entries (every namespace: tool rules and
  // statistics too) with their vectors, and every row of EraseSession for
  // each of the owner's sessions, every facet, document and triple.
  // kInvalidArgument for a blank owner.
  virtual Result<ErasureCounts> ErasePrincipal(std::string_view owner) = 0;
  // Clears what the entries' keyword index keeps of deleted entries (SQLite:
  // FTS5 'optimize' of entries_fts, whose older segments keep a deleted
  // row's tokens until merged; O(index size), ~seconds at 100k entries, so
  // Delete does not do it per entry: hygiene does, each run). Nothing to do
  // for a store that deletes index rows outright (the default).
  virtual Status CompactEntryIndex() { return Status::Ok(); }
};

// Each backend reports what it repairs or retries on its own (an index
// rebuilt for a new text version, a failed checkpoint, a reconnect) to its
// options' logger.
struct SqliteOptions {
  std::string path;  // the database file; created when missing
  int readers = 4;   // reader connections kept open
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenSqliteBackend(const SqliteOptions& options);

struct PostgresOptions {
  std::string url;               // libpq connection string or postgresql:// url
  std::string schema = "mnemo";  // created when missing; one memory per schema
  int pool_size = 4;             // connections kept open
  int connect_attempts = 5;      // at start-up, 500 ms apart
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenPostgresBackend(const PostgresOptions& options);
std::unique_ptr<Backend> NewMemoryBackend();

// The markdown backend (spec 10, "Backends"): entries in human-readable files
// under `root`, the source of truth, with a rebuildable SQLite index beside
// them (storage/markdown/markdown_backend.h).
struct MarkdownOptions {
  std::string root;        // the memory folder; created when missing
  std::string index_path;  // the entries' index; default <root>/.index/mnemo-index.db
  std::string data_path;   // what is not an entry (turns, documents...); default: in the index
  std::shared_ptr<Logger> logger = StderrLogger();
};

Result<std::unique_ptr<Backend>> OpenMarkdownBackend(const MarkdownOptions& options);

}  // namespace mnemo::storage

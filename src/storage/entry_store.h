// The entries' store (spec 10, spec 20): entries by (owner, namespace, key),
// their keyword index and their vectors, hygiene and change counters. The
// conformance suite in tests/storage/conformance_test.cc is its executable
// form and runs unchanged against every backend.
//
// Thread-safety (every store of storage/): every method may be called from
// many threads at once. Writes are serialised by the store; reads run
// concurrently.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mnemo/status.h"
#include "mnemo/types.h"
#include "storage/values.h"

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
  // Only namespaces that start with it (byte for byte); the system ones stay
  // out. A store's namespaces as a tree ("users.alice" under "users."): the
  // LangGraph store searches a subtree in one call.
  std::optional<std::string> ns_prefix;
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

// A vector of an entry's text in the space `signature` (entry_store.h,
// "Vectors"), carried by the write of that text (EntryWrite::vectors).
struct SignedVector {
  std::string signature;
  std::vector<float> vector;
};

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

  // Vectors of this write's content, at most one per signature, stored with
  // the entry in the same transaction (Upsert, UpsertBatch and Mutate alike)
  // when the write changes the entry's text or creates it: an entry and its
  // vectors commit together or not at all, and each is logged in the
  // vector change log as PutVectors logs it. When the text is unchanged
  // they are not written (the stored vectors, if any, are of this text).
  // Same dimension rules as PutVectors; a vector that breaks them fails
  // the whole write. Empty: the entry's vectors are left to PutVectors.
  std::vector<SignedVector> vectors;
};

// Hygiene (spec 10): what ApplyHygiene does to one entry.
enum class HygieneAction { kKeep, kArchive, kDelete };
using HygieneFn = std::function<HygieneAction(const Entry&)>;
struct HygieneCounts {
  int64_t archived = 0;
  int64_t deleted = 0;
};

// Change counters of EntryStore::Generation.
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

// What EntryStore::FetchWithVectors reads: FetchByLabels' hits and
// VectorsFor's vectors, and when asked the signature's VectorWatermark,
// read before them.
struct FetchedCandidates {
  std::vector<KeywordHit> hits;
  std::vector<LabeledVector> vectors;
  std::optional<int64_t> watermark;
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

class EntryStore {
 public:
  virtual ~EntryStore() = default;

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
  virtual Result<std::optional<Entry>> FindExact(std::string_view owner, const Namespace& ns,
                                                 const Key& key) = 0;

  // The most recently updated entry with this (ns, key) visible in `scope`,
  // preferring the scope principal's own entry.
  virtual Result<std::optional<Entry>> Resolve(const Namespace& ns, const Key& key,
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
  // The time ClaimHygieneRun last recorded; nullopt before the first run.
  virtual Result<std::optional<TimeMs>> LastHygieneRun() = 0;

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

  // The labels among `labels` whose entries pass `filter`, in the given
  // order, each once: FetchByLabels' labels without reading or scoring the
  // entries. The vector search asks it of every candidate it walks past
  // (4k and more) and fetches only the k it keeps. The default asks
  // FetchByLabels.
  virtual Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                                    const EntryFilter& filter);

  // FetchByLabels(labels, filter, terms) and VectorsFor(signature,
  // vector_labels) together: a hybrid search's vector-side rows and the
  // vectors its cosines need, in one round trip on a server. With
  // `with_watermark`, VectorWatermark(signature) too, read before the rows
  // and in the same round trip (whatever the labels): the search checks with
  // it that its index was current instead of reading it on its own first.
  // The default asks each.
  virtual Result<FetchedCandidates> FetchWithVectors(std::span<const Label> labels,
                                                     const EntryFilter& filter,
                                                     const std::vector<std::string>& terms,
                                                     std::string_view signature,
                                                     std::span<const Label> vector_labels,
                                                     bool with_watermark);

  // The labels of the first `limit` entries passing `filter`, ascending: the
  // vector search asks for one more than it scans exactly, and scans a
  // selective filter's entries instead of walking the graph when they are
  // no more. Stops reading at `limit`.
  virtual Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) = 0;

  // Every signature with at least one entry vector, ascending.
  virtual Result<std::vector<std::string>> VectorSignatures() = 0;
  // Clears what the entries' keyword index keeps of deleted entries (SQLite:
  // FTS5 'optimize' of entries_fts, whose older segments keep a deleted
  // row's tokens until merged; O(index size), ~seconds at 100k entries, so
  // Delete does not do it per entry: hygiene does, each run). Nothing to do
  // for a store that deletes index rows outright (the default).
  virtual Status CompactEntryIndex() { return Status::Ok(); }
};

}  // namespace mnemo::storage

// The markdown backend (spec 10, "Backends"): memory entries live in
// human-readable files (entry_file.h, entry_folder.h), which are the source
// of truth; a SQLite index beside them answers every query, so search is
// the SQLite backend's. Everything that is not an entry (episodic turns,
// segments, events, facets, documents, context events, graph) is not part of
// the markdown layout and goes to a second backend unchanged.
//
// Keeping files and index in step:
// - Before every entry read or write the folder is scanned (one stat per
//   file). A file whose stamp (size, mtime, inode) differs from the one this
//   process last saw, a new file and a gone file are parsed, under the
//   folder lock, and the index is reconciled with them: items are upserted
//   with their id and times, items that left every file are deleted.
//   Unchanged files cost one stat each; nothing is parsed.
// - Malformed lines are reported to the logger ("mnemo: warning: file:line: ...")
//   and skipped. Of two items with one (owner, namespace, key), the second
//   is reported and skipped; an item reusing another item's id gets a new id.
// - Items a person added without metadata get an id (the index entry of the
//   same address keeps its id), created_at (a daily or conversation file's
//   date, else now) and updated_at now; a changed item whose updated_at was
//   left alone gets updated_at now. Their file is then rewritten with the
//   metadata, so a rebuilt index gives the same ids.
// - Writes (Upsert, UpsertBatch, Mutate, Delete, ApplyHygiene) hold the
//   folder lock (one writer across processes), reconcile first (so nobody's
//   edit is overwritten), write the index, then replace each affected file
//   atomically. An entry stays in the file that holds it while its category
//   and archived flag still fit that file; otherwise it moves to
//   EntryFilePath. If a file cannot be written the write fails and the file
//   is parsed again on the next operation, which puts the index back in
//   step with it.
// - Writes refuse (kInvalidArgument) what no file can hold: a category
//   other than core, daily, conversation or [a-z0-9_-]{1,64}, a key with a
//   line break.
// - Usage counters (access_count, useful_count) are not in the files: they
//   live in the index only, and a rebuilt index starts them at 0.
//
// The index is derived: deleting it (while no process has it open) and
// opening again rebuilds the same entries, ids and times from the files.
// Its vectors are derived too (recomputed by the vector filler).
//
// Thread-safety: as Backend. Reads run concurrently once the folder is
// checked; writes of one process are serialised by a mutex, writes of
// several processes by the folder lock.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/backend.h"
#include "storage/markdown/entry_folder.h"

namespace mnemo::storage::markdown {

class MarkdownBackend final : public Backend {
 public:
  // Reconciles the index with the files under `root` (created when
  // missing) before returning: index entries in no file are deleted.
  // `index` holds the entries and their vectors; `data` everything else
  // (nullptr: the index holds that too). A line of a file that cannot be
  // read is kept in the file, skipped and reported to `logger`.
  static Result<std::unique_ptr<MarkdownBackend>> Open(
      std::string root, std::unique_ptr<Backend> index, std::unique_ptr<Backend> data,
      std::shared_ptr<Logger> logger = StderrLogger());

  std::string_view name() const override { return "markdown"; }
  std::string_view store_id() const override { return index_->store_id(); }
  int schema_version() const override { return index_->schema_version(); }

  // Entries: markdown_backend.cc.
  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                              std::vector<Label>* labels = nullptr) override;
  Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                           const MutateFn& decide) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, std::string_view ns,
                                         std::string_view key) override;
  Result<std::optional<Entry>> Resolve(std::string_view ns, std::string_view key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                     const HygieneFn& decide) override;
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                 const std::function<Status(const Entry&)>& fn) override;
  Result<int64_t> Generation(Counter which) override;

  // Vectors and reads by label (the index's): markdown_forward.cc.
  Status PutVectors(std::string_view signature, std::span<const LabeledVector> vectors) override;
  Status ForEachVector(std::string_view signature,
                       const std::function<Status(const LabeledVector&)>& fn) override;
  Result<std::vector<LabeledVector>> VectorsFor(std::string_view signature,
                                                std::span<const Label> labels) override;
  Result<std::vector<MissingVector>> MissingVectors(std::string_view signature, Label after_label,
                                                    int limit) override;
  Result<int64_t> CountMissingVectors(std::string_view signature) override;
  Result<int64_t> VectorWatermark(std::string_view signature) override;
  Result<std::vector<VectorChange>> VectorChangesSince(std::string_view signature, int64_t seq,
                                                       int limit) override;
  Result<int64_t> CountVectors(std::string_view signature) override;
  Result<std::vector<KeywordHit>> FetchByLabels(std::span<const Label> labels,
                                                const EntryFilter& filter,
                                                const std::vector<std::string>& terms) override;
  Result<int64_t> CountMatching(const EntryFilter& filter) override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;

  // Not entries (the data backend's): markdown_forward.cc.
  Result<std::vector<TurnRow>> AppendTurns(std::span<const TurnWrite> rows) override;
  Result<std::vector<TurnRow>> SessionTurns(std::string_view owner, std::string_view session_id,
                                            int64_t from_seq, int64_t to_seq) override;
  Result<std::vector<TurnHit>> SearchTurns(const TurnQuery& query) override;
  Result<std::vector<TurnRow>> TurnsAfter(int64_t after_id, int limit) override;
  Status ReplaceTurnSearchText(int64_t id, std::string_view search_text) override;
  Result<std::optional<SegmentRow>> OpenSegment(std::string_view owner,
                                                std::string_view session_id) override;
  Status PutSegment(const SegmentRow& s) override;
  Result<bool> CloseSegment(std::string_view id, TimeMs closed_at) override;
  Result<std::optional<SegmentRow>> GetSegment(std::string_view id) override;
  Result<std::vector<SegmentRow>> Segments(bool all, std::string_view owner,
                                           std::optional<std::string_view> session_id) override;
  Result<std::vector<SegmentRow>> SegmentsNeedingRecap(int limit, int64_t max_attempts) override;
  Result<SegmentChange> StepSegment(std::string_view owner, std::string_view session_id,
                                    const SegmentDecision& decide) override;
  Result<TurnClaimOutcome> ClaimTurn(const TurnClaim& claim,
                                     std::span<const TurnWrite> rows) override;
  Result<bool> FinishTurnClaim(const TurnKey& key, std::string_view result) override;
  Result<std::optional<TurnClaim>> GetTurnClaim(const TurnKey& key) override;
  Result<std::vector<SegmentRow>> IdleOpenSegments(TimeMs before, int limit) override;
  Result<int64_t> AddEvents(std::span<const EventRow> rows) override;
  Result<std::vector<EventHit>> SearchEvents(const EventQuery& query) override;
  Result<FacetRow> MergeFacet(const FacetRow& observation) override;
  Result<std::vector<FacetRow>> Facets(bool all, std::string_view owner) override;
  Result<std::vector<SegmentHit>> SearchSegments(const SegmentQuery& query) override;
  Status PutSegmentVector(std::string_view segment_id, std::string_view signature,
                          std::span<const float> vector) override;
  Result<std::vector<SegmentVector>> SegmentVectorsSince(std::string_view signature,
                                                         int64_t after_version, int limit) override;
  Result<DocumentPut> PutDocument(const DocumentRow& row) override;
  Result<std::optional<DocumentRow>> GetDocument(std::string_view id, bool count_access) override;
  Result<std::vector<DocumentHit>> SearchDocuments(const DocumentQuery& query) override;
  Result<std::vector<DocumentRow>> ListDocuments(std::optional<std::string> owner,
                                                 std::optional<std::string> source_prefix,
                                                 int limit, int64_t offset) override;
  Result<bool> DeleteDocument(std::string_view id) override;
  Result<int64_t> CountDocuments(std::optional<std::string> owner) override;
  Result<std::vector<int64_t>> DocumentFrequencies(std::span<const std::string> terms) override;
  Status UpdateDocumentDerived(std::string_view id, std::string_view search_text,
                               std::string_view summary, std::span<const std::string> tags,
                               std::span<const std::string> entities, TimeMs updated_at) override;
  Result<ContextEventRow> AppendContextEvent(const ContextEventRow& row) override;
  Result<std::vector<ContextEventRow>> ContextEvents(std::string_view owner,
                                                     std::string_view session_id) override;
  Result<std::vector<ContextEventHit>> SearchContextEvents(const ContextEventQuery& query) override;
  Result<int64_t> DeleteContextEventsUpTo(std::string_view owner, std::string_view session_id,
                                          int64_t up_to_seq) override;
  Result<int64_t> DeleteContextEventsByIds(std::span<const int64_t> ids) override;
  Result<TripleUpsert> UpsertTriple(const TripleRow& row, bool single_valued) override;
  Result<std::vector<TripleRow>> QueryTriples(const TripleQuery& query) override;
  Result<int64_t> DeleteTriplesFromSource(std::string_view source) override;
  // Erasure: a session is not an entry (data backend); a principal's
  // entries leave their files (rewritten atomically) and the index, the
  // rest the data backend.
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;
  Status CompactEntryIndex() override;

  // Backup: Restore in markdown_backend.cc (entries to the files), the
  // reads forwarded (markdown_forward.cc).
  Result<std::vector<ContextEventRow>> ContextEventsAfter(int64_t after_id, int limit) override;
  Result<std::vector<std::string>> VectorSignatures() override;
  Result<RestoreReport> Restore(const RestoreBatch& batch) override;

 private:
  // What this process last saw of one file: its stamp (nullopt: parse it
  // again) and its entries by address (owner, namespace, key), as the index
  // holds them; `order` lists addresses in file order (stale ones included).
  struct KnownFile {
    std::optional<FileStamp> stamp;
    std::unordered_map<std::string, Entry> entries;
    std::vector<std::string> order;
  };
  struct Where {
    std::string path;
    std::string address;
  };
  // Files to rewrite, each with the addresses it held before the change.
  using Dirty = std::map<std::string, std::unordered_set<std::string>>;

  MarkdownBackend(std::string root, std::unique_ptr<Backend> index, std::unique_ptr<Backend> data,
                  std::shared_ptr<Logger> logger);
  void Warn(const std::string& problem) const { logger_->Log(LogLevel::kWarn, problem); }

  Backend& data() { return data_ != nullptr ? *data_ : *index_; }

  // Brings the index in step with the files (see the top of this file);
  // takes the folder lock only when some file changed.
  Status Sync();
  // The same, with mu_ and the folder lock held. `full`: every file is
  // parsed and index entries in no file are deleted (at open).
  Status ReconcileLocked(bool full);
  // Records `stored` (as the index now holds it) in its file.
  void PlaceLocked(const Entry& stored, Dirty& dirty);
  // Removes the entry `id` from its file, if any.
  void ForgetLocked(const std::string& id, Dirty& dirty);
  void MarkDirtyLocked(const std::string& path, Dirty& dirty);
  // Rewrites every file of `dirty`: items of the entries it held are
  // replaced or removed in place, new ones appended, every other line
  // (titles, notes, lines that did not parse) kept as it was.
  Status FlushLocked(const Dirty& dirty);
  Status RewriteLocked(const std::string& path, const std::unordered_set<std::string>& before);

  // A write: mu_ and the folder lock held, the index reconciled, then
  // `apply`, whose changes reach the files through `dirty`.
  template <typename T, typename Fn>
  Result<T> Write(Fn&& apply);

  const std::string root_;
  const std::shared_ptr<Logger> logger_;
  std::unique_ptr<Backend> index_;
  std::unique_ptr<Backend> data_;

  // Guards everything below. Recursive, and writing_ set during a write, so
  // a callback of Mutate or ApplyHygiene that reads through this backend
  // neither deadlocks nor reconciles in the middle of the write.
  std::recursive_mutex mu_;
  bool writing_ = false;
  std::map<std::string, KnownFile> files_;
  std::unordered_map<std::string, Where> where_;        // id -> file and address
  std::unordered_map<std::string, std::string> id_at_;  // address -> id
};

}  // namespace mnemo::storage::markdown

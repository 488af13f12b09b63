// The markdown backend (spec 10, "Backends"): memory entries live in
// human-readable files (entry_file.h, entry_folder.h), which are the source
// of truth; a SQLite index beside them answers every query, so search is
// the SQLite backend's. Everything that is not an entry (episodic turns,
// segments, events, facets, documents, context events, graph) is not part of
// the markdown layout: those stores are a SQLite database's, handed out by
// OpenMarkdownStores (storage/stores.h) as they are, with no layer between.
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
// Thread-safety: as every store (safe from several threads). Reads run concurrently once the folder
// is checked; writes of one process are serialised by a mutex, writes of several processes by the
// folder lock.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "storage/admin_store.h"
#include "storage/entry_store.h"
#include "storage/markdown/entry_folder.h"
#include "storage/stores.h"

namespace mnemo::storage::markdown {

class MarkdownBackend final : public EntryStore, public AdminStore {
 public:
  // Reconciles the index with the files under `root` (created when
  // missing) before returning: index entries in no file are deleted.
  // `index` holds the entries and their vectors; `data` everything else
  // (no stores, data.admin == nullptr: the index holds that too), which this
  // backend touches only to restore and erase across both. A line of a file
  // that cannot be read is kept in the file, skipped and reported to
  // `logger`.
  static Result<std::shared_ptr<MarkdownBackend>> Open(
      std::string root, Stores index, Stores data, std::shared_ptr<Logger> logger = StderrLogger());

  // The stores of a markdown memory: this backend's entries (and admin,
  // which spans both) over `index`, every other store `data`'s (or the
  // index's when `data` is empty) as it is.
  static Result<Stores> Bundle(std::string root, Stores index, Stores data,
                               std::shared_ptr<Logger> logger = StderrLogger());

  std::string_view store_id() const override { return index_.entries->store_id(); }

  // Entries: markdown_backend.cc.
  Result<UpsertResult> Upsert(const EntryWrite& write) override;
  Result<int64_t> UpsertBatch(std::span<const EntryWrite> writes,
                              std::vector<Label>* labels = nullptr) override;
  Result<std::vector<UpsertResult>> Mutate(const EntryGroup& group,
                                           const MutateFn& decide) override;
  Result<std::optional<Entry>> FindExact(std::string_view owner, const Namespace& ns,
                                         const Key& key) override;
  Result<std::optional<Entry>> Resolve(const Namespace& ns, const Key& key,
                                       const ReadScope& scope) override;
  Result<bool> Delete(std::string_view id) override;
  Result<HygieneCounts> ApplyHygiene(std::span<const std::string> ids,
                                     const HygieneFn& decide) override;
  Result<bool> ClaimHygieneRun(TimeMs now, TimeMs interval) override;
  Result<std::optional<TimeMs>> LastHygieneRun() override;
  Result<std::optional<Entry>> AddCounters(std::string_view id, int64_t access_delta,
                                           int64_t useful_delta) override;
  Result<std::vector<Entry>> List(const EntryFilter& filter, int limit, int64_t offset) override;
  Result<std::vector<KeywordHit>> KeywordSearch(const KeywordQuery& query) override;
  Result<Stats> GetStats(const ReadScope& scope) override;
  Status ForEach(const ReadScope& scope, std::string_view ns_prefix,
                 const std::function<Status(const Entry&)>& fn) override;
  Result<int64_t> Generation(Counter which) override;

  // Vectors and reads by label (the index's): markdown_vectors.cc.
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
  Result<std::vector<Label>> AcceptedLabels(std::span<const Label> labels,
                                            const EntryFilter& filter) override;
  Result<std::vector<Label>> MatchingLabels(const EntryFilter& filter, int limit) override;

  // Erasure: a session is not an entry (the data stores'); a principal's
  // entries leave their files (rewritten atomically) and the index, the
  // rest the data stores.
  Result<ErasureCounts> EraseSession(const SessionErasure& what) override;
  Result<ErasureCounts> ErasePrincipal(std::string_view owner) override;
  Status CompactEntryIndex() override;

  // Backup: Restore in markdown_backend.cc (entries to the files).
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

  MarkdownBackend(std::string root, Stores index, Stores data, std::shared_ptr<Logger> logger);
  void Warn(const std::string& problem) const { logger_->Log(LogLevel::kWarn, problem); }

  bool has_data() const { return data_.admin != nullptr; }
  AdminStore& data_admin() { return has_data() ? *data_.admin : *index_.admin; }

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
  const Stores index_;
  const Stores data_;

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

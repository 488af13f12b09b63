#include "storage/markdown/markdown_backend.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <utility>

#include "base/time.h"
#include "storage/markdown/entry_file.h"
#include "storage/rules/erasure_rules.h"
#include "storage/sqlite/sqlite_backend.h"
#include "text/strip.h"

namespace mnemo::storage {
namespace markdown {
namespace {

constexpr std::string_view kDefaultOwner = "local";
constexpr unsigned kFolderMode = 0700;

std::string Address(std::string_view owner, std::string_view ns, std::string_view key) {
  std::string out;
  out.reserve(owner.size() + ns.size() + key.size() + 2);
  out.append(owner).append(1, '\0').append(ns).append(1, '\0').append(key);
  return out;
}

std::string Address(const Entry& e) { return Address(e.owner, e.ns, e.key); }

// Everything a file says about an entry.
bool SameInFile(const Entry& a, const Entry& b) {
  return a.id == b.id && a.owner == b.owner && a.ns == b.ns && a.key == b.key &&
         a.content == b.content && a.category == b.category && a.tags == b.tags &&
         a.visibility == b.visibility && a.created_at == b.created_at &&
         a.updated_at == b.updated_at && a.archived == b.archived;
}

// What a person changes when editing an item (times and place aside).
bool SameText(const Entry& a, const Entry& b) {
  return a.content == b.content && a.category == b.category && a.tags == b.tags &&
         a.visibility == b.visibility;
}

TimeMs WallNow() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Midnight UTC of a "daily/YYYY-MM-DD.md" file's date.
std::optional<TimeMs> DateOfFile(std::string_view path) {
  if (path.starts_with("archive/")) path.remove_prefix(8);
  const size_t slash = path.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  return mnemo::internal::ParseRfc3339(std::string(path.substr(slash + 1, 10)) + "T00:00:00Z");
}

std::string TitleOf(std::string_view path) {
  return std::string(path.substr(0, path.size() - 3));  // without ".md"
}

// Whether an entry of `e`'s category, archived flag and namespace belongs in
// `path`.
bool Fits(const std::string& path, const Entry& e) {
  const std::optional<FilePlace> place = PlaceOfFile(path);
  return place && place->category == e.category && place->archived == e.archived &&
         place->system == IsSystemNamespace(e.ns);
}

// What the files can hold: a category the layout has a file for (spec 10),
// and a key on one line (an item's key cannot span lines; the engine
// refuses control characters in keys anyway).
Status CheckWrite(const EntryWrite& write) {
  if (write.key.find('\n') != std::string::npos) {
    return InvalidArgument("key must not contain a line break", "key");
  }
  const std::string& category = write.category;
  if (category == "daily" || category == "conversation" || PlaceOfFile(category + ".md")) {
    return Status::Ok();
  }
  return InvalidArgument(
      "category \"" + category + "\" is invalid: use core, daily, conversation or [a-z0-9_-]{1,64}",
      "category");
}

EntryWrite WriteOf(const Entry& e) {
  EntryWrite w{.owner = e.owner,
               .ns = e.ns,
               .key = e.key,
               .content = e.content,
               .category = e.category,
               .tags = e.tags,
               .visibility = e.visibility,
               .now = e.updated_at};
  if (!e.id.empty()) w.id = e.id;
  w.created_at = e.created_at;
  w.archived = e.archived;
  return w;
}

// The entry stored at an address the backend holds as text (a write it
// checked, an item of a file): parsed as a request's address is.
Result<std::optional<Entry>> FindStored(EntryStore& index, std::string_view owner,
                                        const std::string& ns, const std::string& key) {
  MNEMO_ASSIGN_OR_RETURN(Namespace parsed_ns, Namespace::Parse(ns));
  MNEMO_ASSIGN_OR_RETURN(Key parsed_key, Key::Parse(key));
  return index.FindExact(owner, parsed_ns, parsed_key);
}

}  // namespace

MarkdownBackend::MarkdownBackend(std::string root, Stores index, Stores data,
                                 std::shared_ptr<Logger> logger)
    : root_(std::move(root)),
      logger_(std::move(logger)),
      index_(std::move(index)),
      data_(std::move(data)) {}

Result<std::shared_ptr<MarkdownBackend>> MarkdownBackend::Open(std::string root, Stores index,
                                                               Stores data,
                                                               std::shared_ptr<Logger> logger) {
  if (root.empty()) return InvalidArgument("the markdown folder must not be empty", "path");
  if (index.entries == nullptr || index.admin == nullptr) {
    return InvalidArgument("the markdown backend needs an index", "index");
  }
  MNEMO_RETURN_IF_ERROR(mnemo::internal::MakeFolders(root, kFolderMode));
  std::shared_ptr<MarkdownBackend> backend(
      new MarkdownBackend(std::move(root), std::move(index), std::move(data), std::move(logger)));
  std::lock_guard lock(backend->mu_);
  MNEMO_ASSIGN_OR_RETURN(FolderLock folder, FolderLock::Acquire(backend->root_));
  MNEMO_RETURN_IF_ERROR(backend->ReconcileLocked(/*full=*/true));
  return backend;
}

Result<Stores> MarkdownBackend::Bundle(std::string root, Stores index, Stores data,
                                       std::shared_ptr<Logger> logger) {
  const Stores& rest = data.admin != nullptr ? data : index;
  Stores stores{.name = "markdown",
                .schema_version = index.schema_version,
                .episodic = rest.episodic,
                .documents = rest.documents,
                .context_events = rest.context_events,
                .graph = rest.graph};
  MNEMO_ASSIGN_OR_RETURN(
      std::shared_ptr<MarkdownBackend> backend,
      Open(std::move(root), std::move(index), std::move(data), std::move(logger)));
  stores.entries = backend;
  stores.admin = std::move(backend);
  return stores;
}

Status MarkdownBackend::Sync() {
  std::lock_guard lock(mu_);
  if (writing_) return Status::Ok();
  MNEMO_ASSIGN_OR_RETURN(auto scan, ScanEntryFiles(root_));
  bool changed = scan.size() != files_.size();
  for (auto it = scan.begin(); !changed && it != scan.end(); ++it) {
    auto known = files_.find(it->first);
    changed = known == files_.end() || known->second.stamp != it->second;
  }
  if (!changed) return Status::Ok();
  MNEMO_ASSIGN_OR_RETURN(FolderLock folder, FolderLock::Acquire(root_));
  return ReconcileLocked(/*full=*/false);
}

Status MarkdownBackend::ReconcileLocked(bool full) {
  MNEMO_ASSIGN_OR_RETURN(auto scan, ScanEntryFiles(root_));
  std::vector<std::string> changed;
  for (const auto& [path, stamp] : scan) {
    auto known = files_.find(path);
    if (full || known == files_.end() || known->second.stamp != stamp) changed.push_back(path);
  }
  for (const auto& [path, known] : files_) {
    if (!scan.contains(path)) changed.push_back(path);
  }
  if (changed.empty() && !full) return Status::Ok();

  // What the changed files held, forgotten until their items are read again.
  std::unordered_map<std::string, Entry> before;  // by id
  for (const std::string& path : changed) {
    auto known = files_.find(path);
    if (known == files_.end()) continue;
    for (auto& [address, e] : known->second.entries) {
      where_.erase(e.id);
      id_at_.erase(address);
      before.emplace(e.id, std::move(e));
    }
    files_.erase(known);
  }
  // At open, the whole index, to compare with and to find entries in no file.
  std::unordered_map<std::string, Entry> indexed;  // by address
  if (full) {
    MNEMO_RETURN_IF_ERROR(index_.entries->ForEach({}, "", [&](const Entry& e) {
      indexed.emplace(Address(e), e);
      return Status::Ok();
    }));
  }

  Dirty rewrite;
  const TimeMs now = WallNow();
  // Items in a file that is not their place (an entry of a system namespace
  // in a person's file, as versions before "system/" wrote them, or a person
  // moving an item): moved once every file is read.
  std::vector<Entry> misplaced;
  for (const std::string& path : changed) {
    const auto stamp = scan.find(path);
    if (stamp == scan.end()) continue;
    Result<std::string> text = ReadEntryFile(root_, path);
    if (!text.ok()) {
      if (text.status().code() == StatusCode::kNotFound) continue;  // gone since the scan
      return text.status();
    }
    const FilePlace place = *PlaceOfFile(path);
    // Problems name the file as a person finds it.
    const std::string shown = (std::filesystem::path(root_) / path).string();
    ParsedFile parsed = ParseEntryFile(*text, shown, place.category, place.archived, kDefaultOwner);
    for (const std::string& problem : parsed.problems) Warn(problem);
    KnownFile& known = files_[path];
    known.stamp = stamp->second;
    bool touched = false;
    for (FileEntry& item : parsed.entries) {
      const Entry as_parsed = item.entry;
      Entry& want = item.entry;
      const std::string address = Address(want);
      if (id_at_.contains(address)) {
        Warn(shown + ":" + std::to_string(item.line) + ": a second item for key \"" + want.key +
             "\" (namespace " + want.ns + ", owner " + want.owner + "); the line was skipped");
        continue;
      }
      if (!want.id.empty() && where_.contains(want.id)) {
        Warn(shown + ":" + std::to_string(item.line) + ": the id of item \"" + want.key +
             "\" is another item's; it gets a new id");
        want.id.clear();
      }
      std::optional<Entry> current;
      if (auto it = before.find(want.id);
          !want.id.empty() && it != before.end() && Address(it->second) == address) {
        current = it->second;
      } else if (full) {
        if (auto at = indexed.find(address); at != indexed.end()) current = at->second;
      } else {
        MNEMO_ASSIGN_OR_RETURN(current, FindStored(*index_.entries, want.owner, want.ns, want.key));
      }
      // Items a person wrote or changed get what the files need to
      // round-trip: an id, times.
      if (!item.has_meta) {
        want.id = current ? current->id : "";
        want.created_at = current ? current->created_at : DateOfFile(path).value_or(now);
        want.updated_at = current && SameText(*current, want) ? current->updated_at : now;
      } else if (current && !SameText(*current, want) && current->updated_at == want.updated_at) {
        want.updated_at = now;
      }
      Entry stored;
      if (current && SameInFile(*current, want)) {
        stored = *current;
      } else {
        Result<UpsertResult> put = index_.entries->Upsert(WriteOf(want));
        if (!put.ok() && put.status().code() == StatusCode::kConflict && !want.id.empty()) {
          // The id is held by an entry at another address (a renamed key):
          // the file wins.
          MNEMO_RETURN_IF_ERROR(index_.entries->Delete(want.id).status());
          put = index_.entries->Upsert(WriteOf(want));
        }
        if (!put.ok()) {
          Warn(shown + ":" + std::to_string(item.line) +
               ": cannot index the item: " + put.status().ToString() + "; the line was skipped");
          continue;
        }
        stored = std::move(put->entry);
      }
      if (!item.has_meta || !SameInFile(stored, as_parsed)) touched = true;
      where_[stored.id] = Where{.path = path, .address = address};
      id_at_[address] = stored.id;
      known.order.push_back(address);
      if (!Fits(path, stored)) misplaced.push_back(stored);
      known.entries.emplace(address, std::move(stored));
    }
    if (touched) MarkDirtyLocked(path, rewrite);
  }
  for (const Entry& e : misplaced) PlaceLocked(e, rewrite);
  // Entries that left every file.
  for (const auto& [id, e] : before) {
    if (!where_.contains(id)) MNEMO_RETURN_IF_ERROR(index_.entries->Delete(id).status());
  }
  for (const auto& [address, e] : indexed) {
    if (!where_.contains(e.id)) MNEMO_RETURN_IF_ERROR(index_.entries->Delete(e.id).status());
  }
  return FlushLocked(rewrite);
}

void MarkdownBackend::MarkDirtyLocked(const std::string& path, Dirty& dirty) {
  if (dirty.contains(path)) return;
  std::unordered_set<std::string>& held = dirty[path];
  if (auto known = files_.find(path); known != files_.end()) {
    for (const auto& [address, e] : known->second.entries) held.insert(address);
  }
}

void MarkdownBackend::PlaceLocked(const Entry& stored, Dirty& dirty) {
  const std::string address = Address(stored);
  std::string from;  // the file holding this address now
  if (auto at = id_at_.find(address); at != id_at_.end()) {
    if (auto w = where_.find(at->second); w != where_.end()) from = w->second.path;
    if (at->second != stored.id) where_.erase(at->second);  // an import replaced the id
  }
  const std::string to = !from.empty() && Fits(from, stored) ? from : EntryFilePath(stored);
  if (!from.empty() && from != to) {
    MarkDirtyLocked(from, dirty);
    files_[from].entries.erase(address);
  }
  MarkDirtyLocked(to, dirty);
  KnownFile& file = files_[to];
  if (!file.entries.contains(address)) file.order.push_back(address);
  file.entries.insert_or_assign(address, stored);
  where_[stored.id] = Where{.path = to, .address = address};
  id_at_[address] = stored.id;
}

void MarkdownBackend::ForgetLocked(const std::string& id, Dirty& dirty) {
  auto w = where_.find(id);
  if (w == where_.end()) return;
  MarkDirtyLocked(w->second.path, dirty);
  files_[w->second.path].entries.erase(w->second.address);
  id_at_.erase(w->second.address);
  where_.erase(w);
}

Status MarkdownBackend::FlushLocked(const Dirty& dirty) {
  Status first = Status::Ok();
  for (const auto& [path, held] : dirty) {
    Status s = RewriteLocked(path, held);
    if (!s.ok()) {
      // Parsed again on the next operation, which puts the index back in
      // step with what the file holds.
      if (auto known = files_.find(path); known != files_.end()) known->second.stamp.reset();
      if (first.ok()) first = std::move(s);
    }
  }
  return first;
}

Status MarkdownBackend::RewriteLocked(const std::string& path,
                                      const std::unordered_set<std::string>& before) {
  KnownFile& file = files_[path];
  std::string old_text;
  if (Result<std::string> text = ReadEntryFile(root_, path); text.ok()) {
    old_text = std::move(*text);
  } else if (text.status().code() != StatusCode::kNotFound) {
    return text.status();
  }
  const FilePlace place = *PlaceOfFile(path);
  const ParsedFile parsed =
      ParseEntryFile(old_text, path, place.category, place.archived, kDefaultOwner);
  // The first item of each address the file held is this backend's; later
  // duplicates and lines that did not parse stay as a person left them.
  std::unordered_map<int, std::pair<int, std::string>> ours;  // line -> last line, address
  std::unordered_set<std::string> seen;
  for (const FileEntry& item : parsed.entries) {
    std::string address = Address(item.entry);
    if (before.contains(address) && seen.insert(address).second) {
      ours.emplace(item.line, std::pair{item.last_line, std::move(address)});
    }
  }
  const std::vector<std::string_view> lines = FileLines(old_text);
  const std::string title = "# " + TitleOf(path);
  std::string text;
  bool other_lines = false;  // anything a person wrote besides items and the title
  std::unordered_set<std::string> written;
  for (size_t i = 0; i < lines.size();) {
    if (auto item = ours.find(static_cast<int>(i) + 1); item != ours.end()) {
      const std::string& address = item->second.second;
      if (auto e = file.entries.find(address); e != file.entries.end()) {
        text += RenderItem(e->second);
        written.insert(address);
      }
      i = static_cast<size_t>(item->second.first);
      continue;
    }
    if (!text::IsBlank(lines[i]) && lines[i] != title) other_lines = true;
    text.append(lines[i]).append("\n");
    ++i;
  }
  if (lines.empty()) text = title + "\n\n";
  std::vector<std::string> order;
  order.reserve(file.entries.size());
  std::unordered_set<std::string> listed;
  for (const std::string& address : file.order) {
    auto e = file.entries.find(address);
    if (e == file.entries.end() || !listed.insert(address).second) continue;
    order.push_back(address);
    if (!written.contains(address)) text += RenderItem(e->second);
  }
  file.order = std::move(order);
  if (file.entries.empty() && !other_lines) text.clear();
  if (text == old_text && file.stamp) return Status::Ok();
  MNEMO_ASSIGN_OR_RETURN(std::optional<FileStamp> stamp, ReplaceEntryFile(root_, path, text));
  if (!stamp) {
    files_.erase(path);
  } else {
    file.stamp = *stamp;
  }
  return Status::Ok();
}

template <typename T, typename Fn>
Result<T> MarkdownBackend::Write(Fn&& apply) {
  std::lock_guard lock(mu_);
  MNEMO_ASSIGN_OR_RETURN(FolderLock folder, FolderLock::Acquire(root_));
  MNEMO_RETURN_IF_ERROR(ReconcileLocked(/*full=*/false));
  Dirty dirty;
  writing_ = true;
  Result<T> result = apply(dirty);
  writing_ = false;
  Status flushed = FlushLocked(dirty);
  if (!result.ok()) return result;
  if (!flushed.ok()) return flushed;
  return result;
}

Result<UpsertResult> MarkdownBackend::Upsert(const EntryWrite& write) {
  MNEMO_RETURN_IF_ERROR(CheckWrite(write));
  return Write<UpsertResult>([&](Dirty& dirty) -> Result<UpsertResult> {
    MNEMO_ASSIGN_OR_RETURN(UpsertResult r, index_.entries->Upsert(write));
    PlaceLocked(r.entry, dirty);
    return r;
  });
}

// Entries (and their vectors) go to the index and the files in one write;
// the other rows go with them when they live in the index, else to the
// data store first, so an entry restore never runs after a failed one.
Result<RestoreReport> MarkdownBackend::Restore(const RestoreBatch& batch) {
  for (const EntryWrite& w : batch.entries) MNEMO_RETURN_IF_ERROR(CheckWrite(w));
  MNEMO_RETURN_IF_ERROR(ValidateRestoreBatch(batch));
  RestoreReport forwarded;
  const RestoreBatch* to_index = &batch;
  RestoreBatch entries_only;
  if (has_data()) {
    RestoreBatch rest = batch;
    rest.entries.clear();
    rest.vectors.clear();
    MNEMO_ASSIGN_OR_RETURN(forwarded, data_.admin->Restore(rest));
    entries_only.entries = batch.entries;
    entries_only.vectors = batch.vectors;
    to_index = &entries_only;
  }
  return Write<RestoreReport>([&](Dirty& dirty) -> Result<RestoreReport> {
    MNEMO_ASSIGN_OR_RETURN(RestoreReport report, index_.admin->Restore(*to_index));
    std::unordered_set<std::string> placed;
    for (const EntryWrite& w : batch.entries) {
      if (!placed.insert(Address(w.owner, w.ns, w.key)).second) continue;
      MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> stored,
                             FindStored(*index_.entries, w.owner, w.ns, w.key));
      if (stored) PlaceLocked(*stored, dirty);
    }
    report.skipped += forwarded.skipped;
    report.documents_skipped += forwarded.documents_skipped;
    report.triples_skipped += forwarded.triples_skipped;
    return report;
  });
}

Result<int64_t> MarkdownBackend::UpsertBatch(std::span<const EntryWrite> writes,
                                             std::vector<Label>* labels) {
  for (const EntryWrite& w : writes) MNEMO_RETURN_IF_ERROR(CheckWrite(w));
  return Write<int64_t>([&](Dirty& dirty) -> Result<int64_t> {
    MNEMO_ASSIGN_OR_RETURN(int64_t created, index_.entries->UpsertBatch(writes, labels));
    std::unordered_set<std::string> placed;
    for (const EntryWrite& w : writes) {
      if (!placed.insert(Address(w.owner, w.ns, w.key)).second) continue;
      MNEMO_ASSIGN_OR_RETURN(std::optional<Entry> stored,
                             FindStored(*index_.entries, w.owner, w.ns, w.key));
      if (stored) PlaceLocked(*stored, dirty);
    }
    return created;
  });
}

Result<std::vector<UpsertResult>> MarkdownBackend::Mutate(const EntryGroup& group,
                                                          const MutateFn& decide) {
  return Write<std::vector<UpsertResult>>([&](Dirty& dirty) -> Result<std::vector<UpsertResult>> {
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<UpsertResult> results,
        index_.entries->Mutate(
            group, [&](const std::vector<Entry>& current) -> Result<std::vector<EntryWrite>> {
              MNEMO_ASSIGN_OR_RETURN(std::vector<EntryWrite> writes, decide(current));
              for (const EntryWrite& w : writes) MNEMO_RETURN_IF_ERROR(CheckWrite(w));
              return writes;
            }));
    for (const UpsertResult& r : results) PlaceLocked(r.entry, dirty);
    return results;
  });
}

Result<bool> MarkdownBackend::Delete(std::string_view id) {
  return Write<bool>([&](Dirty& dirty) -> Result<bool> {
    MNEMO_ASSIGN_OR_RETURN(bool deleted, index_.entries->Delete(id));
    ForgetLocked(std::string(id), dirty);
    return deleted;
  });
}

Result<ErasureCounts> MarkdownBackend::ErasePrincipal(std::string_view owner) {
  MNEMO_RETURN_IF_ERROR(internal::ValidateErasure(owner));
  return Write<ErasureCounts>([&](Dirty& dirty) -> Result<ErasureCounts> {
    std::vector<std::string> ids;
    MNEMO_RETURN_IF_ERROR(index_.entries->ForEach({}, "", [&](const Entry& e) {
      if (e.owner == owner) ids.push_back(e.id);
      return Status::Ok();
    }));
    // The index holds the entries (and, without a data backend, the rest).
    MNEMO_ASSIGN_OR_RETURN(ErasureCounts counts, index_.admin->ErasePrincipal(owner));
    for (const std::string& id : ids) ForgetLocked(id, dirty);
    if (has_data()) {
      MNEMO_ASSIGN_OR_RETURN(ErasureCounts data, data_.admin->ErasePrincipal(owner));
      counts += data;
    }
    return counts;
  });
}

Result<ErasureCounts> MarkdownBackend::EraseSession(const SessionErasure& what) {
  return data_admin().EraseSession(what);
}

Result<HygieneCounts> MarkdownBackend::ApplyHygiene(std::span<const std::string> ids,
                                                    const HygieneFn& decide) {
  return Write<HygieneCounts>([&](Dirty& dirty) -> Result<HygieneCounts> {
    std::vector<std::pair<Entry, HygieneAction>> decided;
    MNEMO_ASSIGN_OR_RETURN(HygieneCounts counts,
                           index_.entries->ApplyHygiene(ids, [&](const Entry& e) {
                             const HygieneAction action = decide(e);
                             decided.emplace_back(e, action);
                             return action;
                           }));
    for (auto& [e, action] : decided) {
      if (action == HygieneAction::kDelete) {
        ForgetLocked(e.id, dirty);
      } else if (action == HygieneAction::kArchive) {
        e.archived = true;
        PlaceLocked(e, dirty);
      }
    }
    return counts;
  });
}

Result<bool> MarkdownBackend::ClaimHygieneRun(TimeMs now, TimeMs interval) {
  return index_.entries->ClaimHygieneRun(now, interval);
}

Result<std::optional<TimeMs>> MarkdownBackend::LastHygieneRun() {
  return index_.entries->LastHygieneRun();
}

Result<std::optional<Entry>> MarkdownBackend::AddCounters(std::string_view id, int64_t access_delta,
                                                          int64_t useful_delta) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->AddCounters(id, access_delta, useful_delta);
}

Result<std::optional<Entry>> MarkdownBackend::FindExact(std::string_view owner, const Namespace& ns,
                                                        const Key& key) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->FindExact(owner, ns, key);
}

Result<std::optional<Entry>> MarkdownBackend::Resolve(const Namespace& ns, const Key& key,
                                                      const ReadScope& scope) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->Resolve(ns, key, scope);
}

Result<std::vector<Entry>> MarkdownBackend::List(const EntryFilter& filter, int limit,
                                                 int64_t offset) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->List(filter, limit, offset);
}

Result<std::vector<KeywordHit>> MarkdownBackend::KeywordSearch(const KeywordQuery& query) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->KeywordSearch(query);
}

Result<Stats> MarkdownBackend::GetStats(const ReadScope& scope) {
  MNEMO_RETURN_IF_ERROR(Sync());
  MNEMO_ASSIGN_OR_RETURN(Stats stats, index_.entries->GetStats(scope));
  stats.backend = "markdown";
  return stats;
}

Status MarkdownBackend::ForEach(const ReadScope& scope, std::string_view ns_prefix,
                                const std::function<Status(const Entry&)>& fn) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->ForEach(scope, ns_prefix, fn);
}

Result<int64_t> MarkdownBackend::Generation(Counter which) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return index_.entries->Generation(which);
}

}  // namespace markdown

Result<Stores> OpenMarkdownStores(const MarkdownOptions& options) {
  namespace fs = std::filesystem;
  if (options.root.empty()) return InvalidArgument("the markdown folder must not be empty", "path");
  const std::string index_path =
      options.index_path.empty() ? (fs::path(options.root) / ".index" / "mnemo-index.db").string()
                                 : options.index_path;
  MNEMO_RETURN_IF_ERROR(
      mnemo::internal::MakeFolders(fs::path(index_path).parent_path().string(), 0700));
  MNEMO_ASSIGN_OR_RETURN(
      Stores index, OpenSqliteStores({.path = index_path, .readers = 2, .logger = options.logger}));
  Stores data;
  if (!options.data_path.empty()) {
    MNEMO_ASSIGN_OR_RETURN(data,
                           OpenSqliteStores({.path = options.data_path, .logger = options.logger}));
  }
  return markdown::MarkdownBackend::Bundle(options.root, std::move(index), std::move(data),
                                           options.logger);
}

}  // namespace mnemo::storage

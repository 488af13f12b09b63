#include "core/search/vector_space.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <exception>
#include <unordered_map>

#include "base/request_trace.h"
#include "index/index_file.h"
#include "index/vector_math.h"
#include "storage/rules/vector_rules.h"

namespace mnemo {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

constexpr int kChangePage = 4096;
// Vectors per UpsertBatch in a rebuild: large enough that the graph build
// keeps both threads busy between batches (50 MB of floats at 384 dims).
constexpr size_t kBuildBatch = 32768;
// The index file is rewritten once max(kSaveAfterChanges, live vectors /
// kSaveFraction) changes are not in it: a restart replays at most that many
// from the change log (an eighth of a rebuild's work), and a large index is
// not rewritten (1.6 GB at 1M vectors) for every few thousand changes.
// Capped well inside the change log a store keeps, so the tail to replay
// is still there.
constexpr int64_t kSaveAfterChanges = 2048;
constexpr int64_t kSaveFraction = 8;
constexpr int64_t kMaxUnsavedChanges = storage::internal::kDefaultVectorLogLimit / 2;
// A failed maintenance job (storage unreachable, say) is retried after this,
// doubling up to kRetryMax: soon enough that a passing fault costs little,
// rarely enough that a lasting one does not rebuild and log in a loop.
constexpr std::chrono::seconds kRetryFirst{1};
constexpr std::chrono::seconds kRetryMax{60};

// Runs of upserts go in as one batch (an hnsw index builds a batch on
// several threads); removals keep their place in the order. A vector of
// other dimensions (another space's leftover) is skipped.
Status ApplyChanges(index::VectorIndex& index, size_t dims,
                    std::span<const storage::VectorChange> changes) {
  std::vector<uint64_t> ids;
  std::vector<float> data;
  auto flush = [&]() -> Status {
    if (ids.empty()) return Status::Ok();
    MNEMO_RETURN_IF_ERROR(index.UpsertBatch(ids, data));
    ids.clear();
    data.clear();
    return Status::Ok();
  };
  for (const storage::VectorChange& c : changes) {
    const auto id = static_cast<uint64_t>(c.label);
    if (c.vector.empty()) {
      MNEMO_RETURN_IF_ERROR(flush());
      MNEMO_RETURN_IF_ERROR(index.Remove(id));
    } else if (c.vector.size() == dims) {
      ids.push_back(id);
      data.insert(data.end(), c.vector.begin(), c.vector.end());
    }
  }
  return flush();
}

}  // namespace

Result<std::unique_ptr<VectorSpace>> VectorSpace::Open(storage::EntryStore& entries,
                                                       std::string signature, size_t dims,
                                                       index::IndexOptions options,
                                                       std::filesystem::path dir,
                                                       std::shared_ptr<Logger> logger,
                                                       std::function<void()> before_verification) {
  std::unique_ptr<VectorSpace> space(new VectorSpace(entries, std::move(signature), dims, options,
                                                     std::move(dir), std::move(logger)));
  space->verification_hook_ = std::move(before_verification);
  bool loaded = false;
  {
    std::lock_guard lock(space->mu_);
    if (!space->dir_.empty()) {
      MNEMO_ASSIGN_OR_RETURN(loaded, space->LoadFile());
    }
    if (!loaded) MNEMO_RETURN_IF_ERROR(space->Rebuild());
  }
  // A loaded file of the wrong kind (the store crossed the threshold since,
  // or the options changed) or full of tombstones is fixed now: opening is
  // startup, not a request, and a rebuilt index is already right.
  MNEMO_RETURN_IF_ERROR(space->RunMaintenance({}));
  // A rebuilt index is written at once: a crash before the next clean exit
  // then finds a file and replays the change log since, instead of
  // rebuilding again (issue 17).
  if (!loaded && !space->dir_.empty()) {
    if (Status s = space->WriteFile(); !s.ok()) {
      space->LogWarning("cannot save the vector index of " + space->signature_ + ": " +
                        s.message());
    }
  }
  bool pending = false;
  {
    std::lock_guard lock(space->job_mu_);
    pending = space->pending_.has_value();
  }
  if (pending) space->ScheduleMaintenance();
  return space;
}

Status VectorSpace::VerifyFiles() const {
  if (dir_.empty()) return Status::Ok();
  for (index::IndexKind kind : {index::IndexKind::kHnsw, index::IndexKind::kFlat}) {
    Status s = index::VerifyIndexFile(index::IndexFilePath(dir_, signature_, kind));
    if (!s.ok() && s.code() != StatusCode::kNotFound) return s;
  }
  return Status::Ok();
}

Result<bool> VectorSpace::LoadFile() {
  MNEMO_ASSIGN_OR_RETURN(const int64_t newest, entries_.VectorWatermark(signature_));
  bool loaded = false;
  for (index::IndexKind kind : {index::IndexKind::kHnsw, index::IndexKind::kFlat}) {
    auto path = index::IndexFilePath(dir_, signature_, kind);
    if (!std::filesystem::exists(path)) continue;
    // The header first: a file that is not this store's is not read whole.
    auto header = index::ReadIndexFileHeader(path);
    if (header.ok() && header->store_id == entries_.store_id() &&
        header->watermark > static_cast<uint64_t>(newest)) {
      LogWarning("index file " + path.string() + " is ahead of the database (it reflects change " +
                 std::to_string(header->watermark) + ", the database's newest is " +
                 std::to_string(newest) +
                 "): the database is older than the file (restored from a copy?); "
                 "rebuilding from storage");
      continue;
    }
    const bool defer = header.ok() && header->payload_length >= options_.verify_in_background_bytes;
    auto file = index::LoadIndexFile(path, signature_, entries_.store_id(), dims_,
                                     defer ? index::VerifyMode::kDeferred : index::VerifyMode::kNow,
                                     options_);
    if (!file.ok()) {
      LogWarning(file.status().message());
      continue;
    }
    std::shared_ptr<index::VectorIndex> index = std::move(file->index);
    if (file->pending) {
      std::lock_guard lock(job_mu_);
      pending_ = std::move(file->pending);
      pending_for_ = index;
    }
    SetIndex(std::move(index), /*verified=*/!defer);
    watermark_ = static_cast<int64_t>(file->header.watermark);
    file_watermark_ = watermark_;
    loaded = true;
    break;
  }
  if (!loaded) return false;
  // An older database that has since moved past the file's watermark has
  // other changes under the same numbers: the counts then differ (not
  // always, but a restored copy is rarely written to exactly as the file's
  // own history was). One index count in storage. A second round covers
  // another process's write between the catch-up and the count.
  int64_t stored = 0;
  for (int round = 0; round < 2; ++round) {
    if (Status s = CatchUpLocked(); !s.ok()) {
      // A log trimmed past our watermark means rebuild.
      if (s.code() != StatusCode::kNotFound) return s;
      LogWarning("index file of " + signature_ + " is older than the change log (" + s.message() +
                 "); rebuilding from storage");
      file_watermark_ = -1;
      return false;
    }
    if (!verified()) return true;  // the count is the maintenance thread's (RunVerification)
    MNEMO_ASSIGN_OR_RETURN(stored, entries_.CountVectors(signature_));
    if (static_cast<int64_t>(index_->size()) == stored) return true;
  }
  LogWarning("index file of " + signature_ + " holds " + std::to_string(index_->size()) +
             " vectors after catching up, the database " + std::to_string(stored) +
             ": it was built from another state of the database; rebuilding from storage");
  file_watermark_ = -1;
  return false;
}

Status VectorSpace::CheckLoaded(const index::PendingVerification& pending) {
  MNEMO_RETURN_IF_ERROR(pending.Run(&stopping_));
  // As LoadFile counts a small file's vectors, with the space unlocked
  // (requests go on): the count is taken between two reads of the change
  // log's watermark that agree with the index's, so no write falls between
  // the catch-up and the count.
  for (int round = 0; round < 3; ++round) {
    if (stopping_.load()) return Unavailable("the vector space of " + signature_ + " is closing");
    size_t size = 0;
    int64_t watermark = 0;
    {
      std::lock_guard lock(mu_);
      MNEMO_RETURN_IF_ERROR(CatchUpLocked());
      size = index_->size();
      watermark = watermark_.load();
    }
    MNEMO_ASSIGN_OR_RETURN(const int64_t stored, entries_.CountVectors(signature_));
    MNEMO_ASSIGN_OR_RETURN(const int64_t newest, entries_.VectorWatermark(signature_));
    if (newest != watermark) continue;
    if (static_cast<int64_t>(size) == stored) return Status::Ok();
    return Unavailable("index file of " + signature_ + " holds " + std::to_string(size) +
                       " vectors after catching up, the database " + std::to_string(stored) +
                       ": it was built from another state of the database; rebuilding from "
                       "storage");
  }
  return Unavailable("the vectors of " + signature_ +
                     " changed during every count; rebuilding the index from storage");
}

void VectorSpace::RunVerification() {
  std::optional<index::PendingVerification> pending;
  std::shared_ptr<index::VectorIndex> subject;
  {
    std::lock_guard lock(job_mu_);
    pending.swap(pending_);
    subject = pending_for_.lock();
    pending_for_.reset();
  }
  if (!pending || subject == nullptr) return;
  if (verification_hook_) verification_hook_();
  // The checks are taken now: whatever ends them, the index is either
  // verified or distrusted below, never left unverified for good.
  Status checked;
  try {
    checked = CheckLoaded(*pending);
  } catch (const std::exception& e) {
    checked = Internal(std::string("checking the index file of ") + signature_ +
                       " threw: " + e.what() + "; rebuilding from storage");
  }
  if (stopping_.load()) return;  // closing: nothing is to be trusted or rebuilt any more
  std::lock_guard lock(mu_);
  if (index_ != subject) return;  // replaced by an index built from storage meanwhile
  if (checked.ok()) {
    std::lock_guard index_lock(index_mu_);
    index_verified_ = true;
    return;
  }
  LogWarning(checked.message());
  index_distrusted_ = true;
  file_watermark_ = -1;  // the file is not to be loaded again
}

std::shared_ptr<index::VectorIndex> VectorSpace::Current(bool* verified) const {
  std::lock_guard lock(index_mu_);
  if (verified != nullptr) *verified = index_verified_;
  return index_;
}

bool VectorSpace::verified() const {
  bool verified = false;
  Current(&verified);
  return verified;
}

void VectorSpace::SetIndex(std::shared_ptr<index::VectorIndex> index, bool verified) {
  std::lock_guard lock(index_mu_);
  index_ = std::move(index);
  index_verified_ = verified;
  index_distrusted_ = false;
}

size_t VectorSpace::size() const { return Current()->size(); }

std::string_view VectorSpace::kind() const { return index::IndexKindName(Current()->kind()); }

// Batch by batch: a large store goes straight into the graph, never through
// a flat copy of every float vector (at 1M x 384 dimensions the flat index
// and the copy RebuildAs makes of it were 3 GB on top of the graph). Reading
// pages of storage rather than the serving index's own vectors also keeps
// the serving index's lock free (writers would wait for the copy, and
// searches behind them) and gives exact vectors where the index holds
// quantised ones.
Result<VectorSpace::Built> VectorSpace::BuildFromStorage(std::optional<index::IndexKind> kind) {
  MNEMO_ASSIGN_OR_RETURN(int64_t watermark, entries_.VectorWatermark(signature_));
  MNEMO_ASSIGN_OR_RETURN(int64_t count, entries_.CountVectors(signature_));
  const auto expected = static_cast<size_t>(std::max<int64_t>(count, 0));
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<index::VectorIndex> built,
                         index::MakeIndex(kind.value_or(index::ChooseKind(options_, expected)),
                                          dims_, options_, expected));
  std::vector<uint64_t> ids;
  std::vector<float> data;
  auto flush = [&]() -> Status {
    // A closing space abandons a background build (minutes at 1M vectors).
    if (stopping_.load()) return Unavailable("the vector space of " + signature_ + " is closing");
    MNEMO_RETURN_IF_ERROR(built->UpsertBatch(ids, data));
    ids.clear();
    data.clear();
    return Status::Ok();
  };
  MNEMO_RETURN_IF_ERROR(
      entries_.ForEachVector(signature_, [&](const storage::LabeledVector& v) -> Status {
        if (v.vector.size() != dims_) return Status::Ok();  // another space's leftover
        ids.push_back(static_cast<uint64_t>(v.label));
        data.insert(data.end(), v.vector.begin(), v.vector.end());
        return ids.size() >= kBuildBatch ? flush() : Status::Ok();
      }));
  MNEMO_RETURN_IF_ERROR(flush());
  return Built{std::move(built), watermark};
}

Status VectorSpace::Rebuild() {
  const auto start = std::chrono::steady_clock::now();
  MNEMO_ASSIGN_OR_RETURN(Built built, BuildFromStorage(std::nullopt));
  logger_->Log(LogLevel::kDebug, "index " + signature_ + ": rebuilt from storage, " +
                                     std::to_string(built.index->size()) + " vectors in " +
                                     internal::FormatMs(MsSince(start)));
  SetIndex(std::move(built.index));
  watermark_ = built.watermark;
  dirty_ = true;
  file_watermark_ = -1;  // whatever is on disk is older than the change log
  return Status::Ok();
}

Status VectorSpace::CatchUp(index::VectorIndex& index, int64_t* watermark) {
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::VectorChange> changes,
                           entries_.VectorChangesSince(signature_, *watermark, kChangePage));
    MNEMO_RETURN_IF_ERROR(ApplyChanges(index, dims_, changes));
    if (!changes.empty()) *watermark = changes.back().seq;
    if (static_cast<int>(changes.size()) < kChangePage) return Status::Ok();
  }
}

Status VectorSpace::CatchUpLocked(const std::vector<storage::VectorChange>* read) {
  const auto start = std::chrono::steady_clock::now();
  int64_t watermark = watermark_.load();
  Status s;
  if (read == nullptr) {
    s = CatchUp(*index_, &watermark);
  } else {
    // Seqs only grow, and a later snapshot holds every change an earlier
    // one does: what is at or below the watermark is in the index already.
    const auto past =
        std::upper_bound(read->begin(), read->end(), watermark,
                         [](int64_t w, const storage::VectorChange& c) { return w < c.seq; });
    const std::span<const storage::VectorChange> rest(past, read->end());
    s = ApplyChanges(*index_, dims_, rest);
    if (s.ok() && !rest.empty()) watermark = rest.back().seq;
  }
  if (watermark != watermark_.load()) {
    logger_->Log(LogLevel::kDebug, "index " + signature_ + ": caught up from change " +
                                       std::to_string(watermark_.load()) + " to " +
                                       std::to_string(watermark) + " in " +
                                       internal::FormatMs(MsSince(start)));
    watermark_ = watermark;
    dirty_ = true;
  }
  return s;
}

Status VectorSpace::Sync(SyncMode mode) {
  MNEMO_ASSIGN_OR_RETURN(const int64_t newest, entries_.VectorWatermark(signature_));
  return SyncTo(newest, mode);
}

Status VectorSpace::SyncTo(int64_t newest, SyncMode mode) {
  return SyncToWith(newest, mode, nullptr);
}

Result<bool> VectorSpace::SyncFromLog() {
  const int64_t seen = watermark_.load();
  auto read = entries_.VectorChangesSince(signature_, seen, kChangePage);
  if (!read.ok()) {
    if (read.status().code() != StatusCode::kNotFound) return read.status();
    MNEMO_RETURN_IF_ERROR(Sync());  // trimmed past the index: Sync rebuilds
    return true;
  }
  // None after `seen` in the read's snapshot: the store's watermark was at
  // most `seen` then, so the index holds everything a Sync would give it.
  if (read->empty()) return false;
  if (read->size() >= static_cast<size_t>(kChangePage)) {
    MNEMO_RETURN_IF_ERROR(Sync());  // more than a page: read and applied as a backlog
    return true;
  }
  MNEMO_RETURN_IF_ERROR(SyncToWith(read->back().seq, SyncMode::kRequest, &*read));
  return true;
}

Status VectorSpace::SyncToWith(int64_t newest, SyncMode mode,
                               const std::vector<storage::VectorChange>* read) {
  const int64_t seen = watermark_.load();
  if (newest == seen) return Status::Ok();
  std::lock_guard lock(mu_);
  // Searches that saw the same new change queue here: the first catches
  // up, and the rest find the index already at (or past) what they saw,
  // instead of each reading the change log again while the others wait
  // (under a steady write rate every search of another node queued behind
  // one catch-up read per search ahead of it).
  // Seqs only grow: a watermark that moved since and reached `newest` holds
  // every change up to it.
  if (const int64_t now = watermark_.load(); now != seen && now >= newest) return Status::Ok();
  // A backlog of a threshold's worth or more (a bulk import) is applied to
  // the kind it will end up in, in batches, instead of growing a flat index
  // and converting it. A smaller one, like the store that takes the index
  // past the threshold, goes into the flat index: converting it here cost
  // that request 5-6 s at 20 000 vectors, and every other process sharing
  // the store paid the same on its next search.
  const auto backlog = static_cast<size_t>(std::max<int64_t>(newest - watermark_.load(), 0));
  if ((mode == SyncMode::kBulk || backlog >= options_.hnsw_threshold) &&
      index_->kind() == index::IndexKind::kFlat &&
      index::ChooseKind(options_, index_->size() + backlog, index_->kind()) !=
          index::IndexKind::kFlat) {
    if (verified()) {
      MNEMO_ASSIGN_OR_RETURN(auto grown,
                             index::RebuildAs(*index_, index::IndexKind::kHnsw, options_));
      SetIndex(std::move(grown));
      file_watermark_ = -1;
    } else {
      MNEMO_RETURN_IF_ERROR(Rebuild());  // not from vectors still to be checked
    }
  }
  if (Status s = CatchUpLocked(read); !s.ok()) {
    if (s.code() != StatusCode::kNotFound) return s;
    MNEMO_RETURN_IF_ERROR(Rebuild());
  }
  if (index::NeedsMaintenance(*index_, options_) != index::Maintenance::kNone) {
    ScheduleMaintenance();
  }
  return Status::Ok();
}

Status VectorSpace::Put(std::span<const storage::LabeledVector> vectors, bool sync) {
  MNEMO_RETURN_IF_ERROR(entries_.PutVectors(signature_, vectors));
  return sync ? Sync() : Status::Ok();
}

bool VectorSpace::ExpectsCurrent() const {
  constexpr uint32_t kLastSearches = 0xFFFF;
  return std::popcount(behind_history_.load(std::memory_order_relaxed) & kLastSearches) <= 1;
}

void VectorSpace::NoteSearch(bool behind) {
  uint32_t history = behind_history_.load(std::memory_order_relaxed);
  while (!behind_history_.compare_exchange_weak(history, (history << 1) | (behind ? 1U : 0U),
                                                std::memory_order_relaxed)) {
  }
}

bool VectorSpace::RescoresFromStorage() const {
  const std::shared_ptr<index::VectorIndex> current = Current();
  const auto* hnsw = dynamic_cast<const index::HnswIndex*>(current.get());
  return hnsw != nullptr && hnsw->params().encoding != index::VectorEncoding::kFloat32;
}

Result<std::vector<index::Neighbor>> VectorSpace::Search(std::span<const float> q, size_t k,
                                                         const index::SearchFilter& filter,
                                                         const KnownVectors* known) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return SearchUnsynced(q, k, filter, known);
}

Result<std::vector<index::Neighbor>> VectorSpace::SearchUnsynced(std::span<const float> q, size_t k,
                                                                 const index::SearchFilter& filter,
                                                                 const KnownVectors* known) {
  bool verified = true;
  const std::shared_ptr<index::VectorIndex> current = Current(&verified);
  // An unverified graph is not walked (Open): its vectors are scanned.
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<index::Neighbor> found,
      verified ? current->Search(q, k, filter) : current->SearchExact(q, k, filter));
  const auto* hnsw = dynamic_cast<const index::HnswIndex*>(current.get());
  if (hnsw == nullptr || hnsw->params().encoding == index::VectorEncoding::kFloat32) return found;
  return Rescore(q, std::move(found), known);
}

// A quantised index's scores are within ~1e-3 of the truth; the stored
// float vectors give the exact ones, so a pair scores the same whichever
// index kind serves the space (and as search_service's keyword-side
// candidates, which are scored from storage). A vector gone from storage
// meanwhile keeps its index score.
Result<std::vector<index::Neighbor>> VectorSpace::Rescore(std::span<const float> q,
                                                          std::vector<index::Neighbor> found,
                                                          const KnownVectors* known) {
  if (found.empty()) return found;
  std::unordered_map<storage::Label, const std::vector<float>*> by_label;
  std::vector<storage::Label> labels;
  labels.reserve(found.size());
  for (const index::Neighbor& n : found) {
    const auto label = static_cast<storage::Label>(n.id);
    if (known != nullptr) {
      if (auto it = known->find(label); it != known->end()) {
        by_label.emplace(label, &it->second);
        continue;
      }
    }
    labels.push_back(label);
  }
  std::vector<storage::LabeledVector> stored;
  if (!labels.empty()) {
    MNEMO_ASSIGN_OR_RETURN(stored, entries_.VectorsFor(signature_, labels));
  }
  for (const storage::LabeledVector& v : stored) by_label.emplace(v.label, &v.vector);
  for (index::Neighbor& n : found) {
    auto it = by_label.find(static_cast<storage::Label>(n.id));
    if (it == by_label.end() || it->second->size() != q.size()) continue;
    n.score = index::Dot(q.data(), it->second->data(), q.size());
  }
  std::sort(found.begin(), found.end(), index::NeighborBefore);
  return found;
}

bool VectorSpace::SaveDueLocked() const {
  if (!dirty_ || !verified()) return false;
  if (file_watermark_ < 0) return true;
  const int64_t due =
      std::min(kMaxUnsavedChanges,
               std::max(kSaveAfterChanges, static_cast<int64_t>(index_->size()) / kSaveFraction));
  return watermark_.load() - file_watermark_ >= due;
}

Status VectorSpace::Save() {
  if (dir_.empty()) return Status::Ok();
  {
    std::lock_guard lock(mu_);
    if (!SaveDueLocked()) return Status::Ok();
  }
  return WriteFile();
}

Status VectorSpace::Purge() {
  {
    std::lock_guard lock(mu_);
    // Of the kind ChooseKind gives and without tombstones: nothing to
    // maintain, and a maintenance job under way finds its source replaced
    // and discards what it built.
    MNEMO_RETURN_IF_ERROR(Rebuild());
  }
  return dir_.empty() ? Status::Ok() : WriteFile();
}

Status VectorSpace::WriteFile() {
  std::lock_guard save_lock(save_mu_);
  std::shared_ptr<index::VectorIndex> index;
  int64_t watermark = 0;
  {
    // What the file will hold: every change up to `watermark` is in `index`
    // (changes applied while the payload is written may be in it too; the
    // next open replays them again, which is idempotent).
    std::lock_guard lock(mu_);
    index = index_;
    watermark = watermark_.load();
  }
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Unavailable("cannot create " + dir_.string() + ": " + ec.message());
  MNEMO_RETURN_IF_ERROR(index::SaveIndexFile(index::IndexFilePath(dir_, signature_, index->kind()),
                                             *index, signature_, entries_.store_id(),
                                             static_cast<uint64_t>(watermark)));
  for (index::IndexKind kind : {index::IndexKind::kHnsw, index::IndexKind::kFlat}) {
    if (kind != index->kind()) {
      std::filesystem::remove(index::IndexFilePath(dir_, signature_, kind), ec);
    }
  }
  std::lock_guard lock(mu_);
  if (index_ == index) {
    file_watermark_ = watermark;
    dirty_ = watermark_.load() != watermark;
  }
  return Status::Ok();
}

VectorSpace::~VectorSpace() {
  {
    std::lock_guard lock(job_mu_);
    stopping_ = true;
  }
  job_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

void VectorSpace::SetMaintenanceHookForTest(std::function<void()> hook) {
  std::lock_guard lock(job_mu_);
  maintenance_hook_ = std::move(hook);
}

void VectorSpace::ScheduleMaintenance() {
  std::lock_guard lock(job_mu_);
  if (stopping_.load() || job_queued_ || job_running_) return;
  job_queued_ = true;
  if (!worker_.joinable()) worker_ = std::thread([this] { MaintenanceLoop(); });
  job_cv_.notify_all();
}

Status VectorSpace::WaitForMaintenance() {
  std::unique_lock lock(job_mu_);
  job_cv_.wait(lock, [&] { return !job_queued_ && !job_running_; });
  return job_status_;
}

void VectorSpace::MaintenanceLoop() {
  std::chrono::seconds retry_after = kRetryFirst;
  std::unique_lock lock(job_mu_);
  for (;;) {
    job_cv_.wait(lock, [&] { return stopping_.load() || job_queued_; });
    if (stopping_.load()) return;
    job_queued_ = false;
    job_running_ = true;
    const std::function<void()> hook = maintenance_hook_;
    lock.unlock();
    Status s;
    // An exception would end the process on this thread (there is no
    // request to fail): a rebuild that runs out of memory, say, becomes a
    // failed job, retried later like any other.
    try {
      RunVerification();
      s = RunMaintenance(hook);
    } catch (const std::exception& e) {
      s = Internal(std::string("vector index maintenance threw: ") + e.what());
    }
    // The swapped-in index can need another round (the changes caught up
    // after the build took it back under the threshold, or left tombstones),
    // and a job whose source was replaced did nothing.
    const bool again =
        s.ok() && index::NeedsMaintenance(*Current(), options_) != index::Maintenance::kNone;
    lock.lock();
    job_running_ = false;
    job_status_ = s;
    job_queued_ = job_queued_ || again;
    job_cv_.notify_all();
    if (s.ok() || stopping_.load()) {
      retry_after = kRetryFirst;
      continue;
    }
    LogWarning("cannot switch or compact the vector index of " + signature_ +
               " (the current index goes on serving): " + s.message() + "; retrying in " +
               std::to_string(retry_after.count()) + " s");
    job_cv_.wait_for(lock, retry_after, [&] { return stopping_.load(); });
    retry_after = std::min(retry_after * 2, kRetryMax);
    job_queued_ = true;
  }
}

Status VectorSpace::RunMaintenance(const std::function<void()>& before_swap) {
  std::shared_ptr<index::VectorIndex> source;
  bool distrusted = false;
  {
    std::lock_guard lock(mu_);
    source = index_;
    distrusted = index_distrusted_;
  }
  if (!distrusted && index::NeedsMaintenance(*source, options_) == index::Maintenance::kNone) {
    return Status::Ok();
  }
  // The kind it should be; for a compaction the same kind, without
  // tombstones; for a distrusted index the kind the stored count calls for.
  std::optional<index::IndexKind> kind;
  if (!distrusted) kind = index::ChooseKind(options_, source->size(), source->kind());
  MNEMO_ASSIGN_OR_RETURN(Built built, BuildFromStorage(kind));
  // Most of what changed during the build goes in before mu_ is taken, so
  // the catch-up under it (which Sync, and so requests, wait for) is short.
  MNEMO_RETURN_IF_ERROR(CatchUp(*built.index, &built.watermark));
  if (before_swap) before_swap();
  if (stopping_.load()) return Unavailable("the vector space of " + signature_ + " is closing");
  std::lock_guard lock(mu_);
  // Replaced meanwhile (Purge, a rebuild after a trimmed log, a bulk Sync):
  // that index is newer than ours and of the kind its own state called for.
  if (index_ != source) return Status::Ok();
  MNEMO_RETURN_IF_ERROR(CatchUp(*built.index, &built.watermark));
  SetIndex(std::move(built.index));
  watermark_ = built.watermark;
  dirty_ = true;
  file_watermark_ = -1;  // the file on disk holds the other kind, or the tombstones
  return Status::Ok();
}

}  // namespace mnemo

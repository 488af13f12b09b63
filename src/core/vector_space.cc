#include "core/vector_space.h"

#include <iostream>

#include "index/index_file.h"

namespace mnemo {
namespace {

constexpr int kChangePage = 4096;
constexpr size_t kBuildBatch = 8192;
// Save the index file only once this many changes are not in it yet.
constexpr int64_t kSaveAfterChanges = 2048;

void LogWarning(const std::string& message) { std::cerr << "mnemo: warning: " << message << "\n"; }

}  // namespace

Result<std::unique_ptr<VectorSpace>> VectorSpace::Open(storage::Backend& backend,
                                                       std::string signature, size_t dims,
                                                       index::IndexOptions options,
                                                       std::filesystem::path dir) {
  std::unique_ptr<VectorSpace> space(
      new VectorSpace(backend, std::move(signature), dims, options, std::move(dir)));
  std::lock_guard lock(space->mu_);
  bool loaded = false;
  if (!space->dir_.empty()) {
    for (index::IndexKind kind : {index::IndexKind::kHnsw, index::IndexKind::kFlat}) {
      auto path = index::IndexFilePath(space->dir_, space->signature_, kind);
      if (!std::filesystem::exists(path)) continue;
      auto file = index::LoadIndexFile(path, space->signature_, dims, index::VerifyMode::kNow,
                                       space->options_);
      if (!file.ok()) {
        LogWarning(file.status().message() + "; rebuilding the index from storage");
        continue;
      }
      space->index_ = std::move(file->index);
      space->watermark_ = static_cast<int64_t>(file->header.watermark);
      space->file_watermark_ = space->watermark_;
      loaded = true;
      break;
    }
  }
  if (loaded) {
    // Catch up; a log trimmed past our watermark means rebuild.
    for (;;) {
      auto changes = backend.VectorChangesSince(space->signature_, space->watermark_, kChangePage);
      if (!changes.ok()) {
        if (changes.status().code() != StatusCode::kNotFound) return changes.status();
        LogWarning("index file of " + space->signature_ + " is older than the change log; " +
                   "rebuilding from storage");
        loaded = false;
        space->file_watermark_ = -1;
        break;
      }
      MNEMO_RETURN_IF_ERROR(space->ApplyChanges(*changes));
      if (static_cast<int>(changes->size()) < kChangePage) break;
    }
  }
  if (!loaded) MNEMO_RETURN_IF_ERROR(space->Rebuild());
  MNEMO_RETURN_IF_ERROR(space->Maintain());
  return space;
}

std::shared_ptr<index::VectorIndex> VectorSpace::Current() const {
  std::lock_guard lock(mu_);
  return index_;
}

size_t VectorSpace::size() const { return Current()->size(); }

// Reads every vector of the signature from storage into a fresh index.
// Caller holds mu_.
Status VectorSpace::Rebuild() {
  MNEMO_ASSIGN_OR_RETURN(int64_t watermark, backend_.VectorWatermark(signature_));
  MNEMO_ASSIGN_OR_RETURN(auto flat, index::MakeIndex(index::IndexKind::kFlat, dims_, options_));
  std::vector<uint64_t> ids;
  std::vector<float> data;
  auto flush = [&]() -> Status {
    MNEMO_RETURN_IF_ERROR(flat->UpsertBatch(ids, data));
    ids.clear();
    data.clear();
    return Status::Ok();
  };
  MNEMO_RETURN_IF_ERROR(
      backend_.ForEachVector(signature_, [&](const storage::LabeledVector& v) -> Status {
        if (v.vector.size() != dims_) return Status::Ok();  // another space's leftover
        ids.push_back(static_cast<uint64_t>(v.label));
        data.insert(data.end(), v.vector.begin(), v.vector.end());
        return ids.size() >= kBuildBatch ? flush() : Status::Ok();
      }));
  MNEMO_RETURN_IF_ERROR(flush());
  index_ = std::move(flat);
  watermark_ = watermark;
  dirty_ = true;
  file_watermark_ = -1;  // whatever is on disk is older than the change log
  return Status::Ok();
}

// Caller holds mu_. Runs of upserts go in as one batch (an hnsw index builds
// a batch on several threads); removals keep their place in the order.
Status VectorSpace::ApplyChanges(std::span<const storage::VectorChange> changes) {
  std::vector<uint64_t> ids;
  std::vector<float> data;
  auto flush = [&]() -> Status {
    if (ids.empty()) return Status::Ok();
    MNEMO_RETURN_IF_ERROR(index_->UpsertBatch(ids, data));
    ids.clear();
    data.clear();
    return Status::Ok();
  };
  for (const storage::VectorChange& c : changes) {
    const auto id = static_cast<uint64_t>(c.label);
    if (c.vector.empty()) {
      MNEMO_RETURN_IF_ERROR(flush());
      MNEMO_RETURN_IF_ERROR(index_->Remove(id));
    } else if (c.vector.size() == dims_) {
      ids.push_back(id);
      data.insert(data.end(), c.vector.begin(), c.vector.end());
    }
  }
  MNEMO_RETURN_IF_ERROR(flush());
  if (!changes.empty()) {
    watermark_ = changes.back().seq;
    dirty_ = true;
  }
  return Status::Ok();
}

// Switches flat <-> hnsw at the threshold and compacts tombstones. Caller
// holds mu_.
Status VectorSpace::Maintain() {
  switch (index::NeedsMaintenance(*index_, options_)) {
    case index::Maintenance::kNone: return Status::Ok();
    case index::Maintenance::kSwitchKind:
    case index::Maintenance::kCompact: {
      index::IndexKind kind = index::ChooseKind(options_, index_->size(), index_->kind());
      MNEMO_ASSIGN_OR_RETURN(auto rebuilt, index::RebuildAs(*index_, kind, options_));
      index_ = std::move(rebuilt);
      dirty_ = true;
      file_watermark_ = -1;  // the file on disk holds the other kind
      return Status::Ok();
    }
  }
  return Status::Ok();
}

Status VectorSpace::Sync() {
  MNEMO_ASSIGN_OR_RETURN(int64_t newest, backend_.VectorWatermark(signature_));
  if (newest == watermark_.load()) return Status::Ok();
  std::lock_guard lock(mu_);
  // A large backlog (a bulk import) is applied to the kind it will end up in,
  // in batches, instead of growing a flat index and converting it.
  const auto backlog = static_cast<size_t>(newest - watermark_.load());
  if (index_->kind() == index::IndexKind::kFlat &&
      index::ChooseKind(options_, index_->size() + backlog, index_->kind()) !=
          index::IndexKind::kFlat) {
    MNEMO_ASSIGN_OR_RETURN(auto grown,
                           index::RebuildAs(*index_, index::IndexKind::kHnsw, options_));
    index_ = std::move(grown);
    file_watermark_ = -1;
  }
  for (;;) {
    auto changes = backend_.VectorChangesSince(signature_, watermark_, kChangePage);
    if (!changes.ok()) {
      if (changes.status().code() != StatusCode::kNotFound) return changes.status();
      MNEMO_RETURN_IF_ERROR(Rebuild());
      break;
    }
    MNEMO_RETURN_IF_ERROR(ApplyChanges(*changes));
    if (static_cast<int>(changes->size()) < kChangePage) break;
  }
  return Maintain();
}

Status VectorSpace::Put(std::span<const storage::LabeledVector> vectors, bool sync) {
  MNEMO_RETURN_IF_ERROR(backend_.PutVectors(signature_, vectors));
  return sync ? Sync() : Status::Ok();
}

Result<std::vector<index::Neighbor>> VectorSpace::Search(std::span<const float> q, size_t k,
                                                         const index::SearchFilter& filter) {
  MNEMO_RETURN_IF_ERROR(Sync());
  return Current()->Search(q, k, filter);
}

Status VectorSpace::Save() {
  if (dir_.empty()) return Status::Ok();
  std::lock_guard lock(mu_);
  if (!dirty_) return Status::Ok();
  if (file_watermark_ >= 0 && watermark_.load() - file_watermark_ < kSaveAfterChanges) {
    return Status::Ok();
  }
  return SaveLocked();
}

Status VectorSpace::Purge() {
  std::lock_guard lock(mu_);
  MNEMO_RETURN_IF_ERROR(Rebuild());
  MNEMO_RETURN_IF_ERROR(Maintain());
  return dir_.empty() ? Status::Ok() : SaveLocked();
}

Status VectorSpace::SaveLocked() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  if (ec) return Unavailable("cannot create " + dir_.string() + ": " + ec.message());
  for (index::IndexKind kind : {index::IndexKind::kHnsw, index::IndexKind::kFlat}) {
    if (kind != index_->kind()) {
      std::filesystem::remove(index::IndexFilePath(dir_, signature_, kind), ec);
    }
  }
  MNEMO_RETURN_IF_ERROR(index::SaveIndexFile(index::IndexFilePath(dir_, signature_, index_->kind()),
                                             *index_, signature_,
                                             static_cast<uint64_t>(watermark_.load())));
  file_watermark_ = watermark_.load();
  dirty_ = false;
  return Status::Ok();
}

}  // namespace mnemo

// The vectors service (core/search/vectors_service.h).

#include "core/search/vectors_service.h"

#include <algorithm>
#include <condition_variable>
#include <optional>
#include <thread>
#include <unordered_set>

#include "core/components.h"
#include "embed/embedding_cache.h"
#include "embed/hash_embedder.h"
#include "embed/word_embedder.h"

namespace mnemo {
namespace {

constexpr int kEmbedPage = 512;
// FillMissing hands the index what it stored every this many vectors.
constexpr int64_t kSyncEvery = 16384;

// Brings a space's index up to date on a thread of its own, on request,
// while the caller embeds and stores the next pages: a bulk fill then uses
// a second core for the graph instead of building it all at the end, and
// the index follows the change log closely enough that the log is never
// trimmed past it (which forced a rebuild of everything from storage).
class BackgroundSync {
 public:
  BackgroundSync(std::shared_ptr<VectorSpace> space, Logger& logger)
      : space_(std::move(space)), logger_(logger), thread_([this] { Loop(); }) {}
  ~BackgroundSync() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Asks for an update; waits while the previous request is still waiting
  // for the running one, so the caller stays at most about two requests'
  // worth of vectors ahead of the index. Embedding outpaces the graph build:
  // unthrottled, the index fell more than the change log's 200 000 entries
  // behind, the log was trimmed past it, and Sync rebuilt the whole graph
  // from storage beside the half-built one.
  void Request() {
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !requested_; });
      requested_ = true;
    }
    cv_.notify_all();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    while (true) {
      cv_.wait(lock, [&] { return requested_ || stop_; });
      if (stop_) return;
      requested_ = false;
      lock.unlock();
      cv_.notify_all();
      // A failure is retried by the caller's final Sync.
      if (Status s = space_->Sync(VectorSpace::SyncMode::kBulk); !s.ok()) {
        logger_.Log(LogLevel::kWarn, "background index update failed: " + s.message());
      }
      lock.lock();
    }
  }

  const std::shared_ptr<VectorSpace> space_;
  Logger& logger_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool requested_ = false;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace

Result<VectorsOptions> VectorsOptionsOf(const Config& config, const storage::Stores& stores,
                                        const std::string& workspace) {
  VectorsOptions options;
  MNEMO_ASSIGN_OR_RETURN(options.index, IndexOptionsFromConfig(config.index));
  // In-memory stores keep no index files.
  if (stores.name == "in_memory") return options;
  options.dir = workspace + "/index";
  // A server's store has an index folder of its own per store (a file of
  // another store would be refused anyway: EntryStore::store_id).
  if (stores.name == "postgres") {
    options.dir /= std::string(stores.name) + "-" + std::string(stores.entries->store_id());
  }
  return options;
}

VectorsService::VectorsService(storage::EntryStore& entries,
                               std::unique_ptr<embed::Embedder> embedder, embed::Embedder* uncached,
                               VectorsOptions options, std::shared_ptr<Logger> logger)
    : entries_(entries),
      embedder_(std::move(embedder)),
      uncached_(uncached),
      options_(std::move(options)),
      logger_(std::move(logger)) {
  if (const auto* words = dynamic_cast<const embed::WordEmbedder*>(uncached_); words != nullptr) {
    words_ = words->vectors();
    soft_ = std::make_unique<const embed::SoftMatcher>(words_);
    // Chinese and Arabic keep the vectors they had before word vectors
    // (issue 43: "Chinese and Arabic keep today's path").
    other_ = std::make_unique<embed::HashEmbedder>();
  }
}

std::string VectorsService::OtherSignature() const {
  if (other_ == nullptr) return {};
  return embedder_->signature() + "." + other_->signature();
}

Result<VectorsService::QueryVector> VectorsService::EmbedQuery(const std::string& text) {
  QueryVector out;
  if (embedder_ == nullptr) return out;
  const std::string texts[] = {text};
  MNEMO_ASSIGN_OR_RETURN(std::vector<embed::Vector> v, embedder_->Embed(texts));
  if (!embed::IsZeroVector(v[0])) {
    MNEMO_ASSIGN_OR_RETURN(out.space, EmbedderSpace());
    out.vector = std::move(v[0]);
    return out;
  }
  if (other_ == nullptr) return out;
  MNEMO_ASSIGN_OR_RETURN(v, other_->Embed(texts));
  if (embed::IsZeroVector(v[0])) return out;
  MNEMO_ASSIGN_OR_RETURN(out.space,
                         Space(OtherSignature(), static_cast<size_t>(other_->dimensions())));
  out.vector = std::move(v[0]);
  return out;
}

std::string VectorsService::word_vectors_description() const {
  if (words_ == nullptr) return {};
  return words_->path() + " (" + words_->source() + ", sha256 " + words_->checksum() + ")";
}

std::string VectorsService::ActiveProvider(std::string_view configured) const {
  if (configured == "words" && words_ == nullptr && embedder_ != nullptr) return "hash";
  return std::string(configured);
}

Result<std::unique_ptr<VectorsService>> VectorsService::Open(
    storage::EntryStore& entries, std::unique_ptr<embed::Embedder> embedder, VectorsOptions options,
    std::shared_ptr<Logger> logger) {
  embed::Embedder* const uncached = embedder.get();
  if (embedder != nullptr) {
    embedder = std::make_unique<embed::CachingEmbedder>(
        std::move(embedder), std::make_shared<embed::LruEmbeddingCache>());
  }
  std::unique_ptr<VectorsService> service(new VectorsService(
      entries, std::move(embedder), uncached, std::move(options), std::move(logger)));
  MNEMO_RETURN_IF_ERROR(service->EmbedderSpace().status());
  service->ReindexIfSpaceChanged();
  return service;
}

void VectorsService::ReindexIfSpaceChanged() {
  if (embedder_ == nullptr) return;
  const std::string& signature = embedder_->signature();
  const std::string other = OtherSignature();
  auto signatures = entries_.VectorSignatures();
  if (!signatures.ok()) return;  // the next search or reindex reports storage errors
  std::string stale;
  for (const std::string& s : *signatures) {
    if (s == signature || s == other || embed::IsExternalSignature(s)) continue;
    stale += (stale.empty() ? "" : ", ") + s;
  }
  if (stale.empty()) return;
  auto missing = entries_.CountMissingVectors(signature);
  if (!missing.ok()) return;
  int64_t total = *missing;
  if (!other.empty()) {
    auto in_other = entries_.CountVectors(other);
    if (in_other.ok()) total -= *in_other;
  }
  if (total <= 0) return;
  const std::string what = std::to_string(total) + " entries have vectors of " + stale +
                           " but none of the embedder's space " + signature;
  const bool local = words_ != nullptr || dynamic_cast<embed::HashEmbedder*>(uncached_) != nullptr;
  if (!local) {
    logger_->Log(LogLevel::kWarn, what +
                                      ": they rank by keywords alone until `mnemo reindex` "
                                      "embeds them");
    return;
  }
  logger_->Log(LogLevel::kInfo, what + " (indexed with another embedder): reindexing them now");
  int64_t next_report = 0;
  auto report = FillMissing([&](int64_t done, int64_t all) {
    if (done < next_report && done < all) return;
    logger_->Log(LogLevel::kInfo,
                 "reindexing: " + std::to_string(done) + " of " + std::to_string(all) + " entries");
    next_report = done + std::max<int64_t>(4096, all / 10);
  });
  if (!report.ok()) {
    logger_->Log(LogLevel::kWarn, "reindexing at open failed (" + report.status().message() +
                                      "): run `mnemo reindex`");
  }
}

Status VectorsService::ProbeEmbedder() const {
  if (uncached_ == nullptr)
    return Disabled("no embedder is configured (embedding.provider = none)");
  const std::string probe[] = {"mnemo embedder probe"};
  return uncached_->Embed(probe).status();
}

VectorsService::~VectorsService() {
  if (Status s = SaveAll(); !s.ok()) logger_->Log(LogLevel::kWarn, s.message());
}

std::vector<std::shared_ptr<VectorSpace>> VectorsService::OpenSpaces() {
  std::lock_guard lock(spaces_mu_);
  std::vector<std::shared_ptr<VectorSpace>> open;
  for (auto& [signature, space] : spaces_) open.push_back(space);
  return open;
}

Status VectorsService::SaveAll() {
  Status first;
  for (const std::shared_ptr<VectorSpace>& space : OpenSpaces()) {
    if (Status s = space->Save(); !s.ok() && first.ok()) {
      first =
          Unavailable("cannot save the vector index of " + space->signature() + ": " + s.message());
    }
  }
  return first;
}

Status VectorsService::PurgeAll() {
  for (const std::shared_ptr<VectorSpace>& space : OpenSpaces()) {
    MNEMO_RETURN_IF_ERROR(space->Purge());
  }
  return Status::Ok();
}

void VectorsService::DropAll() {
  {
    std::lock_guard lock(spaces_mu_);
    spaces_.clear();
  }
  if (options_.dir.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(options_.dir, ec);
}

Result<std::shared_ptr<VectorSpace>> VectorsService::Space(const std::string& signature,
                                                           size_t dims) {
  std::lock_guard lock(spaces_mu_);
  auto it = spaces_.find(signature);
  if (it != spaces_.end()) return it->second;
  MNEMO_ASSIGN_OR_RETURN(
      std::shared_ptr<VectorSpace> space,
      VectorSpace::Open(entries_, signature, dims, options_.index, options_.dir, logger_));
  spaces_.emplace(signature, space);
  return space;
}

Result<std::shared_ptr<VectorSpace>> VectorsService::EmbedderSpace() {
  if (embedder_ == nullptr) return std::shared_ptr<VectorSpace>();
  return Space(embedder_->signature(), static_cast<size_t>(embedder_->dimensions()));
}

Result<std::vector<std::optional<storage::SignedVector>>> VectorsService::EmbedTexts(
    std::span<const std::string> texts) {
  MNEMO_RETURN_IF_ERROR(EmbedderSpace().status());
  MNEMO_ASSIGN_OR_RETURN(std::vector<embed::Vector> vectors, embedder_->Embed(texts));
  std::vector<std::optional<storage::SignedVector>> out(texts.size());
  std::vector<std::string> other_texts;
  std::vector<size_t> other_at;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (!embed::IsZeroVector(vectors[i])) {
      out[i] = storage::SignedVector{.signature = embedder_->signature(),
                                     .vector = std::move(vectors[i])};
    } else if (other_ != nullptr) {  // nothing to embed (no tokens, no English word)
      other_texts.push_back(texts[i]);
      other_at.push_back(i);
    }
  }
  if (other_at.empty()) return out;
  const std::string other = OtherSignature();
  MNEMO_RETURN_IF_ERROR(Space(other, static_cast<size_t>(other_->dimensions())).status());
  MNEMO_ASSIGN_OR_RETURN(vectors, other_->Embed(other_texts));
  for (size_t k = 0; k < other_at.size(); ++k) {
    if (embed::IsZeroVector(vectors[k])) continue;
    out[other_at[k]] = storage::SignedVector{.signature = other, .vector = std::move(vectors[k])};
  }
  return out;
}

int64_t VectorsService::EmbedAndStore(std::span<const storage::Label> labels,
                                      std::span<const std::string> texts, bool sync) {
  if (embedder_ == nullptr || labels.empty()) return 0;
  auto embedded = EmbedTexts(texts);
  if (!embedded.ok()) {
    logger_->Log(LogLevel::kWarn, std::to_string(labels.size()) +
                                      " vector(s) left pending (mnemo reindex fills them): " +
                                      embedded.status().message());
    return 0;
  }
  // The embedder's space first, then the other one (its signature extends
  // the embedder's).
  std::map<std::string, std::vector<storage::LabeledVector>> by_signature;
  for (size_t i = 0; i < labels.size(); ++i) {
    std::optional<storage::SignedVector>& v = (*embedded)[i];
    if (v) by_signature[v->signature].push_back({labels[i], std::move(v->vector)});
  }
  int64_t stored = 0;
  for (const auto& [signature, batch] : by_signature) {
    auto space = Space(signature, batch.front().vector.size());
    const Status s = space.ok() ? (*space)->Put(batch, sync) : space.status();
    if (!s.ok()) {
      logger_->Log(LogLevel::kWarn, "cannot store vectors: " + s.message());
      continue;
    }
    stored += static_cast<int64_t>(batch.size());
  }
  return stored;
}

std::vector<storage::SignedVector> VectorsService::VectorsOf(const std::string& text) {
  std::vector<storage::SignedVector> out;
  if (embedder_ == nullptr) return out;
  auto embedded = EmbedTexts(std::span(&text, 1));
  if (!embedded.ok()) {
    logger_->Log(LogLevel::kWarn,
                 "1 vector left pending (mnemo reindex fills it): " + embedded.status().message());
    return out;
  }
  if ((*embedded)[0]) out.push_back(std::move(*(*embedded)[0]));
  return out;
}

Result<storage::SignedVector> VectorsService::ExternalVector(const std::vector<float>& v) {
  storage::SignedVector out{.signature = embed::ExternalSignature(static_cast<int>(v.size())),
                            .vector = v};
  if (!embed::NormalizeL2(out.vector)) {
    return InvalidArgument("embedding must have a non-zero length", "embedding");
  }
  MNEMO_RETURN_IF_ERROR(Space(out.signature, v.size()).status());
  return out;
}

void VectorsService::SyncWritten(std::span<const storage::SignedVector> written) {
  for (const storage::SignedVector& v : written) {
    auto space = Space(v.signature, v.vector.size());
    const Status s = space.ok() ? (*space)->Sync() : space.status();
    if (!s.ok()) logger_->Log(LogLevel::kWarn, "cannot update the vector index: " + s.message());
  }
}

Status VectorsService::StoreExternal(storage::Label label, const std::vector<float>& v) {
  MNEMO_ASSIGN_OR_RETURN(storage::SignedVector external, ExternalVector(v));
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, Space(external.signature, v.size()));
  std::vector<storage::LabeledVector> one = {{label, std::move(external.vector)}};
  return space->Put(one);
}

Status VectorsService::StoreExternal(std::span<const storage::Label> labels,
                                     std::span<std::pair<size_t, std::vector<float>>> vectors) {
  std::map<size_t, std::vector<storage::LabeledVector>> by_dims;
  for (auto& [at, v] : vectors) {
    if (!embed::NormalizeL2(v)) continue;  // validated non-zero already
    const size_t dims = v.size();
    by_dims[dims].push_back({labels[at], std::move(v)});
  }
  for (auto& [dims, batch] : by_dims) {
    MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space,
                           Space(embed::ExternalSignature(static_cast<int>(dims)), dims));
    for (size_t i = 0; i < batch.size(); i += kEmbedPage * 8) {
      const size_t n = std::min(batch.size() - i, static_cast<size_t>(kEmbedPage) * 8);
      MNEMO_RETURN_IF_ERROR(space->Put(std::span(batch).subspan(i, n), /*sync=*/false));
    }
    MNEMO_RETURN_IF_ERROR(space->Sync(VectorSpace::SyncMode::kBulk));
  }
  return Status::Ok();
}

Result<ReindexReport> VectorsService::FillMissing(const ProgressFn& progress) {
  ReindexReport report;
  if (embedder_ == nullptr) return report;
  report.signature = embedder_->signature();
  MNEMO_ASSIGN_OR_RETURN(int64_t total, entries_.CountMissingVectors(report.signature));
  // Texts without an English word have their vector in the other space:
  // they are missing from the embedder's space, not from the workspace.
  const std::string other = OtherSignature();
  if (!other.empty()) {
    MNEMO_ASSIGN_OR_RETURN(int64_t in_other, entries_.CountVectors(other));
    total = std::max<int64_t>(0, total - in_other);
  }
  std::optional<BackgroundSync> background;
  if (total >= 2 * kSyncEvery) {
    MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, EmbedderSpace());
    background.emplace(space, *logger_);
  }
  int64_t unsynced = 0;
  storage::Label after = 0;
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::MissingVector> page,
                           entries_.MissingVectors(report.signature, after, kEmbedPage));
    if (page.empty()) break;
    after = page.back().label;
    std::unordered_set<storage::Label> has_other;
    if (!other.empty()) {
      std::vector<storage::Label> page_labels;
      page_labels.reserve(page.size());
      for (const storage::MissingVector& m : page) page_labels.push_back(m.label);
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::LabeledVector> found,
                             entries_.VectorsFor(other, page_labels));
      for (const storage::LabeledVector& v : found) has_other.insert(v.label);
    }
    std::vector<storage::Label> labels;
    std::vector<std::string> texts;
    for (storage::MissingVector& m : page) {
      if (has_other.contains(m.label)) continue;
      labels.push_back(m.label);
      texts.push_back(std::move(m.content));
    }
    if (labels.empty()) continue;
    int64_t stored = EmbedAndStore(labels, texts, /*sync=*/false);
    unsynced += stored;
    if (background && unsynced >= kSyncEvery) {
      background->Request();
      unsynced = 0;
    }
    report.embedded += stored;
    report.failed += static_cast<int64_t>(labels.size()) - stored;
    if (progress) progress(report.embedded + report.failed, total);
  }
  background.reset();  // waits for a running update
  if (report.embedded > 0) {
    MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, EmbedderSpace());
    MNEMO_RETURN_IF_ERROR(space->Sync(VectorSpace::SyncMode::kBulk));
    if (!other.empty()) {
      MNEMO_ASSIGN_OR_RETURN(space, Space(other, static_cast<size_t>(other_->dimensions())));
      MNEMO_RETURN_IF_ERROR(space->Sync(VectorSpace::SyncMode::kBulk));
    }
  }
  return report;
}

}  // namespace mnemo

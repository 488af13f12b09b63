// The engine's vector side (spec 20): the embedder, one VectorSpace per
// signature, embedding on store and import, and reindexing.

#include <algorithm>
#include <map>

#include "core/engine_impl.h"
#include "embed/embedding_cache.h"

namespace mnemo {
namespace {

constexpr int kEmbedPage = 512;

}  // namespace

Engine::Impl::~Impl() {
  if (Status s = SaveVectorIndexes(); !s.ok()) {
    logger->Log(LogLevel::kWarn, s.message());
  }
}

Status Engine::Impl::SaveVectorIndexes() {
  std::vector<std::shared_ptr<VectorSpace>> open;
  {
    std::lock_guard lock(spaces_mu);
    for (auto& [signature, space] : spaces) open.push_back(space);
  }
  Status first;
  for (const std::shared_ptr<VectorSpace>& space : open) {
    if (Status s = space->Save(); !s.ok() && first.ok()) {
      first =
          Unavailable("cannot save the vector index of " + space->signature() + ": " + s.message());
    }
  }
  return first;
}

Status Engine::Impl::OpenVectors() {
  MNEMO_ASSIGN_OR_RETURN(index_options, index::IndexOptionsFromConfig(config.index));
  MNEMO_ASSIGN_OR_RETURN(std::unique_ptr<embed::Embedder> made,
                         embed::MakeEmbedder(config.embedding, nullptr));
  if (made == nullptr) return Status::Ok();
  embedder = std::make_unique<embed::CachingEmbedder>(std::move(made),
                                                      std::make_shared<embed::LruEmbeddingCache>());
  return EmbedderSpace().status();
}

Result<std::shared_ptr<VectorSpace>> Engine::Impl::Space(const std::string& signature,
                                                         size_t dims) {
  std::lock_guard lock(spaces_mu);
  auto it = spaces.find(signature);
  if (it != spaces.end()) return it->second;
  // In-memory stores keep no index files.
  std::filesystem::path dir;
  if (stores.name != "in_memory") dir = workspace + "/index";
  // A server's store has an index folder of its own per store, so that
  // workspaces pointed at several stores in turn keep each one's files
  // (a file of another store would be refused anyway: EntryStore::store_id).
  if (stores.name == "postgres") {
    dir /= std::string(stores.name) + "-" + std::string(stores.entries->store_id());
  }
  MNEMO_ASSIGN_OR_RETURN(
      std::shared_ptr<VectorSpace> space,
      VectorSpace::Open(*stores.entries, signature, dims, index_options, dir, logger));
  spaces.emplace(signature, space);
  return space;
}

Result<std::shared_ptr<VectorSpace>> Engine::Impl::EmbedderSpace() {
  if (embedder == nullptr) return std::shared_ptr<VectorSpace>();
  return Space(embedder->signature(), static_cast<size_t>(embedder->dimensions()));
}

int64_t Engine::Impl::EmbedAndStore(std::span<const storage::Label> labels,
                                    std::span<const std::string> texts, bool sync) {
  if (embedder == nullptr || labels.empty()) return 0;
  auto space = EmbedderSpace();
  auto vectors = embedder->Embed(texts);
  if (!space.ok() || !vectors.ok()) {
    const Status& why = space.ok() ? vectors.status() : space.status();
    logger->Log(LogLevel::kWarn,
                std::to_string(labels.size()) +
                    " vector(s) left pending (mnemo reindex fills them): " + why.message());
    return 0;
  }
  std::vector<storage::LabeledVector> batch;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (embed::IsZeroVector((*vectors)[i])) continue;  // nothing to embed (no tokens)
    batch.push_back({labels[i], std::move((*vectors)[i])});
  }
  if (Status s = (*space)->Put(batch, sync); !s.ok()) {
    logger->Log(LogLevel::kWarn, "cannot store vectors: " + s.message());
    return 0;
  }
  return static_cast<int64_t>(batch.size());
}

Status Engine::Impl::StoreExternalVector(storage::Label label, const std::vector<float>& v) {
  std::vector<float> unit = v;
  if (!embed::NormalizeL2(unit)) {
    return InvalidArgument("embedding must have a non-zero length", "embedding");
  }
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space,
                         Space(embed::ExternalSignature(static_cast<int>(v.size())), v.size()));
  std::vector<storage::LabeledVector> one = {{label, std::move(unit)}};
  return space->Put(one);
}

Status Engine::Impl::StoreExternalVectors(
    std::span<const storage::Label> labels,
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
    MNEMO_RETURN_IF_ERROR(space->Sync());
  }
  return Status::Ok();
}

Result<ReindexReport> Engine::Impl::FillMissingVectors(const ProgressFn& progress) {
  ReindexReport report;
  if (embedder == nullptr) return report;
  report.signature = embedder->signature();
  MNEMO_ASSIGN_OR_RETURN(int64_t total, stores.entries->CountMissingVectors(report.signature));
  storage::Label after = 0;
  for (;;) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::MissingVector> page,
                           stores.entries->MissingVectors(report.signature, after, kEmbedPage));
    if (page.empty()) break;
    std::vector<storage::Label> labels;
    std::vector<std::string> texts;
    for (storage::MissingVector& m : page) {
      labels.push_back(m.label);
      texts.push_back(std::move(m.content));
    }
    after = labels.back();
    int64_t stored = EmbedAndStore(labels, texts, /*sync=*/false);
    report.embedded += stored;
    report.failed += static_cast<int64_t>(labels.size()) - stored;
    if (progress) progress(report.embedded + report.failed, total);
  }
  if (report.embedded > 0) {
    MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, EmbedderSpace());
    MNEMO_RETURN_IF_ERROR(space->Sync());
  }
  return report;
}

Result<ReindexReport> Engine::Impl::Reindex(const Principal& who, const ProgressFn& progress) {
  MNEMO_RETURN_IF_ERROR(CheckEnabled());
  if (!IsAdmin(who)) return PermissionDenied("reindex needs the admin role");
  // Drop the in-process spaces and their files: they are rebuilt from storage.
  {
    std::lock_guard lock(spaces_mu);
    spaces.clear();
  }
  std::error_code ec;
  std::filesystem::remove_all(workspace + "/index", ec);
  MNEMO_ASSIGN_OR_RETURN(ReindexReport report, FillMissingVectors(progress));
  MNEMO_ASSIGN_OR_RETURN(report.recaps_embedded, FillMissingRecapVectors());
  MNEMO_ASSIGN_OR_RETURN(std::shared_ptr<VectorSpace> space, EmbedderSpace());
  if (space != nullptr) report.indexed = static_cast<int64_t>(space->size());
  MNEMO_RETURN_IF_ERROR(ReindexDerivedText(report));
  return report;
}

}  // namespace mnemo

#include "core/hybrid_search.h"

#include <algorithm>
#include <unordered_map>

#include "core/engine_impl.h"

namespace mnemo {
namespace {

// A filter whose entries number at most this is scanned exactly instead of
// walking the graph with over-fetch (spec 20: "plan each filtered search").
constexpr int64_t kExactSubsetMax = 2000;

bool IsSelective(const storage::EntryFilter& f) {
  return f.ns.has_value() || f.category.has_value() || !f.tags.empty() || !f.scope.all ||
         f.since.has_value() || f.until.has_value();
}

double ClampCosine(double c) { return std::clamp(c, 0.0, 1.0); }

}  // namespace

Status Engine::Impl::PrepareVectorSide(const SearchRequest& req, HybridQuery* q,
                                       std::optional<std::string>* degraded) {
  if (req.embedding) {
    q->vector = *req.embedding;
    if (!embed::NormalizeL2(q->vector)) {
      return InvalidArgument("embedding must have a non-zero length", "embedding");
    }
    MNEMO_ASSIGN_OR_RETURN(
        q->space, vectors->Space(embed::ExternalSignature(static_cast<int>(q->vector.size())),
                                 q->vector.size()));
    return Status::Ok();
  }
  embed::Embedder* embedder = vectors->embedder();
  if (embedder == nullptr) return Status::Ok();
  const std::string texts[] = {req.query};
  auto v = embedder->Embed(texts);
  if (!v.ok()) {
    // Not fatal (spec 20): keyword-only, and the response says so.
    logger->Log(LogLevel::kWarn,
                "embedder unavailable, keyword-only search: " + v.status().message());
    *degraded = "embedder_unavailable";
    return Status::Ok();
  }
  std::vector<float>& unit = (*v)[0];
  if (embed::IsZeroVector(unit)) {
    return Status::Ok();  // nothing to embed in the query
  }
  MNEMO_ASSIGN_OR_RETURN(q->space, vectors->EmbedderSpace());
  q->vector = std::move(unit);
  return Status::Ok();
}

Result<std::vector<Candidate>> Engine::Impl::CollectCandidates(const HybridQuery& q) {
  std::vector<Candidate> out;
  std::unordered_map<storage::Label, size_t> at;
  if (!q.terms.empty()) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::KeywordHit> hits,
                           stores.entries->KeywordSearch({q.terms, q.filter, q.candidates}));
    for (storage::KeywordHit& h : hits) {
      at.emplace(h.label, out.size());
      out.push_back({std::move(h), std::nullopt});
    }
  }
  if (q.space == nullptr) return out;

  // Vector side: the filter runs inside the search, in batches, and the same
  // call gives each accepted candidate its keyword score.
  std::unordered_map<storage::Label, storage::KeywordHit> fetched;
  Status fetch_error;
  index::SearchFilter filter;
  filter.accept = [&](std::span<const uint64_t> ids, std::vector<char>* accepted) {
    std::vector<storage::Label> labels(ids.begin(), ids.end());
    auto hits = stores.entries->FetchByLabels(labels, q.filter, q.terms);
    if (!hits.ok()) {
      fetch_error = hits.status();
      return;
    }
    std::unordered_map<storage::Label, size_t> index_of;
    for (size_t i = 0; i < ids.size(); ++i) index_of.emplace(labels[i], i);
    for (storage::KeywordHit& h : *hits) {
      (*accepted)[index_of[h.label]] = 1;
      fetched.emplace(h.label, std::move(h));
    }
  };
  if (IsSelective(q.filter)) {
    MNEMO_ASSIGN_OR_RETURN(int64_t matching, stores.entries->CountMatching(q.filter));
    if (matching <= kExactSubsetMax) {
      MNEMO_ASSIGN_OR_RETURN(std::vector<storage::Label> labels,
                             stores.entries->MatchingLabels(q.filter, static_cast<int>(matching)));
      filter.subset.emplace(labels.begin(), labels.end());
    }
  }
  MNEMO_ASSIGN_OR_RETURN(std::vector<index::Neighbor> neighbors,
                         q.space->Search(q.vector, static_cast<size_t>(q.candidates), filter));
  MNEMO_RETURN_IF_ERROR(fetch_error);
  for (const index::Neighbor& n : neighbors) {
    const auto label = static_cast<storage::Label>(n.id);
    if (auto it = at.find(label); it != at.end()) {
      out[it->second].vector = ClampCosine(n.score);
    } else if (auto f = fetched.find(label); f != fetched.end()) {
      at.emplace(label, out.size());
      out.push_back({std::move(f->second), ClampCosine(n.score)});
    }
  }
  // Keyword-side candidates the vector side did not return: their cosine
  // from the stored vector, so both signals exist for every candidate.
  std::vector<storage::Label> need;
  for (const Candidate& c : out) {
    if (!c.vector) need.push_back(c.hit.label);
  }
  if (!need.empty()) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::LabeledVector> stored,
                           stores.entries->VectorsFor(q.space->signature(), need));
    for (const storage::LabeledVector& v : stored) {
      if (v.vector.size() != q.vector.size()) continue;
      out[at[v.label]].vector = ClampCosine(embed::Dot(v.vector, q.vector));
    }
  }
  return out;
}

}  // namespace mnemo

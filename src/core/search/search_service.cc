// The search service (core/search/search_service.h).
//
// Hybrid: candidates come from both sides (top-N keyword hits and top-N
// vector neighbours, filters applied inside each), every candidate gets both
// signals, and fusion.h turns them into the final score.

#include "core/search/search_service.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "base/request_trace.h"
#include "core/access.h"
#include "core/search/fusion.h"
#include "text/pipeline/query.h"
#include "text/snippet.h"

namespace mnemo {
namespace {

// A filter whose entries number at most this is scanned exactly instead of
// walking the graph with over-fetch (spec 20: "plan each filtered search").
constexpr int64_t kExactSubsetMax = 2000;

bool IsSelective(const storage::EntryFilter& f) {
  return f.ns.has_value() || f.ns_prefix.has_value() || f.category.has_value() || !f.tags.empty() ||
         !f.scope.all || f.since.has_value() || f.until.has_value();
}

double ClampCosine(double c) { return std::clamp(c, 0.0, 1.0); }

}  // namespace

SearchOptions SearchOptionsOf(const Config& config) {
  return {.acl_enabled = config.memory.acl_enabled, .search = config.search};
}

SearchService::SearchService(storage::EntryStore& entries, VectorsService& vectors,
                             std::shared_ptr<Clock> clock, std::shared_ptr<Logger> logger,
                             SearchOptions options)
    : entries_(entries),
      vectors_(vectors),
      clock_(std::move(clock)),
      logger_(std::move(logger)),
      options_(std::move(options)) {}

Result<SearchResponse> SearchService::Search(const Principal& who, const SearchQuery& req) {
  const std::string_view query = text::QueryText(req.query().view());
  HybridQuery q;
  q.terms = text::QueryTerms(query);
  if (req.category()) q.filter.category = req.category()->str();
  q.filter.ns = req.ns().ns();
  q.filter.ns_prefix = req.ns().prefix();
  q.filter.tags.assign(req.tags().begin(), req.tags().end());
  q.filter.include_archived = req.include_archived();
  q.filter.scope = ReadScopeFor(who, options_.acl_enabled);
  q.filter.since = req.window().since;
  q.filter.until = req.window().until;
  // Candidates from both sides, N >= 4k each (spec 20).
  q.candidates = std::max(4 * req.max_results(), 40);
  SearchResponse resp;
  {
    internal::ScopedStage stage("embed");
    MNEMO_RETURN_IF_ERROR(PrepareVectorSide(req, query, &q, &resp.degraded));
  }
  // Without a vector side or recency the fused score is the keyword score
  // (FuseScores) and RankOrder the keyword side's order: its top k is the
  // answer, and the 4k candidates would only be read to be dropped.
  // Soft term matching (embed/soft_match.h) moves keyword scores too.
  const embed::SoftMatcher* soft = req.embedding() != nullptr ? nullptr : vectors_.soft_matcher();
  std::optional<embed::SoftMatcher::Query> soft_query;
  if (soft != nullptr) soft_query = soft->Prepare(query);
  const bool soft_side = soft_query && !soft_query->words.empty();
  if (q.space == nullptr && req.recency_weight() <= 0 && !soft_side) {
    q.candidates = req.max_results();
  }
  double vector_floor = 0;
  MNEMO_ASSIGN_OR_RETURN(std::vector<Candidate> found, CollectCandidates(q, &vector_floor));

  internal::ScopedStage fuse_stage("fuse");
  std::vector<FusionInput> inputs;
  std::vector<embed::SoftScore> soft_scores(soft_side ? found.size() : 0);
  inputs.reserve(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    const Candidate& c = found[i];
    // A query word matched through a word of similar meaning counts as its
    // similarity's share of that word (the keyword score is the share of
    // the query's weight an entry holds), above the candidates' SoftFloor.
    if (soft_side) soft_scores[i] = soft->Score(*soft_query, c.hit.entry.content);
    inputs.push_back({.keyword = c.hit.keyword_score,
                      .vector = c.vector,
                      .updated_at = c.hit.entry.updated_at,
                      .key = c.hit.entry.key,
                      .soft = soft_side ? soft_scores[i].score : 0.0});
  }
  FusionOptions fusion = FusionOptionsOf(options_.search, /*vector_side=*/q.space != nullptr);
  fusion.vector_floor = vector_floor;
  std::vector<double> scores = FuseScores(inputs, fusion);
  if (req.recency_weight() > 0) {
    const TimeMs now = clock_->NowMs();
    for (size_t i = 0; i < scores.size(); ++i) {
      scores[i] = BlendRecency(scores[i], inputs[i].updated_at, now, req.recency_weight());
    }
  }
  for (size_t i : HybridOrder(inputs, scores)) {
    if (static_cast<int>(resp.results.size()) == req.max_results()) break;
    if (scores[i] < req.min_score()) break;  // ordered by score: the rest are lower
    Entry& e = found[i].hit.entry;
    SearchHit out;
    out.snippet = text::MakeSnippet(e.content, q.terms);
    out.id = std::move(e.id);
    out.key = std::move(e.key);
    out.ns = std::move(e.ns);
    out.category = std::move(e.category);
    out.owner = std::move(e.owner);
    out.content = std::move(e.content);
    out.keyword_score = found[i].hit.keyword_score;
    if (soft_side) {
      for (embed::SoftMatch& m : soft_scores[i].matches) {
        out.soft_matches.push_back({.query_word = std::move(m.query_word),
                                    .stored_word = std::move(m.stored_word),
                                    .similarity = m.similarity});
      }
    }
    out.vector_score = found[i].vector;
    out.score = scores[i];
    out.created_at = e.created_at;
    out.updated_at = e.updated_at;
    resp.results.push_back(std::move(out));
  }
  return resp;
}

Status SearchService::PrepareVectorSide(const SearchQuery& req, std::string_view query,
                                        HybridQuery* q, std::optional<std::string>* degraded) {
  if (req.embedding() != nullptr) {
    q->vector = *req.embedding();
    if (!embed::NormalizeL2(q->vector)) {
      return InvalidArgument("embedding must have a non-zero length", "embedding");
    }
    MNEMO_ASSIGN_OR_RETURN(
        q->space, vectors_.Space(embed::ExternalSignature(static_cast<int>(q->vector.size())),
                                 q->vector.size()));
    return Status::Ok();
  }
  auto v = vectors_.EmbedQuery(std::string(query));
  if (!v.ok()) {
    // Not fatal (spec 20): keyword-only, and the response says so.
    logger_->Log(LogLevel::kWarn,
                 "embedder unavailable, keyword-only search: " + v.status().message());
    *degraded = "embedder_unavailable";
    return Status::Ok();
  }
  q->space = std::move(v->space);
  q->vector = std::move(v->vector);
  return Status::Ok();
}

Result<std::vector<Candidate>> SearchService::CollectCandidates(const HybridQuery& q,
                                                                double* vector_floor) {
  std::vector<Candidate> out;
  std::unordered_map<storage::Label, size_t> at;
  // When the index was current for recent searches (ExpectsCurrent), it is
  // checked with the vector side's rows, below. Otherwise (other nodes
  // write all the time) it catches up first, before the keyword side, in
  // one read of the change log with no lock held (SyncFromLog; a watermark
  // read, then a catch-up under the lock, was two round trips, and every
  // search of the node queued behind one catch-up). On PostgreSQL that
  // read also brings the node's keyword statistics up to the same writes,
  // so the keyword statement finds them current instead of stale.
  const bool fold = q.space != nullptr && q.space->ExpectsCurrent();
  if (q.space != nullptr && !fold) {
    internal::ScopedStage sync_stage("vector sync");
    MNEMO_ASSIGN_OR_RETURN(const bool behind, q.space->SyncFromLog());
    q.space->NoteSearch(behind);
  }
  if (!q.terms.empty()) {
    internal::ScopedStage stage("keyword");
    MNEMO_ASSIGN_OR_RETURN(std::vector<storage::KeywordHit> hits,
                           entries_.KeywordSearch({q.terms, q.filter, q.candidates}));
    for (storage::KeywordHit& h : hits) {
      at.emplace(h.label, out.size());
      out.push_back({std::move(h), std::nullopt});
    }
  }
  if (q.space == nullptr) return out;
  internal::ScopedStage stage("vector");

  // Vector side: the filter runs inside the search, in batches, on labels
  // alone (AcceptedLabels: the walk offers 4k and more). The first batch,
  // the k best neighbours when the filter passes most entries, is read
  // whole instead, with the vectors the cosines need (the keyword side's,
  // and the batch's when the index rescores from storage), in one
  // FetchWithVectors: one round trip on a server where three were.
  //
  // When the index was current for recent searches (ExpectsCurrent), it is
  // searched as it is, and the change log's watermark is read in that same
  // fetch rather than in a round trip of its own before the search (Sync).
  // When it shows changes the index has not seen (another node's write,
  // say), the index catches up and is searched again, reusing the rows and
  // vectors already read (they are at least as new as that watermark): the
  // answer is that of an index synced first. Where other nodes write all
  // the time, the index caught up before the keyword side (above), and
  // nothing is walked twice.
  const std::string signature(q.space->signature());
  bool rescores = q.space->RescoresFromStorage();
  Status filter_error;
  bool first_batch = true;
  bool read_watermark = fold;
  std::optional<int64_t> newest;  // the change log's watermark, read with the rows
  std::unordered_map<storage::Label, storage::KeywordHit> fetched;
  std::unordered_set<storage::Label> rejected;  // rows read that the filter refused
  VectorSpace::KnownVectors known;
  std::unordered_set<storage::Label> asked;  // vectors read, found or not
  auto keep_vectors = [&](std::vector<storage::LabeledVector> vectors) {
    for (storage::LabeledVector& v : vectors) known[v.label] = std::move(v.vector);
  };
  index::SearchFilter filter;
  filter.accept = [&](std::span<const uint64_t> ids, std::vector<char>* accepted) {
    std::vector<storage::Label> labels(ids.begin(), ids.end());
    std::unordered_map<storage::Label, size_t> index_of;
    for (size_t i = 0; i < ids.size(); ++i) index_of.emplace(labels[i], i);
    if (!first_batch) {
      auto passed = entries_.AcceptedLabels(labels, q.filter);
      if (!passed.ok()) {
        filter_error = passed.status();
        return;
      }
      for (storage::Label label : *passed) (*accepted)[index_of[label]] = 1;
      return;
    }
    first_batch = false;
    // Keyword hits passed the same filter in the keyword statement.
    std::vector<storage::Label> read;
    std::vector<storage::Label> vector_labels;
    auto ask_vector = [&](storage::Label label) {
      if (asked.insert(label).second) vector_labels.push_back(label);
    };
    for (size_t i = 0; i < labels.size(); ++i) {
      if (at.contains(labels[i]) || fetched.contains(labels[i])) {
        (*accepted)[i] = 1;
      } else if (!rejected.contains(labels[i])) {
        read.push_back(labels[i]);
      }
      if (rescores) ask_vector(labels[i]);
    }
    for (const Candidate& c : out) ask_vector(c.hit.label);
    if (read.empty() && vector_labels.empty() && !read_watermark) return;
    internal::ScopedStage fetch_stage("fetch");
    auto rows = entries_.FetchWithVectors(read, q.filter, q.terms, signature, vector_labels,
                                          read_watermark);
    if (!rows.ok()) {
      filter_error = rows.status();
      return;
    }
    if (rows->watermark) newest = rows->watermark;
    keep_vectors(std::move(rows->vectors));
    std::unordered_set<storage::Label> refused(read.begin(), read.end());
    for (storage::KeywordHit& h : rows->hits) {
      (*accepted)[index_of[h.label]] = 1;
      refused.erase(h.label);
      fetched.emplace(h.label, std::move(h));
    }
    rejected.insert(refused.begin(), refused.end());
  };
  if (IsSelective(q.filter)) {
    // One read that stops one label past the limit: counting every match
    // first scanned the whole table for a broad filter (a caller's scope).
    MNEMO_ASSIGN_OR_RETURN(
        std::vector<storage::Label> labels,
        entries_.MatchingLabels(q.filter, static_cast<int>(kExactSubsetMax) + 1));
    if (labels.size() <= static_cast<size_t>(kExactSubsetMax)) {
      filter.subset.emplace(labels.begin(), labels.end());
    }
  }
  const int64_t seen = q.space->watermark();
  MNEMO_ASSIGN_OR_RETURN(
      std::vector<index::Neighbor> neighbors,
      q.space->SearchUnsynced(q.vector, static_cast<size_t>(q.candidates), filter, &known));
  MNEMO_RETURN_IF_ERROR(filter_error);
  if (fold && !newest) {  // no batch was offered, so nothing read it
    MNEMO_ASSIGN_OR_RETURN(newest, entries_.VectorWatermark(signature));
  }
  if (fold) q.space->NoteSearch(*newest != seen);
  if (fold && *newest != seen) {
    {
      internal::ScopedStage sync_stage("vector sync");
      MNEMO_RETURN_IF_ERROR(q.space->SyncTo(*newest));
    }
    rescores = q.space->RescoresFromStorage();  // the catch-up may have changed the kind
    first_batch = true;
    read_watermark = false;
    MNEMO_ASSIGN_OR_RETURN(
        neighbors,
        q.space->SearchUnsynced(q.vector, static_cast<size_t>(q.candidates), filter, &known));
    MNEMO_RETURN_IF_ERROR(filter_error);
  }
  // What the first batch did not read: the rows of later batches'
  // neighbours (one that changed since it was accepted is read as it is
  // now, and one deleted since is dropped) and the vectors of keyword-side
  // candidates when no batch was offered.
  {
    std::unordered_set<storage::Label> neighbor_labels;
    std::vector<storage::Label> missing;
    for (const index::Neighbor& n : neighbors) {
      const auto label = static_cast<storage::Label>(n.id);
      neighbor_labels.insert(label);
      if (!at.contains(label) && !fetched.contains(label)) missing.push_back(label);
    }
    std::vector<storage::Label> need;
    for (const Candidate& c : out) {
      if (!neighbor_labels.contains(c.hit.label) && !asked.contains(c.hit.label)) {
        need.push_back(c.hit.label);
      }
    }
    if (!missing.empty() || !need.empty()) {
      internal::ScopedStage fetch_stage("fetch");
      MNEMO_ASSIGN_OR_RETURN(storage::FetchedCandidates rows,
                             entries_.FetchWithVectors(missing, q.filter, q.terms, signature, need,
                                                       /*with_watermark=*/false));
      for (storage::KeywordHit& h : rows.hits) fetched.emplace(h.label, std::move(h));
      keep_vectors(std::move(rows.vectors));
    }
  }
  std::vector<double> side;
  side.reserve(neighbors.size());
  for (const index::Neighbor& n : neighbors) side.push_back(ClampCosine(n.score));
  *vector_floor = VectorFloor(side, static_cast<size_t>(q.candidates));
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
  for (Candidate& c : out) {
    if (c.vector) continue;
    auto v = known.find(c.hit.label);
    if (v == known.end() || v->second.size() != q.vector.size()) continue;
    c.vector = ClampCosine(embed::Dot(v->second, q.vector));
  }
  return out;
}

}  // namespace mnemo
